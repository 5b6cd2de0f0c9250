/** redisCheckpointStore against a real redis-server (MEDRECORDS_TEST_REDIS_URL). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Checkpoint,
  DEFAULT_CHECKPOINT_LEASE_SECONDS,
  MedRecordsError,
  type RedisCheckpointClient,
  redisCheckpointStore,
  StoreUnavailableError,
} from "../../src/index.js";
import {
  checkpointLeaseContract,
  drivesThePollerAcrossRestarts,
} from "./checkpoint-lease-contract.js";
import { connectRedis, describeWithServers, type RedisClient, uniqueName } from "./servers.js";

const FIRST: Checkpoint = {
  created_at: "2026-03-01T10:00:00.123456Z",
  ids_at_created_at: ["evt_a", "evt_b"],
};

describe("redisCheckpointStore options", () => {
  const client: RedisCheckpointClient = { eval: async () => null };

  it("refuses a missing client, an empty name, and a lease of no time", () => {
    expect(() => redisCheckpointStore({} as never)).toThrow(/node-redis client/);
    expect(() => redisCheckpointStore({ client: { set: async () => "OK" } } as never)).toThrow(
      /eval\(\)/,
    );
    expect(() => redisCheckpointStore({ client, name: "" })).toThrow(/`name`/);
    expect(() => redisCheckpointStore({ client, leaseSeconds: -1 })).toThrow(/`leaseSeconds`/);
    expect(redisCheckpointStore({ client }).leaseSeconds).toBe(DEFAULT_CHECKPOINT_LEASE_SECONDS);
  });

  it("wraps a Redis failure in StoreUnavailableError naming the store", async () => {
    const down: RedisCheckpointClient = {
      eval: async () => {
        throw new Error("The client is closed");
      },
    };
    const store = redisCheckpointStore({ client: down, name: "events", prefix: "p:" });
    for (const call of [() => store.load(), () => store.acquire("me"), () => store.save(FIRST)]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as StoreUnavailableError).store).toBe('redisCheckpointStore (key "p:events")');
    }
  });
});

describeWithServers(["redis"], "redisCheckpointStore on a real Redis", ({ redis: url }) => {
  let client: RedisClient;
  const keys: string[] = [];
  const prefix = () => {
    const p = `${uniqueName("medrecords-test:checkpoint")}:`;
    keys.push(`${p}default`);
    return p;
  };

  beforeAll(async () => {
    client = await connectRedis(url);
  });
  afterAll(async () => {
    if (keys.length > 0) await client?.del(keys);
    await client?.quit();
  });

  it("loads null before any save, then what was saved, exactly, from one hash", async () => {
    const p = prefix();
    const store = redisCheckpointStore({ client, prefix: p });
    expect(await store.load()).toBeNull();
    await store.save(FIRST);
    expect(await store.load()).toEqual(FIRST);
    expect(await redisCheckpointStore({ client, prefix: p }).load()).toEqual(FIRST);
    expect(JSON.parse((await client.hGet(`${p}default`, "checkpoint")) as string)).toEqual(FIRST);
  });

  it("a corrupt value is an error naming the key, never a silent restart", async () => {
    const p = prefix();
    await client.hSet(`${p}default`, "checkpoint", '{"created_at": 42}');
    const error = await redisCheckpointStore({ client, prefix: p })
      .load()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MedRecordsError);
    expect((error as Error).message).toContain(`"${p}default"`);
  });

  it("takes the lease on Redis's clock, for leaseSeconds", async () => {
    const p = prefix();
    const store = redisCheckpointStore({ client, prefix: p, leaseSeconds: 12.5 });
    await store.acquire("owner-a");
    const [seconds, micros] = (await client.sendCommand(["TIME"])) as [string, string];
    const nowMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const expires = Number(await client.hGet(`${p}default`, "expires"));
    expect(expires - nowMs).toBeGreaterThan(12_500 - 1_000);
    expect(expires - nowMs).toBeLessThanOrEqual(12_500);
  });

  describe("leases", () => {
    checkpointLeaseContract(() => {
      const p = prefix();
      return {
        // Redis's clock runs between two steps: "just before" is a second before.
        marginMs: 1_000,
        async stores(count, leaseSeconds) {
          return Array.from({ length: count }, () =>
            redisCheckpointStore({ client, prefix: p, leaseSeconds }),
          );
        },
        async elapse(ms) {
          await client.hIncrBy(`${p}default`, "expires", -ms);
        },
      };
    });
  });

  drivesThePollerAcrossRestarts(() => {
    const p = prefix();
    return () => redisCheckpointStore({ client, prefix: p });
  });
});
