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
import { DURATION_EXAMPLES, parseDurationText } from "../../internal/duration.js";
import { withOwnMethods } from "../../internal/own-methods.js";
import type { FailedDeliveryAttempt } from "./delivery-runtime.js";

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
   * "15m", "2h" or "31d". At once (before it returns) the clock shows the new
   * time and every state change that fell due on the way has run, in time
   * order, so code that does not await it sees the clock moved. The promise
   * it returns resolves once every webhook delivery attempt that fell due in
   * the window (first attempts, and the retries failed attempts schedule
   * inside it) has been made, one after another in time order, each recorded
   * at its own instant of this clock and awaited (up to the 5 s delivery
   * timeout) before the next; it resolves to what those attempts came to.
   * @throws {RangeError} for a bad duration, or one that would take the clock
   *   past 9999-12-31T23:59:59.999Z; the clock does not move then.
   * @example const { failed } = await mock.clock.advance("13h"); expect(failed).toEqual([]);
   */
  advance(by: number | string): Promise<MockClockAdvanceResult>;
  /**
   * Jumps to a time (forward or back); moving forward runs what fell due, as
   * `advance()` does, and resolves the same way.
   * @throws {RangeError} for an invalid date or one outside the years 0000
   *   to 9999; the clock does not move then.
   */
  set(date: Date | string | number): Promise<MockClockAdvanceResult>;
  /**
   * Runs `task` once the clock reaches `atMs` (epoch milliseconds). Never
   * synchronously here: on a manual clock, tasks run only inside
   * `advance()`/`set()`, so a task due now or earlier runs on the next
   * `advance()` (even `advance(0)`); on a real clock, also on a timer when
   * their time comes.
   */
  schedule(atMs: number, task: () => void): void;
}

/**
 * What `await mock.clock.advance(by)` (and `set`) resolves to: the clock's
 * time once the window's deliveries were made, and what the delivery
 * attempts made in the window came to (the shapes of `deliveries.flush()`).
 */
