/**
 * DESIGN 12.1, "Advancing runs the window in order": every delivery attempt
 * that falls due in an advance (first attempts and the retries failures
 * schedule inside it) is made in time order, each recorded at its own
 * instant of the service's clock and awaited before the next; the spec's
 * whole retry schedule and its auto-disable in one `await advance("3d")`;
 * the HTTP mock with a real receiver on loopback judging timestamps by this
 * machine's clock, through the control API's advance; a receiver under MSW.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { HttpResponse, http } from "msw";
import { setupServer } from "msw/node";
import { afterEach, describe, expect, it } from "vitest";
import { type AnyEvent, MedRecords } from "../../src/index.js";
import { createMockService, type MockServiceCore, startMockServer } from "../../src/mock/index.js";
import { SUBSCRIBABLE_EVENT_TYPES } from "../../src/schemas/events.js";
import {
  WEBHOOK_AUTO_DISABLE_AFTER,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_RETRY_DELAYS_MS,
  type Webhook,
  type WebhookDelivery,
} from "../../src/schemas/webhooks.js";
import {
  createWebhookHandler,
  memoryDedupeStore,
  toNodeListener,
} from "../../src/webhooks/index.js";
import { fileRetrievalRequest } from "../helpers/file-retrieval-request.js";
import { START } from "./helpers.js";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function clientOf(mock: MockServiceCore, fetch: typeof globalThis.fetch = mock.fetch) {
  return new MedRecords({ apiKey: mock.apiKeys.create(), baseUrl: mock.baseUrl, fetch });
}

async function allDeliveries(mr: MedRecords, webhookId: string): Promise<WebhookDelivery[]> {
  const all: WebhookDelivery[] = [];
  for await (const delivery of mr.webhooks.listDeliveries(webhookId, { limit: 100 })) {
    all.push(delivery as WebhookDelivery);
  }
  return all;
}

describe("await mock.clock.advance() over the spec's whole retry schedule", () => {
  it('a receiver that always answers 500: one await advance("3d") makes each event\'s 5 attempts at +1 min, +5 min, +30 min, +2 h, each recorded at its own time; the fifth failed event disables the webhook', async () => {
    const answered: number[] = [];
    const mock = createMockService({
      now: START,
      autopilot: { seed: 7 },
      deliverTo: () => {
        answered.push(Date.now());
        return new Response(null, { status: 500 });
      },
    });
    const mr = clientOf(mock);
    const hook = await mr.webhooks.create({
      name: "always failing",
      url: "https://app.example.test/hooks",
      events: [...SUBSCRIBABLE_EVENT_TYPES],
    });
    // Two requests, so that more than five events fail within the window.
    await fileRetrievalRequest(mr);
    await fileRetrievalRequest(mr);

    const result = await mock.clock.advance("3d");
    expect(mock.clock.now().toISOString()).toBe(
      new Date(Date.parse(START) + 3 * 86_400_000).toISOString(),
    );

    const records = await allDeliveries(mr, hook.id);
    expect(result.attempted).toBe(records.length);
    expect(result.succeeded).toBe(0);
    expect(result.failed).toHaveLength(records.length);
    expect(answered).toHaveLength(records.length);

    // The window's attempts in time order, each at its own instant.
    const instants = result.failed.map((f) => Date.parse(f.attempted_at));
    expect(instants).toEqual([...instants].sort((a, b) => a - b));

    const events = new Map<string, AnyEvent>();
    for await (const event of mr.events.list({ limit: 100 })) events.set(event.id, event);
    const byEvent = new Map<string, WebhookDelivery[]>();
    for (const record of records) {
      byEvent.set(record.event_id, [...(byEvent.get(record.event_id) ?? []), record]);
    }
    const complete = [...byEvent.values()]
      .map((attempts) => attempts.sort((a, b) => a.attempt - b.attempt))
      .filter((attempts) => attempts.length === WEBHOOK_MAX_ATTEMPTS);
    expect(complete.length).toBe(WEBHOOK_AUTO_DISABLE_AFTER);
    for (const attempts of complete) {
      const event = events.get(attempts[0]!.event_id)!;
      // The first attempt at the event's own instant, then each retry after its failure.
      expect(attempts[0]!.created_at).toBe(event.created_at);
      const gaps = attempts
        .slice(1)
        .map((a, i) => Date.parse(a.created_at) - Date.parse(attempts[i]!.created_at));
      expect(gaps).toEqual([...WEBHOOK_RETRY_DELAYS_MS]);
      expect(attempts.map((a) => a.next_attempt_at)).toEqual([
        ...attempts.slice(1).map((a) => a.created_at),
        null,
      ]);
      expect(attempts.every((a) => a.status_code === 500 && !a.success)).toBe(true);
    }

    const webhook = (await mr.webhooks.retrieve(hook.id)) as Webhook;
    const lastFailed = complete
      .map((attempts) => attempts.at(-1)!.created_at)
      .sort()
      .at(-1);
    expect(webhook).toMatchObject({
      is_enabled: false,
      consecutive_failures: WEBHOOK_AUTO_DISABLE_AFTER,
      auto_disabled_at: lastFailed,
    });
    // Nothing was attempted after it was disabled.
    expect(records.every((r) => r.created_at <= lastFailed!)).toBe(true);
  });

  it("a failure outside any advance is retried inside the next one, recorded at its due time", async () => {
    let status = 500;
    const mock = createMockService({
      now: START,
      deliverTo: () => new Response(null, { status }),
    });
    const mr = clientOf(mock);
    const hook = await mr.webhooks.create({
      name: "flaky",
      url: "https://app.example.test/hooks",
      events: ["retrieval_request.status_changed"],
    });
    const seeded = mock.seed.retrievalRequest({ status: "processing", stage: "request_sent" });
    mock.retrievalRequests.setStatus(seeded.id, {
      status: "processing",
      stage: "provider_processing",
    });
    expect((await mock.deliveries.flush()).failed).toHaveLength(1);
    status = 204;
    const result = await mock.clock.advance("1h");
    expect(result).toMatchObject({ attempted: 1, succeeded: 1, failed: [] });
    const [retry] = await allDeliveries(mr, hook.id);
    expect(retry).toMatchObject({
      attempt: 2,
      success: true,
      created_at: new Date(Date.parse(START) + WEBHOOK_RETRY_DELAYS_MS[0]!).toISOString(),
    });
  });

  it("each attempt is awaited before the next: a receiver never sees two at once", async () => {
    let open = 0;
    let most = 0;
    const mock = createMockService({
      now: START,
      autopilot: true,
      deliverTo: async () => {
        open += 1;
        most = Math.max(most, open);
        await new Promise((resolve) => setTimeout(resolve, 2));
        open -= 1;
        return new Response(null, { status: 204 });
      },
    });
    const mr = clientOf(mock);
    await mr.webhooks.create({
      name: "slow",
      url: "https://app.example.test/hooks",
      events: [...SUBSCRIBABLE_EVENT_TYPES],
    });
    await fileRetrievalRequest(mr);
    await fileRetrievalRequest(mr);
    const { attempted, failed } = await mock.clock.advance("13h");
    expect(failed).toEqual([]);
    expect(attempted).toBeGreaterThan(2 * SUBSCRIBABLE_EVENT_TYPES.length - 1);
    expect(most).toBe(1);
  });
});

describe("the HTTP mock, a real receiver on loopback, and POST /__mock/clock/advance", () => {
  it("answers after the window with its counts; the receiver, on this machine's clock with no `now`, processed every event once", async () => {
    const processed: string[] = [];
    let secret = "";
    const record = (event: AnyEvent) => void processed.push(event.id);
    const on = Object.fromEntries(SUBSCRIBABLE_EVENT_TYPES.map((type) => [type, record]));
    const dedupe = memoryDedupeStore();
    const receiver: Server = createServer(
      toNodeListener((request) => createWebhookHandler({ secret, dedupe, on })(request)),
    );
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          receiver.closeAllConnections();
          receiver.close(() => resolve());
        }),
    );
    const server = await startMockServer({ autopilot: true, allowPrivateWebhookUrls: true });
    cleanups.push(() => server.close());
    const mr = clientOf(server, fetch);
    const { port } = receiver.address() as AddressInfo;
    const hook = await mr.webhooks.create({
      name: "loopback",
      url: `http://127.0.0.1:${port}/webhooks`,
      events: [...SUBSCRIBABLE_EVENT_TYPES],
    });
    secret = hook.secret;
    const id = await fileRetrievalRequest(mr);

    const answer = await fetch(`${server.baseUrl}/__mock/clock/advance`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ by: "13h" }),
    });
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as {
      now: string;
      attempted: number;
      succeeded: number;
      failed: unknown[];
    };
    expect(body.failed).toEqual([]);
    expect(body.now).toBe(server.clock.now().toISOString());
    const logged: string[] = [];
    for await (const event of mr.events.list({ object_id: id })) logged.push(event.id);
    expect(body).toMatchObject({ attempted: logged.length, succeeded: logged.length });
    expect([...processed].sort()).toEqual([...logged].sort());
    expect((await mr.retrievalRequests.retrieve(id)).status).toBe("completed");
  });
});

describe("under MSW", () => {
  it("a receiver MSW intercepts gets every event of the window, in time order", async () => {
    const mock = createMockService({ now: START, autopilot: true });
    const received: { id: string; created_at: string }[] = [];
    let secret = "";
    const on = Object.fromEntries(
      SUBSCRIBABLE_EVENT_TYPES.map((type) => [
        type,
        (event: AnyEvent) => void received.push({ id: event.id, created_at: event.created_at }),
      ]),
    );
    const dedupe = memoryDedupeStore();
    const msw = setupServer(
      ...mock.handlers,
      http.post("https://app.example.test/hooks", async ({ request }) => {
        const response = await createWebhookHandler({ secret, dedupe, on })(request);
        return new HttpResponse(response.body, { status: response.status });
      }),
    );
    msw.listen({ onUnhandledRequest: "error" } as never);
    cleanups.push(() => msw.close());
    const mr = clientOf(mock);
    const hook = await mr.webhooks.create({
      name: "msw",
      url: "https://app.example.test/hooks",
      events: [...SUBSCRIBABLE_EVENT_TYPES],
    });
    secret = hook.secret;
    const id = await fileRetrievalRequest(mr);
    const { failed, attempted } = await mock.clock.advance("13h");
    expect(failed).toEqual([]);
    expect(attempted).toBe(received.length);
    expect(received.map((e) => e.created_at)).toEqual(received.map((e) => e.created_at).sort());
    expect((await mr.retrievalRequests.retrieve(id)).status).toBe("completed");
  });
});

describe("an attempt due while the queue finishes", () => {
  // Microtask hops that land before, while and after the queue winds down around the last answer.
  it.each(Array.from({ length: 31 }, (_, i) => i))(
    "an event emitted %i microtasks after a delivery was answered is not left behind",
    async (hops) => {
      const ids: string[] = [];
      let mock: ReturnType<typeof createMockService> | undefined;
      let seededId = "";
      mock = createMockService({
        now: START,
        deliverTo: async (request) => {
          const { id } = (await request.json()) as { id: string };
          ids.push(id);
          if (ids.length === 1) {
            let hop = Promise.resolve();
            for (let i = 0; i < hops; i++) hop = hop.then(() => undefined);
            void hop.then(() =>
              mock?.retrievalRequests.setStatus(seededId, {
                status: "processing",
                stage: "provider_processing",
              }),
            );
          }
          return new Response(null, { status: 204 });
        },
      });
      const mr = clientOf(mock);
      await mr.webhooks.create({
        name: "chain",
        url: "https://app.example.test/hooks",
        events: ["retrieval_request.status_changed"],
      });
      seededId = mock.seed.retrievalRequest({ status: "processing", stage: "intake" }).id;
      mock.retrievalRequests.setStatus(seededId, { status: "processing", stage: "request_sent" });
      await mock.deliveries.flush();
      await new Promise((resolve) => setImmediate(resolve));
      // Whenever it was emitted, it is in flight or made by now: a flush waits for it.
      await mock.deliveries.flush();
      expect(ids).toHaveLength(2);
      expect(new Set(ids).size).toBe(2);
    },
  );
});
