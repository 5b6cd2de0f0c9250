/**
 * Measuring helpers shared by the suites.
 *
 * `compare` runs every task of a comparison in the same process, in rounds:
 * each round runs each task once for a batch of iterations, in an order that
 * rotates from round to round, so that drift on a noisy machine (another
 * process waking up, thermal throttling, a GC) lands on every side alike.
 * Each round gives one figure per task; a ratio is the median of the
 * per-round ratios, and a figure is the median of its rounds.
 *
 * Each round is one tinybench run over the rotated tasks. A tinybench sample
 * is a whole batch (a plain loop, awaited call by call when the task returns
 * a promise), reported back through `overriddenDuration` as the batch's mean
 * per call: a per-call timer would mostly measure the timer for calls of a
 * microsecond or two.
 */

import { Bench, type FnReturnedObject } from "tinybench";

export type Task = () => unknown;

export interface CompareOptions {
  /** Rounds after the warm-up; each round times every task once. */
  rounds: number;
  /** Target duration of one task's batch, from which its iteration count is calibrated. */
  batchMs?: number;
  /** Fixed iterations per batch instead of calibrating (e.g. 1 000 requests). */
  iterations?: number;
  /** Warm-up of each task before calibration. @default 200 ms or 2 batches of `iterations` */
  warmupMs?: number;
  /** Work units per call, e.g. events per iteration; figures are per unit. @default 1 */
  unitsPerCall?: number;
  /**
   * Collect garbage (when the process runs with --expose-gc) before each
   * batch. Off by default: after a forced full collection the young
   * generation starts small again, which charges the task that allocates the
   * most with scavenges a running server would not have (seen as a 10-25 %
   * swing on `verifyWebhook` over Web Crypto).
   */
  collectGarbage?: boolean;
}

export interface TaskResult {
  name: string;
  /** Median over the rounds, in units per second. */
  perSecond: number;
  /** Each round's figure, units per second. */
  rounds: number[];
  /** Iterations per batch. */
  iterations: number;
}

export interface Comparison {
  results: Record<string, TaskResult>;
  /** Median over the rounds of `a / b` (figures per second, larger is better). */
  ratio(a: string, b: string): number;
  /** Each round's `a / b`, in round order: how far the median could move on another run. */
  ratios(a: string, b: string): number[];
}

// Present when the process runs with --expose-gc (bench/run.ts starts each suite so).
const gc = (globalThis as { gc?: () => void }).gc;

function collect(): void {
  gc?.();
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

/** Result sink, so that no call is optimised away. */
export let sink: unknown;

async function runBatch(fn: Task, iterations: number, async: boolean): Promise<number> {
  const started = performance.now();
  if (async) {
    for (let i = 0; i < iterations; i++) sink = await fn();
  } else {
    for (let i = 0; i < iterations; i++) sink = fn();
  }
  return performance.now() - started;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The middle half of `values` (first to third quartile, nearest rank), for a note: "0.82x to 0.91x". */
export function middleHalf(values: readonly number[], digits = 2): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return `${at(0.25).toFixed(digits)}x to ${at(0.75).toFixed(digits)}x`;
}

export async function compare(
  tasks: Record<string, Task>,
  options: CompareOptions,
): Promise<Comparison> {
  const names = Object.keys(tasks);
  const units = options.unitsPerCall ?? 1;
  const plan = new Map<string, { fn: Task; async: boolean; iterations: number }>();

  for (const name of names) {
    const fn = tasks[name]!;
    // One call tells whether the task is asynchronous, and fails fast if it throws.
    const first = fn();
    const async = isThenable(first);
    if (async) await first;
    let iterations: number;
    if (options.iterations !== undefined) {
      iterations = options.iterations;
      const warmups = options.warmupMs === undefined ? 2 : 0;
      for (let i = 0; i < warmups; i++) await runBatch(fn, iterations, async);
      if (options.warmupMs !== undefined) await warmFor(fn, async, options.warmupMs);
    } else {
      const perCallMs = await warmFor(fn, async, options.warmupMs ?? 200);
      iterations = Math.max(1, Math.round((options.batchMs ?? 50) / perCallMs));
    }
    plan.set(name, { fn, async, iterations });
  }

  const rounds = new Map<string, number[]>(names.map((n) => [n, []]));
  for (let r = 0; r < options.rounds; r++) {
    // One sample per task per round; warm-up and calibration happened above.
    const bench = new Bench({ iterations: 1, time: 0, warmup: false });
    for (let k = 0; k < names.length; k++) {
      const name = names[(r + k) % names.length]!;
      const { fn, async, iterations } = plan.get(name)!;
      bench.add(
        name,
        async (): Promise<FnReturnedObject> => {
          const ms = await runBatch(fn, iterations, async);
          return { overriddenDuration: ms / iterations, overriddenIterationCost: ms };
        },
        { beforeEach: options.collectGarbage ? collect : undefined },
      );
    }
    for (const task of await bench.run()) {
      const result = task.result;
      if (result.state !== "completed") {
        const cause = result.state === "errored" ? result.error : result.state;
        throw new Error(`compare: task ${task.name} did not complete`, { cause });
      }
      rounds.get(task.name)!.push((units * 1000) / result.latency.mean);
    }
  }

  const results: Record<string, TaskResult> = {};
  for (const name of names) {
    const figures = rounds.get(name)!;
    results[name] = {
      name,
      perSecond: median(figures),
      rounds: figures,
      iterations: plan.get(name)!.iterations,
    };
  }
  const ratios = (a: string, b: string) => {
    const ra = rounds.get(a);
    const rb = rounds.get(b);
    if (!ra || !rb) throw new Error(`compare: no task named ${ra ? b : a}`);
    return ra.map((v, i) => v / rb[i]!);
  };
  return { results, ratios, ratio: (a, b) => median(ratios(a, b)) };
}

/** Runs `fn` for about `ms`, in growing batches; returns the last batch's time per call. */
async function warmFor(fn: Task, async: boolean, ms: number): Promise<number> {
  const until = performance.now() + ms;
  let batch = 1;
  let perCall = Number.POSITIVE_INFINITY;
  do {
    const took = await runBatch(fn, batch, async);
    perCall = took / batch;
    if (took < 10) batch *= 2;
  } while (performance.now() < until);
  return Math.max(perCall, 1e-6);
}
