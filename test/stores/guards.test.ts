/**
 * The stores against a store that went away, with the clients configured as
 * the docs show (src/stores/guards.ts): a Redis command that never answers
 * (node-redis queuing while disconnected) fails within `commandTimeoutMs`, so
 * a webhook handler answers 503 and runs nothing; a pool without an `error`
 * listener gets one, so a connection dying while idle does not end the process.
 */
import { EventEmitter } from "node:events";
import { describe, expect, it, vi } from "vitest";
import { postgresCheckpointStore, redisCheckpointStore } from "../../src/index.js";
import {
  createWebhookHandler,
  postgresDedupeStore,
  redisDedupeStore,
  StoreUnavailableError,
} from "../../src/webhooks/index.js";
import { NOW_MS, nodeSignedHeaders, SECRET, statusChanged } from "../webhooks/fixtures.js";

/** A node-redis client whose commands are queued and never sent: Redis is down. */
const queuing = () => ({
  set: () => new Promise<never>(() => {}),
  eval: () => new Promise<never>(() => {}),
});

describe("a Redis that does not answer", () => {
  it("the webhook handler answers 503 within commandTimeoutMs and runs nothing", async () => {
    const fn = vi.fn();
    const handler = createWebhookHandler({
      secret: SECRET,
      on: { "retrieval_request.status_changed": fn },
      dedupe: redisDedupeStore({ client: queuing(), commandTimeoutMs: 50 }),
      now: () => NOW_MS,
      onError: () => {},
    });
    const body = JSON.stringify(statusChanged);
    const started = performance.now();
    const response = await handler(
      new Request("https://receiver.example/hooks", {
        method: "POST",
        body,
        headers: { "content-type": "application/json", ...nodeSignedHeaders(body) },
      }),
    );
    expect(response.status).toBe(503);
    expect(fn).not.toHaveBeenCalled();
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("the checkpoint store fails load, acquire and save with StoreUnavailableError", async () => {
    const store = redisCheckpointStore({ client: queuing(), commandTimeoutMs: 30 });
    await expect(store.load()).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.acquire("me")).rejects.toMatchObject({ operation: "acquire" });
    await expect(
      store.save({ created_at: "2026-03-01T10:00:00Z", ids_at_created_at: [] }, 1),
    ).rejects.toThrow(/no answer within 30 ms.*disableOfflineQueue/);
  });

  it("commandTimeoutMs must be above 0", () => {
    expect(() => redisDedupeStore({ client: queuing(), commandTimeoutMs: 0 })).toThrow(RangeError);
    expect(() => redisCheckpointStore({ client: queuing(), commandTimeoutMs: -1 })).toThrow(
      RangeError,
    );
  });
});

/** A pool as pg's: an EventEmitter, whose idle connection dying emits `error`. */
function emitterPool() {
  const pool = Object.assign(new EventEmitter(), {
    query: async () => ({ rowCount: 0, rows: [] }),
    connect: async () =>
      Object.assign(new EventEmitter(), {
        query: async () => ({ rowCount: 0, rows: [] }),
        release: () => {},
      }),
  });
  return pool;
}

describe("a pg.Pool without an error listener", () => {
  it("an idle connection dying (PostgreSQL restarting) does not throw out of the pool", () => {
    const bare = emitterPool();
    // What would end the process: an `error` event nobody listens to.
    expect(() => bare.emit("error", new Error("terminating connection"))).toThrow();
    for (const make of [
      (pool: ReturnType<typeof emitterPool>) => postgresDedupeStore({ pool }),
      (pool: ReturnType<typeof emitterPool>) => postgresCheckpointStore({ pool }),
    ]) {
      const pool = emitterPool();
      make(pool);
      expect(() => pool.emit("error", new Error("terminating connection"))).not.toThrow();
    }
  });

  it("a listener of the user's own is left alone, and none is added beside it", () => {
    const pool = emitterPool();
    const mine = vi.fn();
    pool.on("error", mine);
    postgresDedupeStore({ pool });
    expect(pool.listenerCount("error")).toBe(1);
    pool.emit("error", new Error("x"));
    expect(mine).toHaveBeenCalledOnce();
  });
});
