/**
 * The mock's time, in one of two modes (docs/reference-server.md, "The clock").
 * `"manual"` (createMockService's default): nothing reads the real clock after
 * creation, so tests cross the spec's time limits (UPLOAD_URL_TTL_MINUTES, UPLOAD_ID_TTL_MS,
 * DOWNLOAD_URL_TTL_SECONDS) exactly.
 * `"real"` (`medrecords mock`'s default): the clock follows real time, `speed`
 * times faster, and what falls due runs by itself on a timer, so a developer's
 * "retry in 10 s" clears without anyone advancing it. Both hang deliveries,
 * expiries and retention on `schedule()`, and both take `advance()` as an offset.
 */
import { DURATION_EXAMPLES, parseDurationText } from "../internal/duration.js";

/**
 * The service's time (`mock.clock`): manual, moved only by `advance()` and
 * `set()`, or following real time at a speed; see the module notes above.
 */
export interface MockClock {
  /**
   * How the clock moves. `"manual"`: it stands still until `advance()` or
   * `set()` moves it, so waiting for real never lets a time limit pass;
   * messages that say "retry after N s" say so. `"real"`: it follows real
   * time (times `speed`) and runs scheduled tasks when they fall due, on its
   * own; `advance()` and `set()` still jump it.
   */
  readonly mode: MockClockMode;
  /** The current mock time (a fresh Date each call). */
  now(): Date;
  /**
   * Moves time forward by milliseconds or by a string such as "500ms", "90s",
   * "15m", "2h" or "31d", running every scheduled task that falls due on the
   * way, in time order. Returns the new time.
   * @throws {RangeError} for a bad duration, or one that would take the clock
   *   past 9999-12-31T23:59:59.999Z; the clock does not move then.
   */
  advance(by: number | string): Date;
  /**
   * Jumps to a time (forward or back); moving forward runs what fell due.
   * @throws {RangeError} for an invalid date or one outside the years 0000
   *   to 9999; the clock does not move then.
   */
  set(date: Date | string | number): void;
  /**
   * Runs `task` once the clock reaches `atMs` (epoch milliseconds). Never
   * synchronously here: on a manual clock, tasks run only inside
   * `advance()`/`set()`, so a task due now or earlier runs on the next
   * `advance()` (even `advance(0)`); on a real clock, also on a timer when
   * their time comes.
   */
  schedule(atMs: number, task: () => void): void;
}

/** See `MockClock.mode`. */
export type MockClockMode = "manual" | "real";

/** How a clock moves: `createMockClock(initial, options)`. */
export interface MockClockOptions {
  /** @default "manual" */
  mode?: MockClockMode;
  /**
   * On a real clock, mock milliseconds per real millisecond: 60 makes a
   * minute of mock time pass each real second. Ignored on a manual clock.
   * @default 1
   */
  speed?: number;
}

const stoppers = new WeakMap<MockClock, () => void>();

/** Ends a real clock's timer (a closed server runs nothing more); a manual clock has none. */
export function stopMockClock(clock: MockClock): void {
  stoppers.get(clock)?.();
}

/**
 * The end of a 429's message: how to let `seconds` pass on `clock`. On a
 * manual clock, waiting does nothing; the message says how to move it.
 */
export function retryAfterHint(clock: MockClock, seconds: number): string {
  return clock.mode === "manual"
    ? `retry after ${seconds} s of the mock's clock, which is manual (it stands still until advanced): advance it with mock.clock.advance("${seconds}s") or POST /__mock/clock/advance`
    : `retry in ${seconds} s of the mock's clock`;
}

const DURATION_HINT = `a number of milliseconds, or a string like ${DURATION_EXAMPLES}`;

/** Milliseconds in a duration given as a number of ms or a string like "15m". */
export function parseDuration(by: number | string): number {
  if (typeof by === "number") {
    if (!Number.isFinite(by) || by < 0) {
      throw new RangeError(`Invalid duration ${by}: expected ${DURATION_HINT}, not negative.`);
    }
    return by;
  }
  const ms = parseDurationText(String(by));
  if (ms === undefined) {
    throw new RangeError(`Invalid duration ${JSON.stringify(by)}: expected ${DURATION_HINT}.`);
  }
  return ms;
}

/**
 * The times the mock clock can show: years 0000 to 9999, the ones an RFC 3339
 * date-time (every timestamp of the API) can write. Past them `toISOString()`
 * writes a six-digit year, or throws past the `Date` range.
 */
export const MOCK_CLOCK_MIN_MS = Date.parse("0000-01-01T00:00:00.000Z");
export const MOCK_CLOCK_MAX_MS = Date.parse("9999-12-31T23:59:59.999Z");

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

