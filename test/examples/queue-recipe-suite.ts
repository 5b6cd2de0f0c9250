/**
 * The behaviour both queue recipes (examples/pg-boss-worker.ts,
 * examples/bullmq-worker.ts) must show, run by each test file against its
 * queue engine on the shared test servers:
 *
 * - a delivery is acknowledged within the service's 5-second timeout (the
 *   reference server's own delivery records say so) while its processing,
 *   which takes longer than that, runs afterwards in a worker, once;
 * - a duplicate delivery, to this instance or another, is not enqueued
 *   twice, and an event enqueued again after its job record was removed is
 *   not processed twice (the worker's claim in the shared dedupe store);
 * - a worker failure is retried by the queue, and the event is processed once.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, expect, it, vi } from "vitest";
import type { ProcessOutcome, QueuedEvent } from "../../examples/queue-processing.js";
import { createMockService } from "../../src/mock/index.js";
import { SUBSCRIBABLE_EVENT_TYPES } from "../../src/schemas/events.js";
import { WEBHOOK_DELIVERY_TIMEOUT_MS, type WebhookDelivery } from "../../src/schemas/webhooks.js";
import { type DedupeStore, signWebhook, toNodeListener } from "../../src/webhooks/index.js";
import { createApi } from "../mock/helpers.js";
import { createRetrieval } from "../mock/retrieval-helpers.js";

/** What each engine's test file builds: the recipe under test, over its own queue and store. */
export interface RecipeUnderTest {
  handler: (request: Request) => Promise<Response>;
  enqueue: (event: QueuedEvent) => Promise<unknown>;
  startWorker: () => Promise<unknown>;
  /** How many jobs the queue holds for the event (any state). */
  jobsFor: (eventId: string) => Promise<number>;
  /** Removes the event's job record, as the queue's retention eventually does. */
  removeJob: (eventId: string) => Promise<void>;
}

export interface RecipeInput {
  secret: string;
  dedupe: DedupeStore;
  process: (event: QueuedEvent) => Promise<void>;
  onProcessed: (event: QueuedEvent, outcome: ProcessOutcome) => void;
}

export interface Engine {
  /** A dedupe store on this engine's server, unique to the test. */
  dedupe: () => Promise<DedupeStore>;
  /**
   * The recipe on a queue unique to the test (`name` tells which one: two
   * recipes of one test with the same name share the queue, as two instances do).
   */
  recipe: (input: RecipeInput, name: string) => Promise<RecipeUnderTest>;
  /** Stops every worker and connection the test opened. */
  close: () => Promise<void>;
}

const SECRET = "whsec_cXVldWUtcmVjaXBlLXRlc3Qtc2VjcmV0";

