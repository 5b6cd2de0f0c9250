import {
  CheckpointLeaseLostError,
  type CheckpointLeaseLostReason,
  type CheckpointLeaseStore,
  fenceArgument,
  leaseSecondsOption,
  ownerArgument,
} from "../shared/checkpoint-lease.js";
import { instantOf } from "../shared/checkpoint-store.js";
import { StoreUnavailableError } from "../shared/store-error.js";
import { commandTimeoutOption, withDeadline } from "./guards.js";
import { parseCheckpoint } from "./parse-checkpoint.js";

/**
 * What the Redis checkpoint store needs of a client: node-redis (`redis` v4
 * to v6, `createClient()`, connected) fits as is; `medrecords` never imports
 * it. Every operation is one small Lua script, atomic in Redis.
 *
 * @example
 * // ioredis: adapt its positional EVAL arguments.
 * import Redis from "ioredis";
 * const ioredis = new Redis(process.env.REDIS_URL);
 * const client: RedisCheckpointClient = {
 *   eval: (script, { keys, arguments: args }) => ioredis.eval(script, keys.length, ...keys, ...args),
 * };
 */
export interface RedisCheckpointClient {
  /** `EVAL script numkeys ...keys ...arguments`: resolves the script's reply. */
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/** Options of `redisCheckpointStore(options)`. */
export interface RedisCheckpointStoreOptions {
  /**
   * Your connected node-redis client (or an adapter, see
   * {@link RedisCheckpointClient}). The store never connects or quits it.
   * @example await createClient({ url: process.env.REDIS_URL }).connect()
   */
  client: RedisCheckpointClient;
  /**
   * Which checkpoint this store reads and writes; every instance that must
   * take turns on one checkpoint uses the same name.
   * @default "default"
   * @example "events:firm-42"
   */
  name?: string;
  /**
   * Put before `name` to make the key of the hash that holds the checkpoint
   * and its lease.
   * @default "medrecords:checkpoint:"
   * @example "billing:checkpoint:"
   */
  prefix?: string;
  /**
   * Seconds a poller's lease lasts without renewal: the longest another
   * instance waits to take over after the holder died.
   * @default DEFAULT_CHECKPOINT_LEASE_SECONDS
   */
  leaseSeconds?: number;
  /**
   * How long one Redis command may take, in ms; a later answer is a
   * `StoreUnavailableError` (the run stops, the checkpoint where it was).
   * Guards against a Redis that is down while node-redis queues commands
   * (create the client with `disableOfflineQueue: true` to have them fail at once).
   * @default 5_000
   */
  commandTimeoutMs?: number;
}

// Each script reads Redis's own clock (TIME), so that every instance measures
// leases on one clock. Redis 7 replicates a script's effects, which TIME needs;
// redis.replicate_commands asks Redis 5 and 6 for the same.
const NOW = `if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/** KEYS[1] the hash; ARGV owner, lease ms. The fence, or false while another owner's lease is live. */
const ACQUIRE = `${NOW}local h = redis.call('HMGET', KEYS[1], 'owner', 'expires', 'fence')
local fence = tonumber(h[3]) or 0
if h[1] and h[1] ~= ARGV[1] and tonumber(h[2]) > now then return false end
if h[1] ~= ARGV[1] then fence = fence + 1 end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'expires', now + tonumber(ARGV[2]), 'fence', fence)
return fence`;

/**
 * KEYS[1] the hash; ARGV fence ('' for none), checkpoint JSON, its instant's
 * epoch ms, the digits below a millisecond (12, zero-padded). 'ok', or why not.
 */
const SAVE = `${NOW}local h = redis.call('HMGET', KEYS[1], 'owner', 'expires', 'fence', 'ms', 'sub')
local live = h[1] and tonumber(h[2]) > now
if ARGV[1] == '' then
  if live then return 'held_by_another' end
else
  if tonumber(h[3]) ~= tonumber(ARGV[1]) then return 'taken_over' end
  if not live then return 'expired' end
