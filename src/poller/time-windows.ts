/**
 * The time windows of a catch-up walk (docs/spec-decisions.md, "Catch-up
 * poller"). The log lists newest first; a window `[after, before)` small
 * enough to come back as one page is that page reversed, oldest first, so the
 * poller walks the backlog forward window by window, in one pass, holding one
 * page.
 *
 * Each answer sizes the next window: a short page widens it towards a page
 * of events at the rate just seen, an empty one widens it quickly, a full
 * page (more events than fit) narrows it and is asked again. A full page also
 * tells where events are (its oldest one): windows then halve the distance
 * to it, so a quiet stretch of days before a burst (the first run without a
 * checkpoint, which starts at the retention horizon) costs a few requests, not
 * one per page width. Only a window of one millisecond cannot narrow: the
 * poller walks it whole (`next`, then `previous` back).
 *
 * Pure arithmetic on whole milliseconds; `after` stays the exact string it
 * was given (a checkpoint's own `created_at`, sub-millisecond digits and
 * all), because the service compares it, not us.
 */
import { instantOf } from "../shared/checkpoint-store.js";

/**
 * The share of a page a window aims to fill, adapted as the walk goes: up a
 * little after each page that fit, down a lot after a page that overflowed
 * when the rate was known. A steady rate ends near the top; a rate that
 * varies (each overflow costs a request) settles where overflows are rare.
 */
export const WINDOW_FILL = { start: 0.9, most: 0.98, least: 0.5, up: 0.01, down: 0.1 } as const;
/** How much a window may widen after one answer. */
export const WINDOW_GROWTH = 4;

/** One window to ask for: `created_after` (inclusive), `created_before` (exclusive; undefined: up to now). */
export interface TimeWindow {
  after: string;
  before: string | undefined;
}

export class TimeWindows {
  readonly #pageSize: number;
  /** The window's start as sent, and as whole milliseconds (rounded down). */
  #after: string;
  #afterMs: number;
  /** The width of the next window, in ms (>= 1). */
  #width: number;
  /** The time of an event known to lie ahead (the oldest of the last full page), while none was read since. */
  #hintMs: number | undefined;
  /** The end of the window last handed out; undefined when it was open-ended. */
  #beforeMs: number | undefined;
  /** The share of a page aimed at (WINDOW_FILL). */
  #fill: number = WINDOW_FILL.start;
  /** Whether the width came from a rate just read (a short page), rather than from a search. */
  #atRate = false;
  /** Whether the last window overflowed: the next one is bounded, whatever time it is. */
  #narrowed = false;

  /**
   * @param after where the walk starts (inclusive)
   * @param pageSize events per page
   * @param first the newest page from `after` (a full one: the backlog is longer), newest first
   */
  constructor(after: string, pageSize: number, first: { newestMs: number; oldestMs: number }) {
    this.#pageSize = pageSize;
    this.#after = after;
    // Rounded down: sub-millisecond digits are the service's to compare.
    this.#afterMs = instantOf(after).ms;
    this.#width = 1;
    this.#hintMs = undefined;
    this.#narrow(first.newestMs, first.oldestMs, Number.POSITIVE_INFINITY);
  }

  /**
   * The window to ask for next. Open-ended once it would reach past `nowMs`
   * (a time no event can be newer than): only an open window coming back
   * whole ends the walk, so a wrong guess of now costs requests, never events.
   * Never open-ended right after a window overflowed, nor while an event is
   * known to lie ahead (the search towards it stays bounded): events past a
   * wrong "now" (this machine's clock behind the service's) are then reached
   * window by window rather than asked for open-ended again and again.
   */
  next(nowMs: number): TimeWindow {
    const end = this.#afterMs + this.#width;
    const open = end > nowMs && !this.#narrowed && this.#hintMs === undefined;
    this.#beforeMs = open ? undefined : end;
    return {
      after: this.#after,
      before: this.#beforeMs === undefined ? undefined : new Date(this.#beforeMs).toISOString(),
    };
  }

  /** The window came back whole, `count` events. Returns false when it was open-ended: the walk is done. */
  complete(count: number): boolean {
    const end = this.#beforeMs;
    if (end === undefined) return false;
    this.#narrowed = false;
    this.#after = new Date(end).toISOString();
    this.#afterMs = end;
    if (this.#hintMs !== undefined && this.#hintMs < end) this.#hintMs = undefined;
    if (count > 0) {
      if (this.#atRate) this.#fill = Math.min(WINDOW_FILL.most, this.#fill + WINDOW_FILL.up);
      const target = this.#pageSize * this.#fill;
      this.#width = clampWidth(
        Math.floor((this.#width * target) / count),
        this.#width * WINDOW_GROWTH,
      );
      this.#atRate = true;
      return true;
    }
    this.#atRate = false;
    if (this.#hintMs !== undefined) {
      // Nothing here, something at the hint: halve the distance to it.
      this.#width = Math.max(1, Math.ceil((this.#hintMs + 1 - this.#afterMs) / 2));
    } else {
      this.#width *= WINDOW_GROWTH;
    }
    return true;
  }

  /**
   * The window came back full: more events than a page. Narrows it (the
   * same start, asked again) and returns true; false when it is one
   * millisecond already, to be walked whole.
   */
  full(newestMs: number, oldestMs: number): boolean {
    const end = this.#beforeMs ?? newestMs + 1;
    if (end - this.#afterMs <= 1) return false;
    if (this.#atRate) this.#fill = Math.max(WINDOW_FILL.least, this.#fill - WINDOW_FILL.down);
    this.#atRate = false;
    this.#narrowed = true;
    this.#narrow(newestMs, oldestMs, end - this.#afterMs);
    return true;
  }

  /**
   * After a full page whose events span `[oldestMs, newestMs]`: a page's
   * worth at that rate, narrower than `widthMs`, the window that overflowed
   * (the page held the newest events of it, so the rate is at most the
   * window's: each narrowing takes a tenth off at least).
   */
  #narrow(newestMs: number, oldestMs: number, widthMs: number): void {
    this.#hintMs = Math.max(oldestMs, this.#afterMs);
    const atRate = Math.floor((newestMs - oldestMs + 1) * this.#fill);
    this.#width = Math.max(1, Math.min(atRate, widthMs - 1));
  }
}

function clampWidth(width: number, most: number): number {
  return Math.max(1, Math.min(width, most));
}
