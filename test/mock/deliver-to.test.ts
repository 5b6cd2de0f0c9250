/**
 * In-process deliveries (`createMockService({ deliverTo })`, the test kit's
 * `deliverTo`) and what `deliveries.flush()` tells (DESIGN 11.1).
 */
import { createServer } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createMockService } from "../../src/mock/index.js";
import { FLUSH_FAILURES_KEPT } from "../../src/mock/runtime/delivery-runtime.js";
import { createWebhookHandler, verifyWebhook } from "../../src/webhooks/index.js";
import { createMockServiceForTesting, eventLogForTesting } from "../helpers/mock-internals.js";
import { createApi, START } from "./helpers.js";
import { createRetrieval } from "./retrieval-helpers.js";
import { startReceiver } from "./webhook-helpers.js";

afterEach(() => {
  vi.restoreAllMocks();
});

const STATUS = "retrieval_request.status_changed";

async function webhookOn(mock: ReturnType<typeof createMockService>, url: string) {
  const api = createApi(mock, mock.apiKeys.create());
  const hook = await api.post<{ id: string; secret: string }>("/v2/webhooks", {
    name: `hook ${url}`,
    url,
    events: [STATUS],
  });
  expect(hook.status).toBe(201);
  const r = await createRetrieval(mock, api);
  return { api, hook: hook.body, r };
}

