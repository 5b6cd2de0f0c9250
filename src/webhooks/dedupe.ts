/**
 * Remembers which event ids were already processed, so that a delivery that
 * arrives twice (spec, Delivery rule 7) is processed once.
 *
 * The in-memory store serves one process. Across instances, or to share with
 * the event-log catch-up poller, implement the same two methods on a shared
 * store:
 *
 * @example
 * // Redis: SET NX EX is an atomic claim.
 * const redisDedupe: DedupeStore = {
 *   async claim(id, ttlSeconds) {
 *     return (await redis.set(`webhook:${id}`, "1", { NX: true, EX: ttlSeconds })) === "OK";
 *   },
 *   async release(id) {
 *     await redis.del(`webhook:${id}`);
 *   },
 * };
 *
 * @example
 * // Postgres: the primary key makes the insert the claim.
 * // CREATE TABLE processed_events (id text PRIMARY KEY, expires_at timestamptz NOT NULL);
 * const pgDedupe: DedupeStore = {
 *   async claim(id, ttlSeconds) {
 *     const { rowCount } = await pool.query(
 *       "INSERT INTO processed_events (id, expires_at) VALUES ($1, now() + make_interval(secs => $2)) ON CONFLICT (id) DO NOTHING",
 *       [id, ttlSeconds],
 *     );
 *     return rowCount === 1;
 *   },
 *   async release(id) {
 *     await pool.query("DELETE FROM processed_events WHERE id = $1", [id]);
 *   },
 * };
 * // Purge rows past expires_at now and then; a claim then succeeds again.
 */
export interface DedupeStore {
  /**
   * Atomically records `id` for `ttlSeconds`. Resolves true when this call
   * recorded it (process the event), false when it was already recorded
   * (a duplicate: acknowledge without processing).
   */
  claim(id: string, ttlSeconds: number): Promise<boolean>;
  /**
   * Forgets a claim whose processing failed, so that the service's retry of
   * the event is processed instead of being taken for a duplicate. A store
   * without it leaves a failed event claimed until its TTL runs out.
   */
  release?(id: string): Promise<void>;
}

/**
 * How long a processed id is remembered by default, in seconds: 7 days,
 * well past the service's retries of an event (about 2.6 hours).
 */
export const DEFAULT_DEDUPE_TTL_SECONDS = 7 * 24 * 60 * 60;

/** Options of `memoryDedupeStore(options)`. */
export interface MemoryDedupeStoreOptions {
  /**
   * Most ids kept; past it the least recently seen is forgotten first. Each
   * costs roughly the id's length plus 100 bytes.
   * @default 10_000
   */
  max?: number;
  /**
   * Longest time an id is kept, in seconds, whatever TTL a claim asks for.
   * The service retries an event for about 2.6 hours; a redelivery or the
   * catch-up poller can bring it back later.
   * @default 604_800 (7 days)
   */
  ttlSeconds?: number;
  /**
   * Clock in epoch milliseconds; for tests.
   * @default Date.now
   * @example () => clock.now()
   */
  now?: () => number;
}

/**
 * A per-process {@link DedupeStore}: least recently used eviction bounded by
 * `max`, plus expiry after the TTL. Ids are lost on restart, and each
 * instance of a scaled-out receiver has its own: use a shared store there.
 */
export function memoryDedupeStore(options: MemoryDedupeStoreOptions = {}): DedupeStore {
  const max = options.max ?? 10_000;
  const maxTtlSeconds = options.ttlSeconds ?? DEFAULT_DEDUPE_TTL_SECONDS;
  const now = options.now ?? Date.now;
  if (!Number.isInteger(max) || max < 1) {
    throw new TypeError("memoryDedupeStore: `max` must be an integer >= 1");
  }
  if (!(maxTtlSeconds > 0)) {
    throw new TypeError("memoryDedupeStore: `ttlSeconds` must be a number > 0");
  }

  // Map iteration order is insertion order; re-inserting on access turns it
  // into least-recently-used order, so the first key is the one to evict.
  const expiresAt = new Map<string, number>();

  const sweepFront = (at: number) => {
    for (const [id, expiry] of expiresAt) {
      if (expiry > at) break;
      expiresAt.delete(id);
    }
  };

  return {
    async claim(id, ttlSeconds) {
      const at = now();
      const expiry = expiresAt.get(id);
      expiresAt.delete(id);
      if (expiry !== undefined && expiry > at) {
        expiresAt.set(id, expiry);
        return false;
      }
      const ttl = Math.min(ttlSeconds > 0 ? ttlSeconds : maxTtlSeconds, maxTtlSeconds);
      expiresAt.set(id, at + ttl * 1000);
      sweepFront(at);
      while (expiresAt.size > max) {
        const oldest = expiresAt.keys().next().value;
        if (oldest === undefined) break;
        expiresAt.delete(oldest);
      }
      return true;
    },
    async release(id) {
      expiresAt.delete(id);
    },
  };
}
