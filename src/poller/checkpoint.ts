/**
 * Where the event-log catch-up poller stands: the `created_at` of the last
 * event it processed, and the ids of every processed event sharing exactly
 * that `created_at`. The ids make equal timestamps safe: the next run lists
 * from just before `created_at` and skips those ids, so an event at the same
 * instant that was not processed yet (for example one on the next page when
 * the previous run stopped) is neither lost nor processed twice.
 */
import { MedRecordsError } from "../core/errors.js";
import { IsoDateTime } from "../schemas/common.js";
import { WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS } from "../webhooks/tolerance.js";

/** The position of the catch-up poller in the event log; plain JSON, for any store. */
export interface Checkpoint {
  /** `created_at` of the newest processed event, as the service sent it. */
  created_at: string;
  /** Ids of the processed events whose `created_at` is exactly `created_at`. */
  ids_at_created_at: string[];
}

/**
 * Persists a {@link Checkpoint}. The shipped stores (`memoryCheckpoint()`,
 * `fileCheckpoint(path)`, `postgresCheckpointStore`, `redisCheckpointStore`)
 * are also leases (`CheckpointLeaseStore`): several instances calling
 * `start()` on one of them take turns, one polling at a time, and a save by
 * an instance that lost the lease is refused, so the checkpoint never moves
 * backwards (docs/stores.md, "Running on several instances").
 *
 * A plain store of your own (these two methods) works as before, but gives
 * that up: run one poller on it at a time, or every poller processes every
 * event and a late save can move the checkpoint backwards.
 *
 * @example
 * // Postgres: CREATE TABLE checkpoints (name text PRIMARY KEY, value jsonb NOT NULL);
 * const pgCheckpoint: CheckpointStore = {
 *   async load() {
 *     const { rows } = await pool.query("SELECT value FROM checkpoints WHERE name = 'events'");
 *     return rows[0]?.value ?? null;
 *   },
 *   async save(checkpoint) {
 *     await pool.query(
 *       "INSERT INTO checkpoints (name, value) VALUES ('events', $1) ON CONFLICT (name) DO UPDATE SET value = $1",
 *       [checkpoint],
 *     );
 *   },
 * };
 */
export interface CheckpointStore {
  /**
   * How an error about the loaded checkpoint names this store, so that the
   * reader knows what to fix.
   * @default "The checkpoint loaded from the `checkpoint` store of events.catchUp"
   * @example "The checkpoint row 'events' of the table checkpoints"
   */
  readonly description?: string;
  /** The saved checkpoint, or null when none was ever saved (the poller then starts at the oldest event the log holds). */
  load(): Promise<Checkpoint | null>;
  /** Replaces the saved checkpoint; resolves once it is durable. */
  save(checkpoint: Checkpoint): Promise<void>;
}

/** Checks the shape of a loaded checkpoint; a corrupt one is an error, never a silent restart. */
export function parseCheckpoint(value: unknown, where: string): Checkpoint {
  const candidate = value as Partial<Checkpoint> | null;
  if (
    typeof candidate !== "object" ||
    candidate === null ||
    typeof candidate.created_at !== "string" ||
    Number.isNaN(instantOf(candidate.created_at).ms) ||
    !Array.isArray(candidate.ids_at_created_at) ||
    !candidate.ids_at_created_at.every((id) => typeof id === "string")
  ) {
    throw new MedRecordsError(
      `${where} is not a checkpoint: expected { "created_at": "<ISO date-time>", "ids_at_created_at": ["<event id>", ...] }.`,
    );
  }
  // Date.parse reads a date-time without a zone in this machine's zone: the
  // same checkpoint would name different instants on different machines.
  if (!IsoDateTime.safeParse(candidate.created_at).success) {
    throw new MedRecordsError(
      `${where} has created_at ${quote(candidate.created_at)}, which is not an RFC 3339 date-time with a time zone (Z or an offset such as +02:00), so the instant it names would depend on this machine's zone. Write the created_at of the last processed event as the service sent it (e.g. 2026-01-01T00:00:00Z), or remove the checkpoint to start again from the oldest event the log holds.`,
    );
  }
  return { created_at: candidate.created_at, ids_at_created_at: [...candidate.ids_at_created_at] };
}

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

