import { type Comparison, middleHalf } from "./measure.ts";
import { figure } from "./report.ts";
import type { BenchRow } from "./types.ts";

export interface RatioRowSpec {
  group: string;
  name: string;
  comparison: Comparison;
  /** Task name and printed label of ours. */
  subject: { task: string; label: string };
  /** Task name and printed label of the baseline. */
  baseline: { task: string; label: string };
  unit: string;
  target: number;
  note?: string;
}

/** A row from a `compare` run: figures per second, larger is better. */
export function ratioRow(spec: RatioRowSpec): BenchRow {
  const { comparison } = spec;
  const subject = comparison.results[spec.subject.task];
  const baseline = comparison.results[spec.baseline.task];
  if (!subject || !baseline) {
    throw new Error(`ratioRow: no task ${subject ? spec.baseline.task : spec.subject.task}`);
  }
  const row: BenchRow = {
    group: spec.group,
    name: spec.name,
    subject: { label: spec.subject.label, value: subject.perSecond, unit: spec.unit },
    baseline: { label: spec.baseline.label, value: baseline.perSecond, unit: spec.unit },
    ratio: comparison.ratio(spec.subject.task, spec.baseline.task),
    target: spec.target,
  };
  // Every such row's spread, so that a miss by less than it reads as what it is.
  const perRound = comparison.ratios(spec.subject.task, spec.baseline.task);
  const spread = `Middle half of the ${perRound.length} per-round ratios: ${middleHalf(perRound)}.`;
  row.note = spec.note === undefined ? spread : `${spec.note} ${spread}`;
  return row;
}

/** A task's figure as printed in a note: "68.6 k ops/s". */
export function perSecond(comparison: Comparison, task: string, unit = "ops/s"): string {
  const result = comparison.results[task];
  if (!result) throw new Error(`perSecond: no task ${task}`);
  return figure({ label: task, value: result.perSecond, unit });
}

/**
 * How a peer's row follows from the row against the inline baseline (task
 * "inline"), for its note: the inline floor's own lead over the peer.
 */
export function peerCeiling(comparison: Comparison, peer: string): string {
  return `The inline baseline, with no header or shape checks, is ${comparison.ratio("inline", peer).toFixed(2)}x of this peer in this run: this row is that lead times ours against the inline floor, and misses when that row's ratio dips, for the cause named there.`;
}