/** A retrieval request event with an id no other test uses. */
function newEvent(): QueuedEvent {
  const hex = [...crypto.getRandomValues(new Uint8Array(32))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
  return {
    id: `rr-${hex}`,
    type: "retrieval_request.status_changed",
    created_at: new Date().toISOString(),
    data: {
      retrieval_request_id: "ret_1",
      case_id: null,
      public_updated_at: new Date().toISOString(),
    },
  } as QueuedEvent;
}

async function signed(event: QueuedEvent, secret = SECRET): Promise<Request> {
  const body = JSON.stringify(event);
  const headers = await signWebhook({ payload: body, secret });
  return new Request("https://receiver.example.test/webhooks", {
    method: "POST",
    body,
    headers: { ...headers, "content-type": "application/json" },
  });
}

/** The recipe's outcomes and processing, recorded. */
function recorder() {
  const outcomes: { id: string; outcome: ProcessOutcome }[] = [];
  const processed: string[] = [];
  return {
    outcomes,
    processed,
    onProcessed: (event: QueuedEvent, outcome: ProcessOutcome) => {
      outcomes.push({ id: event.id, outcome });
    },
  };
}

const WAIT = { timeout: 25_000, interval: 100 };

export function queueRecipeSuite(makeEngine: () => Engine): void {
  let engine: Engine | undefined;
  const servers: Server[] = [];
  const open = () => {
    engine = makeEngine();
    return engine;
  };
  afterEach(async () => {
    await Promise.all(
      servers.splice(0).map(
        (s) =>
          new Promise((resolve) => {
            s.closeAllConnections();
            s.close(resolve);
          }),
      ),
    );
    await engine?.close();
    engine = undefined;
  });

  it("acknowledges the delivery within the 5 s timeout and processes the event, which takes longer, once", async () => {
    const queue = open();
    // Real deliveries over HTTP to this process, signed with the mock clock at the real time.
    const mock = createMockService({ now: new Date(), allowPrivateWebhookUrls: true });
    const api = createApi(mock, mock.apiKeys.create());
    let listener: (req: IncomingMessage, res: ServerResponse) => void = (_, res) =>
      void res.writeHead(503).end();
    const server = createServer((req, res) => listener(req, res));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const webhook = await api.post<{ id: string; secret: string }>("/v2/webhooks", {
      name: "queue",
      url: `http://127.0.0.1:${port}/webhooks/medrecords`,
      events: [...SUBSCRIBABLE_EVENT_TYPES],
    });
    expect(webhook.status).toBe(201);

    // Processing waits until the test has seen the delivery acknowledged, then
    // takes longer than the service waits for an answer.
    let release!: () => void;
    const acknowledged = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { outcomes, processed, onProcessed } = recorder();
    const recipe = await queue.recipe(
      {
        secret: webhook.body.secret,
        dedupe: await queue.dedupe(),
        process: async (event) => {
          await acknowledged;
          await sleep(WEBHOOK_DELIVERY_TIMEOUT_MS + 500);
          processed.push(event.id);
        },
        onProcessed,
      },
      "deliveries",
    );
    listener = toNodeListener(recipe.handler);
    await recipe.startWorker();

    const request = await createRetrieval(mock, api);
    mock.retrievalRequests.setStatus(request.id, { status: "processing", stage: "request_sent" });
    await mock.deliveries.flush();

    const history = await api.get<{ results: WebhookDelivery[] }>(
      `/v2/webhooks/${webhook.body.id}/deliveries`,
    );
    const deliveries = history.body.results;
    expect(deliveries.length).toBeGreaterThan(0);
    // The reference server's verdict: answered 2xx within its 5-second timeout, first try.
    for (const delivery of deliveries) {
      expect(delivery).toMatchObject({ success: true, status_code: 200, attempt: 1 });
    }
    expect(processed).toEqual([]);
    release();

    const eventIds = [...new Set(deliveries.map((d) => d.event_id))].sort();
    await vi.waitFor(() => expect([...processed].sort()).toEqual(eventIds), WAIT);
    expect(outcomes.map((o) => o.outcome)).toEqual(eventIds.map(() => "processed"));
    for (const id of eventIds) expect(await recipe.jobsFor(id)).toBe(1);
  });

  it("a duplicate delivery, to this instance or another, is enqueued and processed once", async () => {
    const queue = open();
    const dedupe = await queue.dedupe();
    const { outcomes, processed, onProcessed } = recorder();
    const input: RecipeInput = {
      secret: SECRET,
      dedupe,
      process: async (event) => void processed.push(event.id),
      onProcessed,
    };
    // Two instances of the web process: each handler keeps its own in-memory store.
    const first = await queue.recipe(input, "duplicates");
    const second = await queue.recipe(input, "duplicates");
    const event = newEvent();

    const answers = [];
    for (const handler of [first.handler, second.handler, first.handler]) {
      const response = await handler(await signed(event));
      answers.push({ status: response.status, body: await response.json() });
    }
    expect(answers).toEqual([
      { status: 200, body: { received: true } },
      { status: 200, body: { received: true } },
      { status: 200, body: { received: true, duplicate: true } },
    ]);
    expect(await first.jobsFor(event.id)).toBe(1);

    await first.startWorker();
    await second.startWorker();
    await vi.waitFor(() => expect(outcomes).toHaveLength(1), WAIT);

    // Its job record removed (retention), the event is enqueued again: the claim says done.
    await first.removeJob(event.id);
    await second.enqueue(event);
    await vi.waitFor(() => expect(outcomes).toHaveLength(2), WAIT);
    expect(outcomes).toEqual([
      { id: event.id, outcome: "processed" },
      { id: event.id, outcome: "duplicate" },
    ]);
    expect(processed).toEqual([event.id]);
  });

  it("a worker failure is retried by the queue, and the event is processed once", async () => {
    const queue = open();
    const { outcomes, processed, onProcessed } = recorder();
    let calls = 0;
    const recipe = await queue.recipe(
      {
        secret: SECRET,
        dedupe: await queue.dedupe(),
        process: async (event) => {
          calls += 1;
          if (calls === 1) throw new Error("the records system is down");
          processed.push(event.id);
        },
        onProcessed,
      },
      "failures",
    );
    const event = newEvent();
    const response = await recipe.handler(await signed(event));
    expect(response.status).toBe(200);
    await recipe.startWorker();

    await vi.waitFor(() => expect(outcomes).toHaveLength(1), WAIT);
    expect(calls).toBe(2);
    expect(outcomes).toEqual([{ id: event.id, outcome: "processed" }]);
    expect(processed).toEqual([event.id]);
  });
}