/** `ms` when the clock can show it; a RangeError naming the bounds otherwise (nothing moved). */
function withinClockRange(ms: number, what: string): number {
  if (!(ms >= MOCK_CLOCK_MIN_MS && ms <= MOCK_CLOCK_MAX_MS)) {
    throw new RangeError(
      `${what} would put the mock clock outside the years 0000 to 9999 (${new Date(MOCK_CLOCK_MIN_MS).toISOString()} to ${new Date(MOCK_CLOCK_MAX_MS).toISOString()}), which the API's timestamps cannot write; the clock was not moved.`,
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

/** The longest delay setTimeout takes (about 24.8 days); a later task re-arms on waking. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export function createMockClock(
  initial: Date | string | number,
  options: MockClockOptions = {},
): RestorableMockClock {
  const mode = options.mode ?? "manual";
  if (mode !== "manual" && mode !== "real") {
    throw new TypeError('The mock clock\'s mode must be "manual" or "real".');
  }
  const speed = options.speed ?? 1;
  if (!Number.isFinite(speed) || speed <= 0) {
    throw new RangeError(`The mock clock's speed must be a positive number, not ${speed}.`);
  }
  // The time is anchorMs at real instant anchorRealMs; a manual clock never moves from its anchor.
  let anchorMs = withinClockRange(toEpochMs(initial), "The initial time");
  let anchorRealMs = performance.now();
  const live = (): number =>
    mode === "manual" ? anchorMs : anchorMs + (performance.now() - anchorRealMs) * speed;
  const setLive = (ms: number): void => {
    anchorMs = ms;
    anchorRealMs = performance.now();
  };
  // While tasks run, the time each one sees (its due time, or later).
  let pinnedMs: number | undefined;
  const current = (): number => pinnedMs ?? live();
  const queue: { atMs: number; task: () => void }[] = [];
  let running = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  // Tasks see the clock at their own due time (never earlier than it was),
  // so a delivery scheduled for "in 5 minutes" stamps itself with that time
  // even when the test advanced by an hour.
  function runDue(targetMs: number): void {
    const errors: unknown[] = [];
    running = true;
    let seenMs = current();
    try {
      for (let next = queue[0]; next !== undefined && next.atMs <= targetMs; next = queue[0]) {
        queue.shift();
        seenMs = Math.max(seenMs, next.atMs);
        pinnedMs = seenMs;
        try {
          next.task();
        } catch (error) {
          errors.push(error);
        }
      }
    } finally {
      running = false;
      pinnedMs = undefined;
    }
    setLive(Math.max(targetMs, live()));
    arm();
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, "Several scheduled mock tasks failed.");
  }

  function moveTo(targetMs: number): void {
    if (running) {
      throw new Error("The mock clock cannot be moved from inside a scheduled task.");
    }
    if (targetMs < live()) {
      setLive(targetMs);
      arm();
      return;
    }
    runDue(targetMs);
  }

  // A real clock wakes when its first task falls due; nothing keeps the process alive for it.
  function arm(): void {
    if (mode === "manual" || stopped) return;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    const first = queue[0];
    if (first === undefined) return;
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, Math.ceil((first.atMs - live()) / speed)));
    timer = setTimeout(() => {
      timer = undefined;
      try {
        runDue(live());
      } catch (error) {
        // Nobody called: a failing task is reported, and the clock keeps going.
        console.error("medrecords mock: a scheduled task failed:", error);
      }
    }, delay);
    timer.unref?.();
  }

  const clock: RestorableMockClock = {
    mode,
    now: () => new Date(current()),
    advance(by) {
      // Checked before anything moves or runs: a refused advance leaves the clock as it was.
      moveTo(withinClockRange(current() + parseDuration(by), `Advancing by ${JSON.stringify(by)}`));
      return new Date(current());
    },
    set(date) {
      moveTo(withinClockRange(toEpochMs(date), `Setting ${JSON.stringify(String(date))}`));
    },
    schedule(atMs, task) {
      if (!Number.isFinite(atMs)) {
        throw new RangeError("A scheduled mock task needs a finite time in epoch milliseconds.");
      }
      const entry = { atMs, task };
      // Stable insertion keeps tasks due at the same instant in scheduling order.
      const index = queue.findIndex((t) => t.atMs > atMs);
      queue.splice(index === -1 ? queue.length : index, 0, entry);
      // A new first task moves the wake-up; inside a run, the run re-arms when it ends.
      if (!running && queue[0] === entry) arm();
    },
    saveState: () => ({ currentMs: current(), queue: queue.map((entry) => ({ ...entry })) }),
    restoreState(state) {
      if (running)
        throw new Error("The mock clock cannot be restored from inside a scheduled task.");
      setLive(state.currentMs);
      queue.splice(0, queue.length, ...state.queue.map((entry) => ({ ...entry })));
      arm();
    },
  };
  stoppers.set(clock, () => {
    stopped = true;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  });
  return clock;
}