describe("createMockService({ deliverTo })", () => {
  it("hands every delivery to the handler in-process, signed, whatever the URL; nothing goes over fetch", async () => {
    const network = vi.spyOn(globalThis, "fetch");
    const seen: Request[] = [];
    let secret = "";
    const handler = async (request: Request) => {
      seen.push(request.clone());
      // No `now`: the mock signs with this machine's clock, whatever its own says.
      const handle = createWebhookHandler({ secret, on: { [STATUS]: () => {} } });
      return handle(request);
    };
    const lookups: string[] = [];
    const mock = createMockService({
      now: START,
      deliverTo: handler,
      lookupHost: async (host) => {
        lookups.push(host);
        return ["93.184.215.14"];
      },
    });
    // A name that would be looked up (not reserved for testing): in-process, it never is.
    const { hook, r } = await webhookOn(mock, "https://app.my-firm.com/webhooks");
    secret = hook.secret;
    mock.clock.advance("2h");
    mock.retrievalRequests.setStatus(r.id, { status: "processing", stage: "request_sent" });
    expect(await mock.deliveries.flush()).toEqual({ attempted: 1, succeeded: 1, failed: [] });
    expect(network).not.toHaveBeenCalled();
    expect(lookups).toEqual([]);
    const [request] = seen as [Request];
    expect(request.url).toBe("https://app.my-firm.com/webhooks");
    expect(request.method).toBe("POST");
    const event = await verifyWebhook({
      payload: await request.text(),
      headers: request.headers,
      secret,
    });
    expect(event.type).toBe(STATUS);
    // Signed with this machine's time; the body keeps the service's (2 h ahead).
    expect(
      Math.abs(Number(request.headers.get("x-service-timestamp")) - Date.now() / 1000),
    ).toBeLessThan(60);
    expect(event.created_at).toBe(mock.clock.now().toISOString());
  });

  it("records the handler's answer as the receiver's, retries on the spec's schedule, and reports each failure", async () => {
    let status = 500;
    const mock = createMockService({
      now: START,
      deliverTo: () =>
        new Response(status === 204 ? null : "a body flush never reports", { status }),
    });
    const { api, hook, r } = await webhookOn(mock, "https://app.example.test/webhooks");
    mock.retrievalRequests.setStatus(r.id, { status: "processing", stage: "request_sent" });
    const failed = await mock.deliveries.flush();
    expect(failed).toEqual({
      attempted: 1,
      succeeded: 0,
      failed: [
        {
          webhook_id: hook.id,
          event_id: expect.stringMatching(/^rr-/),
          event_type: STATUS,
          attempt: 1,
          attempted_at: START,
          status_code: 500,
          error: "HTTP 500",
          receiver_error: null,
          hint: expect.stringContaining("look at its log"),
        },
      ],
    });
    expect(JSON.stringify(failed)).not.toContain("a body");
    status = 204;
    mock.clock.advance("1m");
    expect(await mock.deliveries.flush()).toEqual({ attempted: 1, succeeded: 1, failed: [] });
    const deliveries = await api.get<{ results: { status_code: number; attempt: number }[] }>(
      `/v2/webhooks/${hook.id}/deliveries`,
    );
    expect(deliveries.body.results.map((d) => [d.attempt, d.status_code])).toEqual([
      [2, 204],
      [1, 500],
    ]);
    // Nothing more to report: a flush tells what finished since the previous one.
    expect(await mock.deliveries.flush()).toEqual({ attempted: 0, succeeded: 0, failed: [] });
  });

  it("a receiver on this machine's clock after the mock's moved 2 h takes every delivery (no `now` needed)", async () => {
    let secret = "";
    const seen: string[] = [];
    const mock = createMockService({
      deliverTo: (request) =>
        createWebhookHandler({ secret, on: { [STATUS]: (event) => void seen.push(event.id) } })(
          request,
        ),
    });
    const { hook, r } = await webhookOn(mock, "https://app.example.test/webhooks");
    secret = hook.secret;
    await mock.clock.advance("2h");
    mock.retrievalRequests.setStatus(r.id, { status: "processing", stage: "request_sent" });
    expect(await mock.deliveries.flush()).toEqual({ attempted: 1, succeeded: 1, failed: [] });
    expect(seen).toHaveLength(1);
  });

  it("a receiver given the mock's clock as `now` is refused after advance: the failure names the receiver's clock, the log says remove `now`", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    let secret = "";
    const mock = createMockService({
      deliverTo: (request) =>
        createWebhookHandler({
          secret,
          on: { [STATUS]: () => {} },
          now: () => mock.clock.now().getTime(),
        })(request),
    });
    const { hook, r } = await webhookOn(mock, "https://app.example.test/webhooks");
    secret = hook.secret;
    await mock.clock.advance("2h");
    mock.retrievalRequests.setStatus(r.id, { status: "processing", stage: "request_sent" });
    const { failed } = await mock.deliveries.flush();
    expect(failed).toMatchObject([
      { status_code: 400, error: "HTTP 400", receiver_error: "invalid_webhook" },
    ]);
    expect(failed[0]?.hint).toContain("remove any `now` option");
    expect(failed[0]?.hint).toContain("this machine's clock");
    const line = String(errors.mock.calls[0]?.[0]);
    expect(line).toContain("timestamp_out_of_tolerance");
    expect(line).toContain("remove the `now` option");
  });

  it("keeps the newest FLUSH_FAILURES_KEPT failures between flushes, counting every attempt", async () => {
    const mock = createMockService({
      now: START,
      deliverTo: () => new Response(null, { status: 500 }),
    });
    const { r } = await webhookOn(mock, "https://app.example.test/webhooks");
    const total = FLUSH_FAILURES_KEPT + 1;
    for (let i = 0; i < total; i++) {
      mock.retrievalRequests.setStatus(r.id, { status: "processing", stage: "request_sent" });
    }
    const events = eventLogForTesting(mock).filter((e) => e.type === STATUS);
    const result = await mock.deliveries.flush();
    expect(result.attempted).toBe(total);
    expect(result.failed).toHaveLength(FLUSH_FAILURES_KEPT);
    // The oldest failure went; the newest stayed.
    expect(result.failed[0]?.event_id).toBe(events[1]?.id);
    expect(result.failed.at(-1)?.event_id).toBe(events.at(-1)?.id);
  });

  it("reports a handler that throws, with no status", async () => {
    const mock = createMockService({
      now: START,
      deliverTo: () => {
        throw new Error("receiver bug");
      },
    });
    const { r } = await webhookOn(mock, "https://app.example.test/webhooks");
    mock.retrievalRequests.setStatus(r.id, { status: "processing", stage: "request_sent" });
    const { failed } = await mock.deliveries.flush();
    expect(failed).toMatchObject([{ status_code: null, error: "handler threw: receiver bug" }]);
  });

  it("times out a handler that never answers, as over the network", async () => {
    const mock = createMockServiceForTesting({
      now: START,
      deliveryTimeoutMs: 100,
      deliverTo: () => new Promise<Response>(() => {}),
    });
    const { r } = await webhookOn(mock, "https://app.example.test/webhooks");
    mock.retrievalRequests.setStatus(r.id, { status: "processing", stage: "request_sent" });
    const { failed } = await mock.deliveries.flush();
    expect(failed).toMatchObject([{ status_code: null, error: "timeout" }]);
  });

  it("is refused beside delivery: 'inbox', and when not a function", () => {
    expect(() => createMockService({ delivery: "inbox", deliverTo: () => new Response() })).toThrow(
      /inbox/,
    );
    expect(() => createMockService({ deliverTo: "http://x" as never })).toThrow(/Fetch-style/);
  });
});

describe("deliveries.flush() over the network", () => {
  it("names a refused connection and an answer that is not 2xx, never a body", async () => {
    // A port nobody listens on: taken, then freed.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port: p } = server.address() as { port: number };
        server.close(() => resolve(p));
      });
    });
    const receiver = await startReceiver(503);
    try {
      const mock = createMockService({ now: START, allowPrivateWebhookUrls: true });
      const closed = await webhookOn(mock, `http://127.0.0.1:${port}/hook`);
      await webhookOn(mock, receiver.url);
      mock.retrievalRequests.setStatus(closed.r.id, {
        status: "processing",
        stage: "request_sent",
      });
      const result = await mock.deliveries.flush();
      expect(result.attempted).toBe(2);
      expect(result.succeeded).toBe(0);
      expect(result.failed.map((f) => [f.status_code, f.error])).toEqual(
        expect.arrayContaining([
          [503, "HTTP 503"],
          [null, "connection refused"],
        ]),
      );
      expect(JSON.stringify(result)).not.toContain("must never be reported");
      // Its refusal is not a JSON code, so nothing of it is kept.
      expect(result.failed.map((f) => f.receiver_error)).toEqual([null, null]);
    } finally {
      await receiver.close();
    }
  });
});
