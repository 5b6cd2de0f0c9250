/**
 * What a checkpoint store is, and how instants of the event log compare:
 * shared by src/poller, the Redis and PostgreSQL stores in src/stores, and
 * the CLI.
 */

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

export function compareParsed(x: Instant, y: Instant): number {
  if (x.ms !== y.ms) return x.ms < y.ms ? -1 : 1;
  // Fraction digits aligned from the left compare as text.
  return x.sub === y.sub ? 0 : x.sub < y.sub ? -1 : 1;
}