export interface MockClockAdvanceResult {
  /** The clock's time when the last attempt of the window was made. */
  now: Date;
  /** Attempts made in the window, duplicates injected by `mock.faults` included. */
  attempted: number;
  /** Those answered 2xx. */
  succeeded: number;
  /** Each of the others, oldest first (never a body). */
  failed: FailedDeliveryAttempt[];
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

/** Ends a real clock's timer (a closed server runs nothing more); a manual clock has none. */
export function stopMockClock(clock: MockClock): void {
  if (clock instanceof ServiceClock) clock.stop();
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

/**
 * What the clock asks of the delivery engine after a move: make every
 * attempt now due, in time order, and say what they came to.
 */
export type WindowRunner = () => Promise<Omit<MockClockAdvanceResult, "now">>;

/** The longest delay setTimeout takes (about 24.8 days); a later task re-arms on waking. */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface ScheduledTask {
  atMs: number;
  task: () => void;
}

export function createMockClock(
  initial: Date | string | number,
  options: MockClockOptions = {},
): WindowedMockClock {
  return withOwnMethods(new ServiceClock(initial, options));
}

/** A clock whose window of deliveries a runner makes after each move (the service's). */
export interface WindowedMockClock extends RestorableMockClock {
  /** Sets who makes the deliveries of each window `advance()` and `set()` open. */
  runWindowsWith(runner: WindowRunner): void;
}

class ServiceClock implements WindowedMockClock {
  readonly mode: MockClockMode;
  readonly #speed: number;
  // The time is #anchorMs at real instant #anchorRealMs; a manual clock never moves from its anchor.
  #anchorMs: number;
  #anchorRealMs = performance.now();
  // While tasks run, the time each one sees (its due time, or later).
  #pinnedMs: number | undefined;
  readonly #queue: ScheduledTask[] = [];
  #running = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;
  #windows: WindowRunner | undefined;

  constructor(initial: Date | string | number, options: MockClockOptions) {
    const mode = options.mode ?? "manual";
    if (mode !== "manual" && mode !== "real") {
      throw new TypeError('The mock clock\'s mode must be "manual" or "real".');
    }
    const speed = options.speed ?? 1;
    if (!Number.isFinite(speed) || speed <= 0) {
      throw new RangeError(`The mock clock's speed must be a positive number, not ${speed}.`);
    }
    this.mode = mode;
    this.#speed = speed;
    this.#anchorMs = withinClockRange(toEpochMs(initial), "The initial time");
  }

  now(): Date {
    return new Date(this.#current());
  }

  advance(by: number | string): Promise<MockClockAdvanceResult> {
    // Checked before anything moves or runs: a refused advance leaves the clock as it was.
    const target = this.#current() + parseDuration(by);
    this.#moveTo(withinClockRange(target, `Advancing by ${JSON.stringify(by)}`));
    return this.#window();
  }

  set(date: Date | string | number): Promise<MockClockAdvanceResult> {
    this.#moveTo(withinClockRange(toEpochMs(date), `Setting ${JSON.stringify(String(date))}`));
    return this.#window();
  }

  schedule(atMs: number, task: () => void): void {
    if (!Number.isFinite(atMs)) {
      throw new RangeError("A scheduled mock task needs a finite time in epoch milliseconds.");
    }
    const entry = { atMs, task };
    // Stable insertion keeps tasks due at the same instant in scheduling order.
    const index = this.#queue.findIndex((t) => t.atMs > atMs);
    this.#queue.splice(index === -1 ? this.#queue.length : index, 0, entry);
    // A new first task moves the wake-up; inside a run, the run re-arms when it ends.
    if (!this.#running && this.#queue[0] === entry) this.#arm();
  }

  saveState(): MockClockState {
    return { currentMs: this.#current(), queue: this.#queue.map((entry) => ({ ...entry })) };
  }

  restoreState(state: MockClockState): void {
    if (this.#running) {
      throw new Error("The mock clock cannot be restored from inside a scheduled task.");
    }
    this.#setLive(state.currentMs);
    this.#queue.splice(0, this.#queue.length, ...state.queue.map((entry) => ({ ...entry })));
    this.#arm();
  }

  runWindowsWith(runner: WindowRunner): void {
    this.#windows = runner;
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  async #window(): Promise<MockClockAdvanceResult> {
    const made = (await this.#windows?.()) ?? { attempted: 0, succeeded: 0, failed: [] };
    return { now: this.now(), ...made };
  }

  #live(): number {
    return this.mode === "manual"
      ? this.#anchorMs
      : this.#anchorMs + (performance.now() - this.#anchorRealMs) * this.#speed;
  }

  #setLive(ms: number): void {
    this.#anchorMs = ms;
    this.#anchorRealMs = performance.now();
  }

  #current(): number {
    return this.#pinnedMs ?? this.#live();
  }

  #moveTo(targetMs: number): void {
    if (this.#running) {
      throw new Error("The mock clock cannot be moved from inside a scheduled task.");
    }
    if (targetMs < this.#live()) {
      this.#setLive(targetMs);
      this.#arm();
      return;
    }
    this.#runDue(targetMs);
  }

  // Tasks see the clock at their own due time (never earlier than it was),
  // so a state change due "in 5 minutes" stamps itself with that time even
  // when the test advanced by an hour.
  #runDue(targetMs: number): void {
    const errors: unknown[] = [];
    this.#running = true;
    let seenMs = this.#current();
    try {
      for (let next = this.#queue[0]; next !== undefined && next.atMs <= targetMs; ) {
        this.#queue.shift();
        seenMs = Math.max(seenMs, next.atMs);
        this.#pinnedMs = seenMs;
        try {
          next.task();
        } catch (error) {
          errors.push(error);
        }
        next = this.#queue[0];
      }
    } finally {
      this.#running = false;
      this.#pinnedMs = undefined;
    }
    this.#setLive(Math.max(targetMs, this.#live()));
    this.#arm();
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, "Several scheduled mock tasks failed.");
  }

  // A real clock wakes when its first task falls due; nothing keeps the process alive for it.
  #arm(): void {
    if (this.mode === "manual" || this.#stopped) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const first = this.#queue[0];
    if (first === undefined) return;
    const delay = Math.min(
      MAX_TIMER_MS,
      Math.max(0, Math.ceil((first.atMs - this.#live()) / this.#speed)),
    );
    this.#timer = setTimeout(() => this.#wake(), delay);
    this.#timer.unref?.();
  }

  #wake(): void {
    this.#timer = undefined;
    try {
      this.#runDue(this.#live());
    } catch (error) {
      // Nobody called: a failing task is reported, and the clock keeps going.
      console.error("medrecords mock: a scheduled task failed:", error);
    }
  }
}
