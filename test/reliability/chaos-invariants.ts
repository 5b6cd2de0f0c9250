/** The invariants chaos.test.ts checks over what it observed: pure functions over plain records. */
import { type Checkpoint, compareInstants } from "../../src/shared/checkpoint-store.js";

/**
 * Whether `next` lies before `previous`: an earlier instant, or the same
 * instant holding fewer of the ids processed there (a save that forgot events).
 */
export function movesBackwards(previous: Checkpoint, next: Checkpoint): boolean {
  const order = compareInstants(next.created_at, previous.created_at);
  if (order !== 0) return order < 0;
  const ids = new Set(next.ids_at_created_at);
  return previous.ids_at_created_at.some((id) => !ids.has(id));
}

/** A stretch of time (ms, wall clock) during which one process was busy. */
export interface Span {
  pid: number;
  start: number;
  end: number;
  /** What it was busy with, for the failure message. */
  what: string;
}

/** Every pair of spans of two different processes that overlap in time (touching ends do not). */
export function overlapsAcrossProcesses(spans: readonly Span[]): [Span, Span][] {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  const found: [Span, Span][] = [];
  // Spans still open at the current start, at most a few.
  let open: Span[] = [];
  for (const span of sorted) {
    open = open.filter((o) => o.end > span.start);
    for (const other of open) if (other.pid !== span.pid) found.push([other, span]);
    open.push(span);
  }
  return found;
}
