/**
 * The mock's time. Nothing in the mock reads the real clock after creation,
 * so tests can cross the 15 min / 1 h / 3600 s limits exactly, and later
 * slices (deliveries, retention) hang their work on `schedule()`.
 */

export interface MockClock {
  /**
   * How the clock moves. `"manual"`, the only mode today: it stands still
   * until `advance()` or `set()` moves it, so waiting for real never lets a
   * time limit pass; messages that say "retry after N s" say so.
   */
  readonly mode: MockClockMode;
  /** The current mock time (a fresh Date each call). */
  now(): Date;
  /**
   * Moves time forward by milliseconds or by a string such as "500ms", "90s",
   * "15m", "2h" or "31d", running every scheduled task that falls due on the
   * way, in time order. Returns the new time.
   */
  advance(by: number | string): Date;
  /** Jumps to a time (forward or back); moving forward runs what fell due. */
  set(date: Date | string | number): void;
  /**
   * Runs `task` once the clock reaches `atMs` (epoch milliseconds). Tasks run
   * only inside `advance()`/`set()`, never synchronously here, so a task due
   * now or earlier runs on the next `advance()` (even `advance(0)`).
   */
  schedule(atMs: number, task: () => void): void;
}

/** See `MockClock.mode`. */
export type MockClockMode = "manual";

/**
 * The end of a 429's message: how to let `seconds` pass on `clock`. On a
 * manual clock, waiting does nothing; the message says how to move it.
 */
export function retryAfterHint(clock: MockClock, seconds: number): string {
  return clock.mode === "manual"
    ? `retry after ${seconds} s of the mock's clock, which is manual (it stands still until advanced): advance it with mock.clock.advance("${seconds}s") or POST /__mock/clock/advance`
    : `retry in ${seconds} s`;
}

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

const DURATION_HINT =
  'a number of milliseconds, or a string like "500ms", "90s", "15m", "2h" or "31d"';

/** Milliseconds in a duration given as a number of ms or a string like "15m". */
export function parseDuration(by: number | string): number {
  if (typeof by === "number") {
    if (!Number.isFinite(by) || by < 0) {
      throw new RangeError(`Invalid duration ${by}: expected ${DURATION_HINT}, not negative.`);
    }
    return by;
  }
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/.exec(String(by));
  const amount = match?.[1];
  const unit = match?.[2];
  if (amount === undefined || unit === undefined) {
    throw new RangeError(`Invalid duration ${JSON.stringify(by)}: expected ${DURATION_HINT}.`);
  }
  return Math.round(Number(amount) * (UNIT_MS[unit] ?? 1));
}

/** Epoch milliseconds of a Date, an ISO string or a number; throws on an invalid date. */
export function toEpochMs(date: Date | string | number): number {
  const ms =
    date instanceof Date ? date.getTime() : typeof date === "number" ? date : Date.parse(date);
  if (!Number.isFinite(ms)) {
    throw new RangeError(
      `Invalid date ${JSON.stringify(String(date))}: expected a Date, an ISO 8601 string or epoch milliseconds.`,
    );
  }
  return ms;
}

/** What `mock.snapshot()` keeps of a clock: its time and its queue of scheduled tasks. */
export interface MockClockState {
  readonly currentMs: number;
  readonly queue: readonly { atMs: number; task: () => void }[];
}

/** A clock whose state `mock.snapshot()` / `mock.restore()` save and bring back (not public). */
export interface RestorableMockClock extends MockClock {
  saveState(): MockClockState;
  restoreState(state: MockClockState): void;
}

export function createMockClock(initial: Date | string | number): RestorableMockClock {
  let currentMs = toEpochMs(initial);
  const queue: { atMs: number; task: () => void }[] = [];
  let running = false;

  // Tasks see the clock at their own due time, so a delivery scheduled for
  // "in 5 minutes" stamps itself with that time even when the test advanced by an hour.
  function runDue(targetMs: number): void {
    const errors: unknown[] = [];
    running = true;
    try {
      for (let next = queue[0]; next !== undefined && next.atMs <= targetMs; next = queue[0]) {
        queue.shift();
        currentMs = Math.max(currentMs, next.atMs);
        try {
          next.task();
        } catch (error) {
          errors.push(error);
        }
      }
    } finally {
      running = false;
    }
    currentMs = targetMs;
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, "Several scheduled mock tasks failed.");
  }

  function moveTo(targetMs: number): void {
    if (running) {
      throw new Error("The mock clock cannot be moved from inside a scheduled task.");
    }
    if (targetMs < currentMs) {
      currentMs = targetMs;
      return;
    }
    runDue(targetMs);
  }

  return {
    mode: "manual",
    now: () => new Date(currentMs),
    advance(by) {
      moveTo(currentMs + parseDuration(by));
      return new Date(currentMs);
    },
    set(date) {
      moveTo(toEpochMs(date));
    },
    schedule(atMs, task) {
      if (!Number.isFinite(atMs)) {
        throw new RangeError("A scheduled mock task needs a finite time in epoch milliseconds.");
      }
      const entry = { atMs, task };
      // Stable insertion keeps tasks due at the same instant in scheduling order.
      const index = queue.findIndex((t) => t.atMs > atMs);
      queue.splice(index === -1 ? queue.length : index, 0, entry);
    },
    saveState: () => ({ currentMs, queue: queue.map((entry) => ({ ...entry })) }),
    restoreState(state) {
      currentMs = state.currentMs;
      queue.splice(0, queue.length, ...state.queue.map((entry) => ({ ...entry })));
    },
  };
}
