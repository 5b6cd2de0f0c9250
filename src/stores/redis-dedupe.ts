import {
  checkLeaseSeconds,
  type DedupeClaim,
  type DedupeStore,
  newLeaseToken,
} from "../shared/dedupe-store.js";
import { StoreUnavailableError } from "../shared/store-error.js";
import { commandTimeoutOption, withDeadline } from "./guards.js";

/**
 * What the Redis dedupe store needs of a client: node-redis (`redis` v4 to
 * v6, `createClient()`, connected) fits as is; `medrecords` never imports it.
 *
 * @example
 * // ioredis: adapt its positional SET and EVAL arguments.
 * import Redis from "ioredis";
 * const ioredis = new Redis(process.env.REDIS_URL);
 * const client: RedisDedupeClient = {
 *   set: (key, value, { EX }) => ioredis.set(key, value, "EX", EX),
 *   eval: (script, { keys, arguments: args }) => ioredis.eval(script, keys.length, ...keys, ...args),
 * };
 */
export interface RedisDedupeClient {
  /** `SET key value EX seconds`: marks an id done. */
  set(key: string, value: string, options: { EX: number }): Promise<unknown>;
  /** `EVAL script numkeys key... arg...`: the atomic claim, and the compare-and-delete of `release`. */
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/** Options of `redisDedupeStore(options)`. */
export interface RedisDedupeStoreOptions {
  /**
   * Your connected node-redis client (or an adapter, see
   * {@link RedisDedupeClient}). The store never connects or quits it.
   * @example await createClient({ url: process.env.REDIS_URL }).connect()
   */
  client: RedisDedupeClient;
  /**
   * Put before each event id to make its key; give each application sharing
   * a Redis its own, and the same one to every instance (and the catch-up
   * poller) that must see the same events once.
   * @default "medrecords:dedupe:"
   * @example "billing:webhooks:"
   */
  prefix?: string;
  /**
   * How long a claim's in-progress lease lasts, in seconds (Redis expires the
   * key after it, to the millisecond); then another claim of the id takes it
   * over. Longer than your handler takes, short enough to retry soon after a crash.
   * @default DEFAULT_DEDUPE_LEASE_SECONDS
   */
  leaseSeconds?: number;
  /**
   * How long one Redis command may take, in ms; a later answer is a
   * `StoreUnavailableError` (the webhook handler answers 503 and runs
   * nothing). Guards against a Redis that is down while node-redis queues
   * commands (create the client with `disableOfflineQueue: true` to have
   * them fail at once).
   * @default 5_000
   */
  commandTimeoutMs?: number;
}

/** The key's value while done; a lease holds `lease:<token>`. */
const DONE = "done";
/** Written by the one-phase store of earlier versions: a claim that was never told apart from done. */
const ONE_PHASE_CLAIM = "1";

// Returns "claimed" after setting the lease, or the value found (a lease or "done").
const CLAIM_SCRIPT = `local found = redis.call('GET', KEYS[1])
if found then return found end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 'claimed'`;

// Deletes the key only while it holds this caller's lease (fencing).
const RELEASE_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`;

/**
 * A {@link DedupeStore} in Redis, shared by every instance that connects to
 * it. One key per id: `<prefix><id>` holds `lease:<token>` while a claim is
 * in progress (expiring after `leaseSeconds`) and `done` once completed
 * (expiring after the TTL, whole seconds rounded up).
 *
 * - `claim` is one `EVAL` of a script that reads the key and, when it is
 *   missing (never claimed, released, or its lease lapsed), sets the lease
 *   with `SET ... PX`: atomic in Redis, so concurrent claims of one id give
 *   exactly one `claimed`.
 * - `complete` is `SET <prefix><id> done EX <ttl>`.
 * - `release` is one `EVAL` that deletes the key only while it still holds
 *   this claim's lease: a lease that lapsed and was taken by another caller
 *   is left alone.
 *
 * A key written by the one-phase store of earlier versions (value `1`) is
 * taken as done. Failures of the client reject with a `StoreUnavailableError`
 * naming the store and its prefix. With Redis persistence off, a restart of
 * Redis forgets every id: use AOF or RDB persistence when redelivery after
 * such a restart matters.
 *
 * @example
 * import { createClient } from "redis";
 * import { createWebhookHandler, redisDedupeStore } from "medrecords/webhooks";
 *
 * const client = await createClient({ url: process.env.REDIS_URL }).connect();
 * const handler = createWebhookHandler({ secret, on, dedupe: redisDedupeStore({ client }) });
 */
export function redisDedupeStore(options: RedisDedupeStoreOptions): DedupeStore {
  const { client } = options ?? {};
  if (typeof client?.set !== "function" || typeof client.eval !== "function") {
    throw new TypeError(
      "redisDedupeStore: `client` must be a node-redis client (an object with set() and eval()); see RedisDedupeClient for ioredis.",
    );
  }
  const prefix = options.prefix ?? "medrecords:dedupe:";
  if (typeof prefix !== "string") {
    throw new TypeError("redisDedupeStore: `prefix` must be a string.");
  }
  const leaseMs = Math.ceil(checkLeaseSeconds(options.leaseSeconds, "redisDedupeStore") * 1000);
  const timeoutMs = commandTimeoutOption(options.commandTimeoutMs, "redisDedupeStore");
  const name = `redisDedupeStore (prefix ${JSON.stringify(prefix)})`;
  const keyOf = (id: unknown) => {
    if (typeof id !== "string" || id === "") {
      throw new TypeError("redisDedupeStore: the event id must be a non-empty string.");
    }
    return `${prefix}${id}`;
  };
  const call = async <T>(operation: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await withDeadline(run(), timeoutMs);
    } catch (error) {
      throw new StoreUnavailableError(name, operation, error);
    }
  };

  return {
    async claim(id): Promise<DedupeClaim> {
      const key = keyOf(id);
      const token = newLeaseToken();
      const reply = await call("claim", () =>
        client.eval(CLAIM_SCRIPT, { keys: [key], arguments: [`lease:${token}`, String(leaseMs)] }),
      );
      // A string, or a Buffer of it under a Buffer type mapping.
      const found = String(reply);
      if (found === "claimed") return { state: "claimed", token };
      if (found === DONE || found === ONE_PHASE_CLAIM) return { state: "done" };
      return { state: "in_progress" };
    },
    async complete(id, _token, ttlSeconds) {
      const key = keyOf(id);
      if (typeof ttlSeconds !== "number" || !(ttlSeconds > 0) || !Number.isFinite(ttlSeconds)) {
        throw new TypeError("redisDedupeStore: `ttlSeconds` must be a finite number > 0.");
      }
      // Done whoever holds the lease now: the event was processed.
      await call("complete", () => client.set(key, DONE, { EX: Math.ceil(ttlSeconds) }));
    },
    async release(id, token) {
      const key = keyOf(id);
      await call("release", () =>
        client.eval(RELEASE_SCRIPT, { keys: [key], arguments: [`lease:${token}`] }),
      );
    },
  };
}