/** A value for an error message: quoted, and cut short if a corrupt store holds something long. */
function quote(text: string): string {
  return JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}…` : text);
}

/** An ISO date-time as whole epoch milliseconds plus the digits below a millisecond, trailing zeros dropped. */
export interface Instant {
  ms: number;
  sub: string;
}

/** `iso` as an instant, for stores that compare instants themselves. */
export function instantOf(iso: string): Instant {
  const fraction = /\.(\d+)/.exec(iso)?.[1] ?? "";
  const text = fraction === "" ? iso : iso.replace(/\.\d+/, `.${fraction.slice(0, 3)}`);
  return { ms: Date.parse(text), sub: fraction.slice(3).replace(/0+$/, "") };
}

/**
 * Orders two ISO date-times by the instant they name, whatever their offset
 * and to any precision: negative when `a` is earlier.
 */
export function compareInstants(a: string, b: string): number {
  return compareParsed(instantOf(a), instantOf(b));
}

function compareParsed(x: Instant, y: Instant): number {
  if (x.ms !== y.ms) return x.ms < y.ms ? -1 : 1;
  // Fraction digits aligned from the left compare as text.
  return x.sub === y.sub ? 0 : x.sub < y.sub ? -1 : 1;
}

/** A UTC date-time with a fixed layout: of two such strings of equal length, the earlier sorts first. */
const PLAIN_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z$/;

/**
 * The checkpoint a run works with: advanced per event in memory, saved as a
 * snapshot. The ids live in a Set, so many events at one instant cost
 * nothing per event.
 */
export class CheckpointCursor {
  #createdAt: string | null;
  /** `#createdAt` parsed, once. */
  #instant: Instant | undefined;
  /** Whether `#createdAt` has the service's plain UTC layout (PLAIN_UTC), tested once. */
  #plain = false;
  #ids: Set<string>;
  /** The last event time parsed: `covers` and then `advance` see the same event. */
  #lastIso: string | undefined;
  #lastInstant: Instant | undefined;
  /** The last event time tested against PLAIN_UTC, and the answer. */
  #testedIso: string | undefined;
  #testedPlain = false;

  constructor(start: Checkpoint | null) {
    this.#createdAt = start?.created_at ?? null;
    this.#plain = this.#createdAt !== null && PLAIN_UTC.test(this.#createdAt);
    this.#ids = new Set(start?.ids_at_created_at ?? []);
  }

  /** Whether `event` is at or before the checkpoint and was processed (or lies in a reported gap). */
  covers(event: { id: string; created_at: string }): boolean {
    if (this.#createdAt === null) return false;
    const order = this.#compare(event.created_at, this.#createdAt);
    return order < 0 || (order === 0 && this.#ids.has(event.id));
  }

  /** Records `event` as processed; events must come oldest first. */
  advance(event: { id: string; created_at: string }): void {
    if (this.#createdAt !== null && this.#compare(event.created_at, this.#createdAt) === 0) {
      this.#ids.add(event.id);
      return;
    }
    this.#createdAt = event.created_at;
    this.#instant = this.#lastIso === event.created_at ? this.#lastInstant : undefined;
    this.#plain = this.#isPlain(event.created_at);
    // Reused rather than replaced once per event: `snapshot` copies it.
    this.#ids.clear();
    this.#ids.add(event.id);
  }

  /** Moves to an instant with nothing processed at it yet (after a gap). */
  reset(createdAt: string): void {
    this.#createdAt = createdAt;
    this.#instant = undefined;
    this.#plain = PLAIN_UTC.test(createdAt);
    this.#ids = new Set();
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
      : { created_at: this.#createdAt, ids_at_created_at: [...this.#ids] };
  }
}
