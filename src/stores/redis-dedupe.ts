import type { DedupeStore } from "../webhooks/dedupe.js";

/**
 * What the Redis dedupe store needs of a client: node-redis (`redis` v4 to
 * v6, `createClient()`, connected) fits as is; `medrecords` never imports it.
 *
 * @example
 * // ioredis: adapt its positional SET arguments.
 * import Redis from "ioredis";
 * const ioredis = new Redis(process.env.REDIS_URL);
 * const client: RedisDedupeClient = {
 *   set: (key, value, { EX }) => ioredis.set(key, value, "EX", EX, "NX"),
 *   del: (key) => ioredis.del(key),
 * };
 */
export interface RedisDedupeClient {
  /** `SET key value NX EX seconds`: resolves `"OK"` when the key was set, null when it existed. */
  set(key: string, value: string, options: { NX: true; EX: number }): Promise<unknown>;
  /** `DEL key`. */
  del(key: string): Promise<unknown>;
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
}

/**
 * A {@link DedupeStore} in Redis, shared by every instance that connects to
 * it: a claim is one `SET <prefix><id> 1 NX EX <ttl>`, atomic in Redis, so
 * concurrent claims of one id resolve true exactly once; Redis forgets the
 * key when the TTL runs out (whole seconds, rounded up). `release` deletes
 * the key.
 *
 * With Redis persistence off, a restart of Redis forgets every claim: use
 * AOF or RDB persistence when redelivery after such a restart matters.
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
  if (typeof client?.set !== "function" || typeof client.del !== "function") {
    throw new TypeError(
      "redisDedupeStore: `client` must be a node-redis client (an object with set() and del()); see RedisDedupeClient for ioredis.",
    );
  }
  const prefix = options.prefix ?? "medrecords:dedupe:";
  if (typeof prefix !== "string") {
    throw new TypeError("redisDedupeStore: `prefix` must be a string.");
  }
  const keyOf = (id: unknown) => {
    if (typeof id !== "string" || id === "") {
      throw new TypeError("redisDedupeStore: the event id must be a non-empty string.");
    }
    return `${prefix}${id}`;
  };

  return {
    async claim(id, ttlSeconds) {
      if (typeof ttlSeconds !== "number" || !(ttlSeconds > 0) || !Number.isFinite(ttlSeconds)) {
        throw new TypeError("redisDedupeStore: `ttlSeconds` must be a finite number > 0.");
      }
      const reply = await client.set(keyOf(id), "1", { NX: true, EX: Math.ceil(ttlSeconds) });
      // "OK", or a Buffer of it under a Buffer type mapping; null when the key existed.
      return reply !== null && reply !== undefined && String(reply) === "OK";
    },
    async release(id) {
      await client.del(keyOf(id));
    },
  };
}
