/**
 * Two instances of the example receiver (examples/webhook-receiver.ts) behind
 * one Redis dedupe store, fed the reference server's deliveries of 1 000
 * events, duplicated and reordered, split at random between them: every
 * event is handled exactly once across both, and the shared cache of each
 * retrieval request ends at its newest `public_updated_at`.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  createReceiver,
  memoryRetrievalRequestCache,
  type RetrievalEvent,
  WEBHOOK_PATH,
} from "../../examples/webhook-receiver.js";
import { MedRecords } from "../../src/index.js";
import { seededRandom } from "../../src/internal/seeded-random.js";
import { createMockService, type MockService } from "../../src/mock/index.js";
import { SUBSCRIBABLE_EVENT_TYPES } from "../../src/schemas/events.js";
import { isNewerRetrievalRequest, redisDedupeStore } from "../../src/webhooks/index.js";
import { eventLogForTesting } from "../helpers/mock-internals.js";
import { createApi } from "../mock/helpers.js";
import { createRetrieval } from "../mock/retrieval-helpers.js";
import { connectRedis, describeWithServers, type RedisClient, uniqueName } from "./servers.js";

const REQUESTS = 40;
const ROUNDS = 25; // one status change per request per round: 1 000 events
const STAGES = ["request_sent", "provider_processing", "records_received"] as const;
const SEED = 20_260_301;

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve(`http://127.0.0.1:${port}${WEBHOOK_PATH}`);
    });
  });
}

describeWithServers(["redis"], "two receivers sharing the Redis dedupe store", ({ redis: url }) => {
  const rand = seededRandom(SEED);
  const latency = seededRandom(SEED + 1);
  let mock: MockService;
  const redisClients: RedisClient[] = [];
  const servers: Server[] = [];

  beforeAll(async () => {
    // The signed timestamps are the mock clock's: start it at the real time, within the tolerance.
    mock = createMockService({ now: new Date(), delivery: "inbox", allowPrivateWebhookUrls: true });
  });
  afterAll(async () => {
    mock?.faults.clear();
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    await Promise.all(redisClients.map((c) => c.quit()));
  });

  it("handles each of 1 000 events exactly once; the cache ends at the newest public_updated_at", async () => {
    const api = createApi(mock, mock.apiKeys.create());
    const apiKey = mock.apiKeys.create();
    const requests = [];
    for (let i = 0; i < REQUESTS; i++) requests.push(await createRetrieval(mock, api));
    const webhook = await api.post<{ secret: string }>("/v2/webhooks", {
      name: "receivers",
      url: "https://receivers.example.test/webhooks/medrecords",
      events: [...SUBSCRIBABLE_EVENT_TYPES],
    });
    expect(webhook.status).toBe(201);

    // One cache for both, as a shared database would be; one Redis connection and store each.
    const cache = memoryRetrievalRequestCache();
    const prefix = `${uniqueName("two-receivers")}:`;
    const handled = new Map<string, number>();
    let olderFetchesDropped = 0;
    const urls: string[] = [];
    for (let instance = 0; instance < 2; instance++) {
      const redis = await connectRedis(url);
      redisClients.push(redis);
      // Answers come back after a random delay, one in ten very late: a fetch that
      // started earlier (an older state) often arrives after a later one, even after
      // the fetches that follow the last change.
      const client = new MedRecords({
        apiKey,
        baseUrl: mock.baseUrl,
        maxRetries: 0,
        fetch: async (input, init) => {
          const response = await mock.fetch(input, init);
          await sleep(latency() < 0.1 ? 150 + latency() * 150 : latency() * 20);
          return response;
        },
      });
      const receiver = createReceiver({
        secret: webhook.body.secret,
        client,
        dedupe: redisDedupeStore({ client: redis, prefix }),
        cache,
        onProcessed: (event: RetrievalEvent, { stored, fetched }) => {
          handled.set(event.id, (handled.get(event.id) ?? 0) + 1);
          if (!stored) {
            void cache.get(fetched.id).then((cached) => {
              if (cached && isNewerRetrievalRequest(cached, fetched)) olderFetchesDropped += 1;
            });
          }
        },
      });
      const server = createServer(receiver.listener);
      servers.push(server);
      urls.push(await listen(server));
    }

    mock.faults.set({
      duplicateRate: 0.3,
      reorder: { window: 25, maxHoldMs: 60_000 },
      seed: SEED,
    });

    const statuses: number[] = [];
    const post = async (to: string, delivery: (typeof mock.deliveries.inbox)[number]) => {
      for (;;) {
        const response = await fetch(to, {
          method: "POST",
          headers: delivery.headers,
          body: delivery.body,
        });
        await response.arrayBuffer();
        // 409: the other instance is processing this event right now; the service retries later.
        if (response.status !== 409) {
          statuses.push(response.status);
          return;
        }
        await sleep(20);
      }
    };
    /** Each delivery to a random instance; some to both at once (a duplicate racing itself). */
    const deliver = (batch: typeof mock.deliveries.inbox) =>
      Promise.all(
        batch.flatMap((delivery) => {
          const first = rand() < 0.5 ? 0 : 1;
          const targets = rand() < 0.2 ? [first, 1 - first] : [first];
          return targets.map((target) => post(urls[target]!, delivery));
        }),
      );

    let read = 0;
    let pending: typeof mock.deliveries.inbox = [];
    const inFlight: Promise<unknown>[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const request of requests) {
        mock.retrievalRequests.setStatus(request.id, {
          status: "processing",
          stage: STAGES[Math.floor(rand() * STAGES.length)]!,
        });
      }
      await mock.deliveries.flush();
      pending.push(...mock.deliveries.inbox.slice(read));
      read = mock.deliveries.inbox.length;
      // Send about half of what is waiting now, the rest in later rounds: old events come late.
      const now: typeof pending = [];
      const later: typeof pending = [];
      for (const delivery of pending) (rand() < 0.5 ? now : later).push(delivery);
      pending = later;
      inFlight.push(deliver(now));
      // Let those deliveries start fetching before the next changes.
      await sleep(5);
    }
    await mock.deliveries.flush();
    pending.push(...mock.deliveries.inbox.slice(read));
    inFlight.push(deliver(pending));
    await Promise.all(inFlight);

    const events = eventLogForTesting(mock).map((e) => e.id);
    expect(events).toHaveLength(1_000);
    const delivered = mock.deliveries.inbox.map((d) => d.eventId);
    expect(new Set(delivered).size).toBe(1_000);
    expect(delivered.length, "the mock duplicated some deliveries").toBeGreaterThan(1_100);

    // Every delivery was acknowledged, and every event handled exactly once across both.
    expect(statuses.every((status) => status === 200)).toBe(true);
    expect(statuses.length).toBeGreaterThan(delivered.length);
    expect([...handled.keys()].sort()).toEqual([...events].sort());
    expect([...handled.values()].every((n) => n === 1)).toBe(true);

    // The shared cache holds each request at its newest state...
    const reader = new MedRecords({ apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch });
    const cached = await Promise.all(requests.map((r) => cache.get(r.id)));
    const newest = await Promise.all(requests.map((r) => reader.retrievalRequests.retrieve(r.id)));
    expect(cached.map((c) => c?.public_updated_at)).toEqual(newest.map((n) => n.public_updated_at));
    expect(cached.map((c) => c?.stage)).toEqual(newest.map((n) => n.stage));
    // ...although some older states arrived after newer ones and were dropped.
    await sleep(0);
    expect(olderFetchesDropped).toBeGreaterThan(0);
  });
});
