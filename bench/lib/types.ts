/**
 * The contract between `bench/run.ts` and each suite in `bench/suites/`.
 *
 * A suite measures its subject and its baseline in the same process and run
 * and reports a ratio; absolute figures are printed and written to
 * BENCHMARKS.md but never asserted. Quick mode (CI) fails a row only when its
 * ratio falls below half its target, so a noisy machine does not fail CI.
 */

export interface SuiteOptions {
  /** Short run for CI: fewer iterations, smaller inputs where a row allows it. */
  quick: boolean;
}

export interface Measurement {
  /** What was measured, as printed: "verifyWebhook (medrecords)". */
  label: string;
  /** The figure, larger is better unless `lowerIsBetter` on the row. */
  value: number;
  /** Its unit, as printed: "ops/s", "MiB/s", "events/s", "req/s", "bytes gz". */
  unit: string;
}

export interface BenchRow {
  /** The table group, one per suite: "verifyWebhook, Node (node:crypto)". */
  group: string;
  /** The row within the group: "1 KiB body vs inline node:crypto". */
  name: string;
  subject: Measurement;
  baseline: Measurement;
  /**
   * subject / baseline when larger is better; baseline / subject when
   * `lowerIsBetter` (sizes). Above 1 means ours is better.
   */
  ratio: number;
  /** The target ratio from issue 7 (>= target passes). */
  target: number;
  /**
   * Measured and reported, but no longer a target: the row's baseline is
   * being replaced (its note says by what), so it neither misses nor fails.
   */
  informational?: true;
  /** For sizes and memory: the smaller figure is the better one. */
  lowerIsBetter?: boolean;
  /**
   * A hard limit that is not a ratio (peak RSS growth <= 64 MiB), checked in
   * both modes; `ok` false fails the run.
   */
  limit?: { description: string; ok: boolean };
  /** Free text for BENCHMARKS.md: why a target is missed, what was profiled. */
  note?: string;
}

export type Suite = (options: SuiteOptions) => Promise<BenchRow[]>;
