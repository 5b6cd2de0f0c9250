/**
 * Where the event-log catch-up poller stands: the `created_at` of the last
 * event it processed, and the ids of every processed event sharing exactly
 * that `created_at`. The ids make equal timestamps safe: the next run lists
 * from just before `created_at` and skips those ids, so an event at the same
 * instant that was not processed yet (for example one on the next page when
 * the previous run stopped) is neither lost nor processed twice.
 */
import {
  type Checkpoint,
  compareParsed,
  type Instant,
  instantOf,
} from "../shared/checkpoint-store.js";
import { MedRecordsError } from "../shared/errors.js";
import { WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS } from "../shared/tolerance.js";
import { quote } from "../stores/parse-checkpoint.js";

/**
 * Checks that a loaded checkpoint is not further ahead of the service's time
 * than the webhook timestamp tolerance. A checkpoint in the future (a clock
 * that was wrong when it was written, a hand-edited file) would make every
 * run skip every event until then, silently.
 *
 * Judged by the service's clock, as its events carry the service's time:
 * `serviceTimeMs` is the `Date` header of the list response the poller just
 * received (`EventLogPage.serverTimeMs`). Only when the service sent none is
 * this machine's clock the judge. A mock whose clock was advanced by days is
 * then followed like the real service.
 */
export function assertCheckpointPossible(
  checkpoint: Checkpoint,
  where: string,
  serviceTimeMs: number | undefined,
): void {
  // The Date header has whole seconds: its second's end is still "now".
  const nowMs = serviceTimeMs === undefined ? Date.now() : serviceTimeMs + 999;
  const aheadMs = instantOf(checkpoint.created_at).ms - nowMs;
  if (aheadMs <= WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS * 1000) return;
  const judge =
    serviceTimeMs === undefined
      ? `this machine's clock (${new Date(nowMs).toISOString()}; the service's response carried no Date header)`
      : `the service's clock (${new Date(serviceTimeMs).toISOString()}, the Date header of its response)`;
  const advice =
    serviceTimeMs === undefined
      ? "Check this machine's clock; if it is right, replace"
      : "If the service's clock was set back (a mock restarted, `mock.clock.set()` to an earlier time), or the checkpoint belongs to another service, replace";
  throw new MedRecordsError(
    `${where} has created_at ${quote(checkpoint.created_at)}, more than ${WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS} s ahead of ${judge}: no event can be that new, and every event until then would be skipped. ${advice} created_at with that of the last event you processed, or remove the checkpoint to start again from the oldest event the log holds.`,
  );
}

/** A UTC date-time with a fixed layout: of two such strings of equal length, the earlier sorts first. */
const PLAIN_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z$/;

/**
 * The checkpoint a run works with: advanced per event in memory, saved as a
 * snapshot. Many ids at one instant live in a Set, so they cost nothing per
 * event either.
 */
export class CheckpointCursor {
  #createdAt: string | null;
  /** `#createdAt` parsed, once. */
  #instant: Instant | undefined;
  /** Whether `#createdAt` has the service's plain UTC layout (PLAIN_UTC), tested once. */
  #plain = false;
  /**
   * The ids processed at `#createdAt`: `#only` while there is one (a log of
   * distinct times never needs more), a Set from the second on or when loaded
   * with ids. Advancing to a new time is then two assignments per event, not
   * a Set cleared and filled.
   */
  #ids: Set<string> | undefined;
  #only: string | undefined;
  /** The last event time parsed: `covers` and then `advance` see the same event. */
  #lastIso: string | undefined;
  #lastInstant: Instant | undefined;
  /** The last event time tested against PLAIN_UTC, and the answer. */
  #testedIso: string | undefined;
  #testedPlain = false;

  constructor(start: Checkpoint | null) {
    this.#createdAt = start?.created_at ?? null;
    this.#plain = this.#createdAt !== null && PLAIN_UTC.test(this.#createdAt);
    const ids = start?.ids_at_created_at ?? [];
    this.#ids = ids.length > 0 ? new Set(ids) : undefined;
  }

  /** Whether `event` is at or before the checkpoint and was processed (or lies in a reported gap). */
  covers(event: { id: string; created_at: string }): boolean {
    if (this.#createdAt === null) return false;
    const order = this.#compare(event.created_at, this.#createdAt);
    return order < 0 || (order === 0 && this.#has(event.id));
  }

  /** Records `event` as processed; events must come oldest first. */
  advance(event: { id: string; created_at: string }): void {
    if (this.#createdAt !== null && this.#compare(event.created_at, this.#createdAt) === 0) {
      this.#add(event.id);
      return;
    }
    this.#createdAt = event.created_at;
    this.#instant = this.#lastIso === event.created_at ? this.#lastInstant : undefined;
    this.#plain = this.#isPlain(event.created_at);
    this.#ids = undefined;
    this.#only = event.id;
  }

  #has(id: string): boolean {
    return this.#ids === undefined ? this.#only === id : this.#ids.has(id);
  }

  #add(id: string): void {
    if (this.#ids === undefined) {
      this.#ids = new Set(this.#only === undefined ? [] : [this.#only]);
      this.#only = undefined;
    }
    this.#ids.add(id);
  }

  /** Moves to an instant with nothing processed at it yet (after a gap). */
  reset(createdAt: string): void {
    this.#createdAt = createdAt;
    this.#instant = undefined;
    this.#plain = PLAIN_UTC.test(createdAt);
    this.#ids = undefined;
    this.#only = undefined;
  }

  /** `compareInstants(iso, createdAt)`, parsing each time string once rather than on every call. */
  #compare(iso: string, createdAt: string): number {
    if (iso === createdAt) return 0;
    // The service writes every created_at alike (UTC, `Z`, the same digits):
    // two such strings of one length order as text, with nothing to parse.
    if (this.#plain && iso.length === createdAt.length && this.#isPlain(iso)) {
      return iso < createdAt ? -1 : 1;
    }
    if (this.#lastIso !== iso) {
      this.#lastIso = iso;
      this.#lastInstant = instantOf(iso);
    }
    this.#instant ??= instantOf(createdAt);
    return compareParsed(this.#lastInstant as Instant, this.#instant);
  }

  /** PLAIN_UTC.test(iso), once per event time (`covers` then `advance` ask about the same one). */
  #isPlain(iso: string): boolean {
    if (this.#testedIso !== iso) {
      this.#testedIso = iso;
      this.#testedPlain = PLAIN_UTC.test(iso);
    }
    return this.#testedPlain;
  }

  snapshot(): Checkpoint | null {
    return this.#createdAt === null
      ? null
      : {
          created_at: this.#createdAt,
          ids_at_created_at:
            this.#ids !== undefined ? [...this.#ids] : this.#only !== undefined ? [this.#only] : [],
        };
  }
}