end
local ms, sub = tonumber(ARGV[3]), tonumber(ARGV[4])
if h[4] and (tonumber(h[4]) > ms or (tonumber(h[4]) == ms and tonumber(h[5]) > sub)) then return 'backwards' end
redis.call('HSET', KEYS[1], 'checkpoint', ARGV[2], 'ms', ARGV[3], 'sub', ARGV[4])
return 'ok'`;

/** KEYS[1] the hash; ARGV owner. */
const RELEASE = `if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then redis.call('HDEL', KEYS[1], 'owner', 'expires') end
return 1`;

const LOAD = "return redis.call('HGET', KEYS[1], 'checkpoint')";

/** Digits below a millisecond a saved instant keeps for the forward-only comparison. */
const SUB_DIGITS = 12;

/**
 * A {@link CheckpointLeaseStore} in Redis, for a catch-up poller on several
 * instances: one instance holds the lease and polls, the others wait and
 * take over within `leaseSeconds` after it died; a save by an instance that
 * lost the lease, or one that would move the checkpoint backwards, is
 * refused. The checkpoint and its lease are one hash (`<prefix><name>`);
 * every operation is one Lua script, timed on Redis's clock.
 *
 * The checkpoint is as durable as your Redis: with persistence off, a
 * restart of Redis forgets it and the poller starts again at the oldest
 * event the log holds (every event again). Use AOF persistence, or
 * `postgresCheckpointStore`, where that matters. Failures of Redis are
 * `StoreUnavailableError`s naming the store.
 *
 * @example
 * import { createClient } from "redis";
 * import { MedRecords, redisCheckpointStore } from "medrecords";
 *
 * const client = await createClient({ url: process.env.REDIS_URL }).connect();
 * const poller = new MedRecords().events.catchUp({
 *   checkpoint: redisCheckpointStore({ client, name: "events" }),
 *   onEvent: async (event) => handle(event),
 * });
 * poller.start({ intervalMs: 60_000 }); // on every instance: one polls at a time
 */
export function redisCheckpointStore(options: RedisCheckpointStoreOptions): CheckpointLeaseStore {
  const fn = "redisCheckpointStore";
  const { client } = options ?? {};
  if (typeof client?.eval !== "function") {
    throw new TypeError(
      `${fn}: \`client\` must be a node-redis client (an object with eval()); see RedisCheckpointClient for ioredis.`,
    );
  }
  const name = options.name ?? "default";
  if (typeof name !== "string" || name === "") {
    throw new TypeError(`${fn}: \`name\` must be a non-empty string.`);
  }
  const prefix = options.prefix ?? "medrecords:checkpoint:";
  if (typeof prefix !== "string") throw new TypeError(`${fn}: \`prefix\` must be a string.`);
  const leaseSeconds = leaseSecondsOption(options.leaseSeconds, fn);
  const leaseMs = Math.max(1, Math.ceil(leaseSeconds * 1000));
  const timeoutMs = commandTimeoutOption(options.commandTimeoutMs, fn);
  const key = `${prefix}${name}`;
  const where = `The checkpoint in the Redis key ${JSON.stringify(key)}`;
  const storeName = `${fn} (key ${JSON.stringify(key)})`;
  const run = async (operation: string, script: string, args: string[]) => {
    try {
      return await withDeadline(client.eval(script, { keys: [key], arguments: args }), timeoutMs);
    } catch (error) {
      throw new StoreUnavailableError(storeName, operation, error);
    }
  };

  return {
    description: where,
    leaseSeconds,
    async load() {
      const reply = await run("load", LOAD, []);
      if (reply === null || reply === undefined) return null;
      let value: unknown;
      try {
        value = JSON.parse(String(reply));
      } catch {
        value = String(reply);
      }
      return parseCheckpoint(value, where);
    },

    async save(checkpoint, fence) {
      const valid = parseCheckpoint(checkpoint, "The checkpoint to save");
      const token = fenceArgument(fence, fn);
      const instant = instantOf(valid.created_at);
      const sub = instant.sub.slice(0, SUB_DIGITS).padEnd(SUB_DIGITS, "0");
      const reply = String(
        await run("save", SAVE, [
          token === undefined ? "" : String(token),
          JSON.stringify(valid),
          String(instant.ms),
          sub,
        ]),
      );
      if (reply === "ok") return;
      throw new CheckpointLeaseLostError(
        where,
        reply as CheckpointLeaseLostReason,
        reply === "backwards" ? `${valid.created_at} is before the saved checkpoint` : "",
      );
    },

    async acquire(owner) {
      const reply = await run("acquire", ACQUIRE, [ownerArgument(owner, fn), String(leaseMs)]);
      return reply === null || reply === undefined || reply === false ? null : Number(reply);
    },

    async release(owner) {
      await run("release", RELEASE, [ownerArgument(owner, fn)]);
    },
  };
}
