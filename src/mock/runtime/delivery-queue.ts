/**
 * The webhook delivery attempts waiting for their time (DESIGN 12.1,
 * "Advancing runs the window in order"). The clock runs the state changes
 * of a window at once; the attempts those changes (and failed attempts)
 * schedule wait here, and are made one after another in time order, each
 * awaited before the next, once the clock has reached their time. So a
 * receiver sees the deliveries of a jump of hours in the order a real
 * service would have sent them, and a retry scheduled by a failure inside
 * the window is made inside it too.
 */
import type { MockClock } from "./clock.js";
import type { FailedDeliveryAttempt } from "./delivery-runtime.js";

/** One attempt to make at `atMs` of the service's clock; `order` keeps equal times first-in, first-out. */
interface QueuedAttempt {
  readonly atMs: number;
  readonly order: number;
  readonly make: () => Promise<void>;
}

const before = (a: QueuedAttempt, b: QueuedAttempt): boolean =>
  a.atMs < b.atMs || (a.atMs === b.atMs && a.order < b.order);

/** A binary min-heap by time, then order: a window of thousands of attempts stays cheap. */
class AttemptHeap {
  readonly #items: QueuedAttempt[] = [];

  peek(): QueuedAttempt | undefined {
    return this.#items[0];
  }

  push(item: QueuedAttempt): void {
    const items = this.#items;
    let i = items.push(item) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(item, items[parent] as QueuedAttempt)) break;
      items[i] = items[parent] as QueuedAttempt;
      i = parent;
    }
    items[i] = item;
  }

  pop(): QueuedAttempt | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= items.length) break;
      const right = left + 1;
      const child =
        right < items.length && before(items[right] as QueuedAttempt, items[left] as QueuedAttempt)
          ? right
          : left;
      if (!before(items[child] as QueuedAttempt, last)) break;
      items[i] = items[child] as QueuedAttempt;
      i = child;
    }
    items[i] = last;
    return top;
  }
}

/** What the attempts made during one window came to. */
export interface WindowTally {
  attempted: number;
  succeeded: number;
  failed: FailedDeliveryAttempt[];
}

/** The most failures a window's result keeps, the newest (as `flush()` does). */
const WINDOW_FAILURES_KEPT = 1000;

export class DeliveryQueue {
  readonly #clock: Pick<MockClock, "now" | "schedule">;
  readonly #track: (work: Promise<void>) => void;
  readonly #waiting = new AttemptHeap();
  #enqueued = 0;
  readonly #windows = new Set<WindowTally>();
  readonly #release: () => void;
  #draining: Promise<void> | undefined;

  /**
   * `track` registers the drain with `deliveries.flush()`; `release` sends
   * what `mock.faults` reordering holds back (a window ends with none held).
   */
  constructor(
    clock: Pick<MockClock, "now" | "schedule">,
    track: (work: Promise<void>) => void,
    release: () => void,
  ) {
    this.#clock = clock;
    this.#track = track;
    this.#release = release;
  }

  /**
   * Makes `make` at `atMs`: in turn now if that time has come, otherwise once
   * the clock reaches it (a manual clock's advance, a real clock's timer).
   */
  enqueue(atMs: number, make: () => Promise<void>): void {
    // Stable: attempts due at the same instant go in the order they were scheduled.
    this.#waiting.push({ atMs, order: this.#enqueued++, make });
    if (atMs > this.#clock.now().getTime()) this.#clock.schedule(atMs, () => this.kick());
    else this.kick();
  }

  /** Starts making the attempts now due, unless that is under way. */
  kick(): void {
    if (this.#draining !== undefined) return;
    const drain = this.#drain().finally(() => {
      this.#draining = undefined;
      // Enqueued between the drain's last look and now: it would wait for the next kick.
      const next = this.#waiting.peek();
      if (next !== undefined && next.atMs <= this.#clock.now().getTime()) this.kick();
    });
    this.#draining = drain;
    this.#track(drain);
  }

  /**
   * Makes every attempt due by the clock's time, including those they
   * schedule meanwhile, and resolves to what the attempts made meanwhile came to.
   */
  async runWindow(): Promise<WindowTally> {
    const tally: WindowTally = { attempted: 0, succeeded: 0, failed: [] };
    this.#windows.add(tally);
    try {
      this.kick();
      while (this.#draining !== undefined) {
        await this.#draining;
        this.#release();
      }
    } finally {
      this.#windows.delete(tally);
    }
    return tally;
  }

  /** Counts one finished attempt in every window open. */
  count(failure: FailedDeliveryAttempt | undefined): void {
    for (const tally of this.#windows) {
      tally.attempted += 1;
      if (failure === undefined) {
        tally.succeeded += 1;
      } else {
        if (tally.failed.length >= WINDOW_FAILURES_KEPT) tally.failed.shift();
        tally.failed.push(failure);
      }
    }
  }

  async #drain(): Promise<void> {
    // Never inside the caller's turn: the clock's move (and the state changes
    // it runs) finish before the first attempt of the window is made.
    await Promise.resolve();
    for (;;) {
      const next = this.#waiting.peek();
      if (next === undefined || next.atMs > this.#clock.now().getTime()) return;
      this.#waiting.pop();
      try {
        await next.make();
      } catch (error) {
        // An attempt never throws (a failure is an outcome): this is a bug, and the queue goes on.
        console.error("medrecords mock: a delivery attempt failed:", error);
      }
    }
  }
}
