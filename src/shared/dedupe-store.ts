/**
 * What a dedupe store is (the webhook handler's and the catch-up poller's
 * claims on event ids), and the rules every store applies: shared by
 * src/webhooks, src/poller and the Redis and PostgreSQL stores in src/stores.
 */
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
 * (`leaseSeconds`, default `DEFAULT_DEDUPE_LEASE_SECONDS`); once the event is processed, `complete` marks
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
 * How long a processed id is remembered by default, in seconds: a week,
 * well past the service's retries of an event (about 2.6 hours).
 */
export const DEFAULT_DEDUPE_TTL_SECONDS = 7 * 24 * 60 * 60;

/**
 * How long an in-progress lease lasts by default, in seconds: longer than a
 * delivery may take (the service waits `WEBHOOK_DELIVERY_TIMEOUT_MS`), short enough that an event
 * whose processor died is processed again within a minute.
 */
export const DEFAULT_DEDUPE_LEASE_SECONDS = 60;

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
