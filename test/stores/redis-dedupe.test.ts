/** redisDedupeStore against a real redis-server (MEDRECORDS_TEST_REDIS_URL). */

import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createWebhookHandler,
  type RedisDedupeClient,
  redisDedupeStore,
  signWebhook,
} from "../../src/webhooks/index.js";
import { connectRedis, describeWithServers, type RedisClient, uniqueName } from "./servers.js";

describe("redisDedupeStore options", () => {
  const client: RedisDedupeClient = { set: async () => "OK", del: async () => 1 };

  it("refuses a missing client or one without set/del", () => {
    expect(() => redisDedupeStore({} as never)).toThrow(/node-redis client/);
    expect(() => redisDedupeStore({ client: { set: async () => "OK" } } as never)).toThrow(
      /set\(\) and del\(\)/,
    );
  });

  it("refuses an empty id and a TTL that is not > 0", async () => {
    const store = redisDedupeStore({ client });
    await expect(store.claim("", 10)).rejects.toThrow(/non-empty/);
    await expect(store.claim("evt", 0)).rejects.toThrow(/ttlSeconds/);
    await expect(store.claim("evt", Number.NaN)).rejects.toThrow(/ttlSeconds/);
  });

  it("sends SET <prefix><id> 1 NX EX <whole seconds, rounded up>; OK (even as a Buffer) is a claim", async () => {
    const calls: unknown[][] = [];
    const replies: unknown[] = ["OK", null, Buffer.from("OK")];
    const store = redisDedupeStore({
      client: {
        set: async (...args) => {
          calls.push(args);
          return replies.shift();
        },
        del: async () => 1,
      },
      prefix: "p:",
    });
    expect(await store.claim("evt_1", 0.2)).toBe(true);
    expect(await store.claim("evt_1", 10)).toBe(false);
    expect(await store.claim("evt_2", 1.5)).toBe(true);
    expect(calls).toEqual([
      ["p:evt_1", "1", { NX: true, EX: 1 }],
      ["p:evt_1", "1", { NX: true, EX: 10 }],
      ["p:evt_2", "1", { NX: true, EX: 2 }],
    ]);
  });
});

describeWithServers(["redis"], "redisDedupeStore on a real Redis", ({ redis: url }) => {
  let client: RedisClient;
  let other: RedisClient;

  beforeAll(async () => {
    client = await connectRedis(url);
    other = await connectRedis(url);
  });
  afterAll(async () => {
    await client?.quit();
    await other?.quit();
  });

  it("accepts a node-redis client as is", () => {
    // Compiles: the real client fits the structural type.
    const typed: RedisDedupeClient = client;
    expect(typeof typed.set).toBe("function");
  });

  it("the first claim is true, the next false; after the TTL, true again", async () => {
    const store = redisDedupeStore({ client, prefix: `${uniqueName("ttl")}:` });
    expect(await store.claim("evt_1", 1)).toBe(true);
    expect(await store.claim("evt_1", 1)).toBe(false);
    expect(await store.claim("evt_2", 1)).toBe(true);
    await sleep(1_100);
    await expect.poll(() => store.claim("evt_1", 60), { timeout: 3_000, interval: 50 }).toBe(true);
    expect(await store.claim("evt_1", 60)).toBe(false);
  });

  it("writes <prefix><id> with the TTL in Redis", async () => {
    const prefix = `${uniqueName("keys")}:`;
    const store = redisDedupeStore({ client, prefix });
    await store.claim("evt_1", 3_600);
    expect(await client.get(`${prefix}evt_1`)).toBe("1");
    const ttl = await client.ttl(`${prefix}evt_1`);
    expect(ttl).toBeGreaterThan(3_590);
    expect(ttl).toBeLessThanOrEqual(3_600);
  });

  it("uses medrecords:dedupe: as the default prefix", async () => {
    const id = uniqueName("evt");
    expect(await redisDedupeStore({ client }).claim(id, 60)).toBe(true);
    expect(await client.get(`medrecords:dedupe:${id}`)).toBe("1");
    await client.del(`medrecords:dedupe:${id}`);
  });

  it("release forgets a claim, so the next claim is true", async () => {
    const store = redisDedupeStore({ client, prefix: `${uniqueName("release")}:` });
    expect(await store.claim("evt_1", 60)).toBe(true);
    await store.release?.("evt_1");
    expect(await store.claim("evt_1", 60)).toBe(true);
    expect(await store.claim("evt_1", 60)).toBe(false);
    // Releasing an id never claimed is harmless.
    await expect(store.release?.("evt_never")).resolves.toBeUndefined();
  });

  it("200 parallel claims of one id over two connections: exactly one is true", async () => {
    const prefix = `${uniqueName("race")}:`;
    const stores = [
      redisDedupeStore({ client, prefix }),
      redisDedupeStore({ client: other, prefix }),
    ];
    for (let round = 0; round < 5; round++) {
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) => stores[i % 2]!.claim(`evt_${round}`, 60)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    }
  });

  it("prefixes isolate applications: the same id is claimed once in each", async () => {
    const a = redisDedupeStore({ client, prefix: `${uniqueName("a")}:` });
    const b = redisDedupeStore({ client: other, prefix: `${uniqueName("b")}:` });
    expect(await a.claim("evt_1", 60)).toBe(true);
    expect(await b.claim("evt_1", 60)).toBe(true);
    expect(await a.claim("evt_1", 60)).toBe(false);
    expect(await b.claim("evt_1", 60)).toBe(false);
  });

  it("in createWebhookHandler: a failed handler releases the claim, so the retry is processed", async () => {
    const secret = "whsec_redis_store_test";
    const dedupe = redisDedupeStore({ client, prefix: `${uniqueName("handler")}:` });
    let calls = 0;
    const handler = createWebhookHandler({
      secret,
      dedupe,
      onError: () => {},
      on: {
        "retrieval_request.status_changed": () => {
          calls += 1;
          if (calls === 1) throw new Error("the database was down");
        },
      },
    });
    const body = JSON.stringify({
      id: "evt_retry",
      type: "retrieval_request.status_changed",
      created_at: new Date().toISOString(),
      api_version: "v2",
      data: {
        retrieval_request_id: "rr_1",
        case_id: null,
        public_updated_at: new Date().toISOString(),
        status: "processing",
        stage: "request_sent",
        action_required_reason: null,
      },
    });
    const deliver = async () => {
      const headers = await signWebhook({ payload: body, secret });
      const response = await handler(
        new Request("https://receiver.test/hook", { method: "POST", headers, body }),
      );
      return { status: response.status, body: await response.json() };
    };
    expect((await deliver()).status).toBe(500);
    expect(await deliver()).toEqual({ status: 200, body: { received: true } });
    expect(await deliver()).toEqual({ status: 200, body: { received: true, duplicate: true } });
    expect(calls).toBe(2);
  });

  it("a Redis error fails the claim (the handler then answers 500 and the service retries)", async () => {
    const broken = await connectRedis(url);
    await broken.quit();
    const store = redisDedupeStore({ client: broken });
    await expect(store.claim("evt_1", 60)).rejects.toThrow();
  });
});
