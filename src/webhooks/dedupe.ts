/** What `claim` found. */
export type DedupeClaim =
  | {
      /** This caller holds the in-progress lease: process, then `complete` or `release` with `token`. */
      state: "claimed";
      /** Identifies this lease to `complete` and `release`, so that a lease that lapsed and was taken by another is never released by its old holder. */
      token: string;
    }
  | {
      /** Another caller holds a live lease: the webhook handler answers 409, the poller's run stops before the event. */
      state: "in_progress";
    }
  | {
      /** Processed already: a duplicate, acknowledged without processing. */
      state: "done";
    };

/**
 * Remembers which event ids are being processed and which were processed, so
 * that a delivery that arrives twice (spec, Delivery rule 7) is processed once,
 * and one that arrives while another instance is processing it waits.
 *
 * A claim is two-phase: `claim` takes a short in-progress lease
 * (`leaseSeconds`, default 60); once the event is processed, `complete` marks
 * it done for the long TTL; when processing fails, `release` gives the lease
 * up. A process that dies mid-processing leaves a lease that lapses, and the
 * next delivery (or the catch-up poller) processes the event.
 *
 * The in-memory store serves one process. Across instances, or to share with
 * the event-log catch-up poller, use `redisDedupeStore` or
 * `postgresDedupeStore`, or implement the three methods on a shared store:
 *
 * @example
 * // Redis: one key per id holding "lease:<token>" (with the lease's expiry) or "done" (with the TTL).
 * const CLAIM = `local v = redis.call('GET', KEYS[1])
 * if v then return v end
 * redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
 * return 'claimed'`;
 * const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
 * const redisDedupe: DedupeStore = {
 *   async claim(id) {
 *     const token = crypto.randomUUID();
 *     const found = await redis.eval(CLAIM, { keys: [`webhook:${id}`], arguments: [`lease:${token}`, "60000"] });
 *     if (found === "claimed") return { state: "claimed", token };
 *     return found === "done" ? { state: "done" } : { state: "in_progress" };
 *   },
 *   async complete(id, _token, ttlSeconds) {
 *     await redis.set(`webhook:${id}`, "done", { EX: Math.ceil(ttlSeconds) });
 *   },
 *   async release(id, token) {
 *     await redis.eval(RELEASE, { keys: [`webhook:${id}`], arguments: [`lease:${token}`] });
 *   },
 * };
 *
 * @example
 * // Postgres: a row per id; lease_token set while in progress, null once done.
 * // CREATE TABLE processed_events (id text PRIMARY KEY, expires_at timestamptz NOT NULL, lease_token text);
 * const pgDedupe: DedupeStore = {
 *   async claim(id) {
 *     const token = crypto.randomUUID();
 *     // Takes the row when it is missing or expired; otherwise returns it unchanged.
 *     const { rows } = await pool.query(
 *       `INSERT INTO processed_events AS p (id, expires_at, lease_token)
 *        VALUES ($1, now() + make_interval(secs => 60), $2)
 *        ON CONFLICT (id) DO UPDATE SET
 *          expires_at = CASE WHEN p.expires_at <= now() THEN EXCLUDED.expires_at ELSE p.expires_at END,
 *          lease_token = CASE WHEN p.expires_at <= now() THEN EXCLUDED.lease_token ELSE p.lease_token END
 *        RETURNING lease_token`,
 *       [id, token],
 *     );
 *     const held = rows[0].lease_token;
 *     if (held === token) return { state: "claimed", token };
 *     return held === null ? { state: "done" } : { state: "in_progress" };
 *   },
 *   async complete(id, _token, ttlSeconds) {
 *     await pool.query(
 *       "UPDATE processed_events SET lease_token = NULL, expires_at = now() + make_interval(secs => $2) WHERE id = $1",
 *       [id, ttlSeconds],
 *     );
 *   },
 *   async release(id, token) {
 *     await pool.query("DELETE FROM processed_events WHERE id = $1 AND lease_token = $2", [id, token]);
 *   },
 * };
 * // Purge rows past expires_at now and then; a claim takes an expired row again either way.
 */
export interface DedupeStore {
  /**
   * Atomically takes an in-progress lease on `id` for the store's
   * `leaseSeconds`, unless the id is done or leased by a live lease. An
   * expired lease (its holder died or overran) is taken over.
   */
  claim(id: string): Promise<DedupeClaim>;
  /**
   * Marks `id` done for `ttlSeconds` (the long TTL): later claims resolve
   * `done`. Called only after the processing function resolved.
   */
  complete(id: string, token: string, ttlSeconds: number): Promise<void>;
  /**
   * Gives the lease up (processing failed) so that the next delivery or the
   * poller processes the id. Only removes the lease `token` holds: a lease
   * that lapsed and was taken by another caller is left alone.
   */
  release(id: string, token: string): Promise<void>;
}

/**
 * How long a processed id is remembered by default, in seconds: 7 days,
 * well past the service's retries of an event (about 2.6 hours).
 */
export const DEFAULT_DEDUPE_TTL_SECONDS = 7 * 24 * 60 * 60;

/**
 * How long an in-progress lease lasts by default, in seconds: longer than a
 * delivery may take (the service waits 5 seconds), short enough that an event
 * whose processor died is processed again within a minute.
 */
export const DEFAULT_DEDUPE_LEASE_SECONDS = 60;

