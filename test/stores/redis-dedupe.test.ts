/** redisDedupeStore against a real redis-server (MEDRECORDS_TEST_REDIS_URL). */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_DEDUPE_LEASE_SECONDS, type DedupeClaim } from "../../src/shared/dedupe-store.js";
import {
  createWebhookHandler,
  type RedisDedupeClient,
  redisDedupeStore,
  StoreUnavailableError,
  signWebhook,
} from "../../src/webhooks/index.js";
import { connectRedis, describeWithServers, type RedisClient, uniqueName } from "./servers.js";

function tokenOf(claim: DedupeClaim): string {
  if (claim.state !== "claimed") throw new Error(`expected a claim, got ${claim.state}`);
  return claim.token;
}

describe("redisDedupeStore options", () => {
  const client: RedisDedupeClient = { set: async () => "OK", eval: async () => "claimed" };

  it("refuses a missing client or one without set/eval", () => {
    expect(() => redisDedupeStore({} as never)).toThrow(/node-redis client/);
    expect(() => redisDedupeStore({ client: { set: async () => "OK" } } as never)).toThrow(
      /set\(\) and eval\(\)/,
    );
  });

  it("refuses an empty id, a TTL that is not > 0 and a leaseSeconds that is not > 0", async () => {
    const store = redisDedupeStore({ client });
    await expect(store.claim("")).rejects.toThrow(/non-empty/);
    await expect(store.complete("evt", "t", 0)).rejects.toThrow(/ttlSeconds/);
    await expect(store.complete("evt", "t", Number.NaN)).rejects.toThrow(/ttlSeconds/);
    expect(() => redisDedupeStore({ client, leaseSeconds: 0 })).toThrow(/leaseSeconds/);
  });

  it("claims with one EVAL (lease PX in ms, 60 s by default), completes with SET done EX <whole seconds, rounded up>", async () => {
    const calls: unknown[][] = [];
    const replies: unknown[] = ["claimed", Buffer.from("done"), "lease:other", "1"];
    const store = redisDedupeStore({
      client: {
        set: async (...args) => {
          calls.push(["set", ...args]);
          return "OK";
        },
        eval: async (_script, options) => {
          calls.push(["eval", options]);
          return replies.shift();
        },
      },
      prefix: "p:",
    });
    const token = tokenOf(await store.claim("evt_1"));
    expect(await store.claim("evt_1")).toEqual({ state: "done" });
    expect(await store.claim("evt_1")).toEqual({ state: "in_progress" });
    // The one-phase store of earlier versions wrote "1": taken as done.
    expect(await store.claim("evt_1")).toEqual({ state: "done" });
    await store.complete("evt_1", token, 1.5);
    expect(calls[0]).toEqual([
      "eval",
      {
        keys: ["p:evt_1"],
        arguments: [`lease:${token}`, String(DEFAULT_DEDUPE_LEASE_SECONDS * 1000)],
      },
    ]);
    expect(calls.at(-1)).toEqual(["set", "p:evt_1", "done", { EX: 2 }]);
  });

  it("a client that rejects makes every operation reject with a StoreUnavailableError naming the store and its prefix", async () => {
    const down = new Error("connect ECONNREFUSED 127.0.0.1:1");
    const store = redisDedupeStore({
      client: {
        set: async () => Promise.reject(down),
        eval: async () => Promise.reject(down),
      },
      prefix: "billing:",
    });
    for (const [operation, run] of [
      ["claim", () => store.claim("evt_1")],
      ["complete", () => store.complete("evt_1", "t", 60)],
      ["release", () => store.release("evt_1", "t")],
    ] as const) {
      const error = await run().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(error).toMatchObject({ operation, cause: down });
      expect((error as Error).message).toContain('redisDedupeStore (prefix "billing:")');
    }
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
    expect(typeof typed.eval).toBe("function");
  });

  it("a claim is in progress (a lease of leaseSeconds in Redis) until completed, then done for the TTL", async () => {
    const prefix = `${uniqueName("phases")}:`;
    const store = redisDedupeStore({ client, prefix });
    const token = tokenOf(await store.claim("evt_1"));
    expect(await client.get(`${prefix}evt_1`)).toBe(`lease:${token}`);
    const leaseMs = await client.pTTL(`${prefix}evt_1`);
    expect(leaseMs).toBeGreaterThan(DEFAULT_DEDUPE_LEASE_SECONDS * 1000 - 5_000);
    expect(leaseMs).toBeLessThanOrEqual(DEFAULT_DEDUPE_LEASE_SECONDS * 1000);
    expect(await store.claim("evt_1")).toEqual({ state: "in_progress" });

    await store.complete("evt_1", token, 3_600);
    expect(await client.get(`${prefix}evt_1`)).toBe("done");
    const ttl = await client.ttl(`${prefix}evt_1`);
    expect(ttl).toBeGreaterThan(3_590);
    expect(ttl).toBeLessThanOrEqual(3_600);
    expect(await store.claim("evt_1")).toEqual({ state: "done" });
  });

  it("a lapsed lease is taken over; the old holder's release leaves the new lease alone", async () => {
    const prefix = `${uniqueName("lapse")}:`;
    // A short lease for the holder that dies; the taker's own lease outlasts the test.
    const dying = redisDedupeStore({ client, prefix, leaseSeconds: 0.2 });
    const store = redisDedupeStore({ client, prefix });
    const old = tokenOf(await dying.claim("evt_1"));
    expect(await store.claim("evt_1")).toEqual({ state: "in_progress" });
    await expect
      .poll(async () => (await store.claim("evt_1")).state, { timeout: 3_000, interval: 50 })
      .toBe("claimed");
    await dying.release("evt_1", old);
    expect(await store.claim("evt_1")).toEqual({ state: "in_progress" });
  });

  it("release gives the lease back, so the next claim is claimed; a release after complete leaves it done", async () => {
    const store = redisDedupeStore({ client, prefix: `${uniqueName("release")}:` });
    await store.release("evt_1", tokenOf(await store.claim("evt_1")));
    const token = tokenOf(await store.claim("evt_1"));
    await store.complete("evt_1", token, 60);
    await store.release("evt_1", token);
    expect(await store.claim("evt_1")).toEqual({ state: "done" });
    // Releasing an id never claimed is harmless.
    await expect(store.release("evt_never", "t")).resolves.toBeUndefined();
  });

  it("a done id is claimed again once its TTL has run out", async () => {
    const store = redisDedupeStore({ client, prefix: `${uniqueName("ttl")}:` });
    await store.complete("evt_1", tokenOf(await store.claim("evt_1")), 1);
    expect(await store.claim("evt_1")).toEqual({ state: "done" });
    await expect
      .poll(async () => (await store.claim("evt_1")).state, { timeout: 3_000, interval: 50 })
      .toBe("claimed");
  });

  it("a key written by the one-phase store of earlier versions is done", async () => {
    const prefix = `${uniqueName("legacy")}:`;
    await client.set(`${prefix}evt_1`, "1", { EX: 60 });
    expect(await redisDedupeStore({ client, prefix }).claim("evt_1")).toEqual({ state: "done" });
  });

  it("uses medrecords:dedupe: as the default prefix", async () => {
    const id = uniqueName("evt");
    const token = tokenOf(await redisDedupeStore({ client }).claim(id));
    expect(await client.get(`medrecords:dedupe:${id}`)).toBe(`lease:${token}`);
    await client.del(`medrecords:dedupe:${id}`);
  });

  it("200 parallel claims of one id over two connections: exactly one is claimed", async () => {
    const prefix = `${uniqueName("race")}:`;
    const stores = [
      redisDedupeStore({ client, prefix }),
      redisDedupeStore({ client: other, prefix }),
    ];
    for (let round = 0; round < 5; round++) {
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) => stores[i % 2]!.claim(`evt_${round}`)),
      );
      expect(results.filter((claim) => claim.state === "claimed")).toHaveLength(1);
      expect(results.filter((claim) => claim.state === "in_progress")).toHaveLength(199);
    }
  });

  it("prefixes isolate applications: the same id is claimed once in each", async () => {
    const a = redisDedupeStore({ client, prefix: `${uniqueName("a")}:` });
    const b = redisDedupeStore({ client: other, prefix: `${uniqueName("b")}:` });
    expect((await a.claim("evt_1")).state).toBe("claimed");
    expect((await b.claim("evt_1")).state).toBe("claimed");
    expect((await a.claim("evt_1")).state).toBe("in_progress");
    expect((await b.claim("evt_1")).state).toBe("in_progress");
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

  it("a closed client: the handler answers 503 naming the store, and nothing is marked done", async () => {
    const prefix = `${uniqueName("down")}:`;
    const broken = await connectRedis(url);
    await broken.quit();
    const secret = "whsec_redis_store_down";
    const errors: unknown[] = [];
    let calls = 0;
    const on = {
      "retrieval_request.status_changed": () => {
        calls += 1;
      },
    };
    const body = JSON.stringify({
      id: "evt_down",
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
    const deliver = async (handler: (request: Request) => Promise<Response>) => {
      const headers = await signWebhook({ payload: body, secret });
      const response = await handler(
        new Request("https://receiver.test/hook", { method: "POST", headers, body }),
      );
      return { status: response.status, body: await response.json() };
    };
    const down = createWebhookHandler({
      secret,
      on,
      dedupe: redisDedupeStore({ client: broken, prefix }),
      onError: (error) => errors.push(error),
    });
    expect(await deliver(down)).toEqual({ status: 503, body: { error: "store_unavailable" } });
    expect(calls).toBe(0);
    expect(errors[0]).toBeInstanceOf(StoreUnavailableError);
    expect((errors[0] as Error).message).toContain(
      `redisDedupeStore (prefix ${JSON.stringify(prefix)})`,
    );

    const up = createWebhookHandler({ secret, on, dedupe: redisDedupeStore({ client, prefix }) });
    expect(await deliver(up)).toEqual({ status: 200, body: { received: true } });
    expect(calls).toBe(1);
  });
});