/** Options of `memoryDedupeStore(options)`. */
export interface MemoryDedupeStoreOptions {
  /**
   * How long a claim's in-progress lease lasts, in seconds; past it, a claim
   * of the id takes the lease over.
   * @default 60
   */
  leaseSeconds?: number;
  /**
   * Most ids kept; past it the least recently seen is forgotten first. Each
   * costs roughly the id's length plus 150 bytes.
   * @default 10_000
   */
  max?: number;
  /**
   * Longest time a done id is kept, in seconds, whatever TTL `complete` asks
   * for. The service retries an event for about 2.6 hours; a redelivery or the
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

type MemoryEntry = { expiresAt: number; token: string | null };

/**
 * A per-process {@link DedupeStore}: least recently used eviction bounded by
 * `max`, plus expiry of leases and done ids. Ids are lost on restart, and each
 * instance of a scaled-out receiver has its own: use a shared store there.
 */
export function memoryDedupeStore(options: MemoryDedupeStoreOptions = {}): DedupeStore {
  const max = options.max ?? 10_000;
  const maxTtlSeconds = options.ttlSeconds ?? DEFAULT_DEDUPE_TTL_SECONDS;
  const leaseSeconds = checkLeaseSeconds(options.leaseSeconds, "memoryDedupeStore");
  const now = options.now ?? Date.now;
  if (!Number.isInteger(max) || max < 1) {
    throw new TypeError("memoryDedupeStore: `max` must be an integer >= 1");
  }
  if (!(maxTtlSeconds > 0)) {
    throw new TypeError("memoryDedupeStore: `ttlSeconds` must be a number > 0");
  }

  // Map iteration order is insertion order; re-inserting on access turns it
  // into least-recently-used order, so the first key is the one to evict.
  // `token` is the lease's while in progress, null once done.
  const entries = new Map<string, MemoryEntry>();

  const put = (id: string, entry: MemoryEntry, at: number) => {
    entries.delete(id);
    entries.set(id, entry);
    for (const [key, { expiresAt }] of entries) {
      if (expiresAt > at) break;
      entries.delete(key);
    }
    while (entries.size > max) {
      const oldest = entries.keys().next().value;
      if (oldest === undefined) break;
      entries.delete(oldest);
    }
  };

  return {
    async claim(id) {
      const at = now();
      const entry = entries.get(id);
      if (entry !== undefined && entry.expiresAt > at) {
        put(id, entry, at);
        return entry.token === null ? { state: "done" } : { state: "in_progress" };
      }
      const token = newLeaseToken();
      put(id, { expiresAt: at + leaseSeconds * 1000, token }, at);
      return { state: "claimed", token };
    },
    async complete(id, _token, ttlSeconds) {
      // Done whoever holds the lease now: the event was processed.
      const at = now();
      const ttl = Math.min(ttlSeconds > 0 ? ttlSeconds : maxTtlSeconds, maxTtlSeconds);
      put(id, { expiresAt: at + ttl * 1000, token: null }, at);
    },
    async release(id, token) {
      if (entries.get(id)?.token === token) entries.delete(id);
    },
  };
}

/** A lease token no other claim gets. */
export function newLeaseToken(): string {
  return globalThis.crypto.randomUUID();
}

/** `leaseSeconds` as given (a finite number > 0), or the default. */
export function checkLeaseSeconds(leaseSeconds: unknown, where: string): number {
  if (leaseSeconds === undefined) return DEFAULT_DEDUPE_LEASE_SECONDS;
  if (typeof leaseSeconds !== "number" || !(leaseSeconds > 0) || !Number.isFinite(leaseSeconds)) {
    throw new TypeError(`${where}: \`leaseSeconds\` must be a finite number > 0.`);
  }
  return leaseSeconds;
}

const ONE_PHASE_MESSAGE =
  "the dedupe store's claim() resolved %s, not { state }: it was written for the one-phase " +
  "DedupeStore (claim(id, ttlSeconds) resolving a boolean). Claims are two-phase now: claim(id) " +
  'resolves { state: "claimed", token } (an in-progress lease), { state: "in_progress" } or ' +
  '{ state: "done" }; complete(id, token, ttlSeconds) marks the id done once it was processed; ' +
  "release(id, token) gives a lease up. See the DedupeStore documentation and docs/stores.md.";

/**
 * `store.claim(id)`, checked: a store written for the one-phase interface
 * (claim resolving a boolean) is refused with a TypeError that says what
 * changed. When such a store just recorded the id (resolved true), its claim
 * is given back through its old `release(id)`, so the event is not lost.
 */
export async function claimChecked(store: DedupeStore, id: string): Promise<DedupeClaim> {
  const claim: unknown = await store.claim(id);
  const state = (claim as { state?: unknown } | null)?.state;
  if (
    (state === "claimed" && typeof (claim as { token?: unknown }).token === "string") ||
    state === "in_progress" ||
    state === "done"
  ) {
    return claim as DedupeClaim;
  }
  if (claim === true && typeof store.release === "function") {
    try {
      await (store.release as (id: string) => Promise<void>)(id);
    } catch {
      // The TypeError below says what to fix; a failing old release changes nothing of it.
    }
  }
  throw new TypeError(ONE_PHASE_MESSAGE.replace("%s", describe(claim)));
}

function describe(value: unknown): string {
  if (typeof value === "object" && value !== null) return "an object without a valid `state`";
  return String(value);
}
