/**
 * Webhooks through the client, with `validateResponses: true`, against the
 * reference server inside MSW: every rule at its boundary, then the full loop
 * to a real receiver built with `medrecords/webhooks`.
 */
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { HttpResponse, http } from "msw";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  ConflictError,
  InvalidRequestError,
  LimitExceededError,
  MedRecords,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ValidationError,
  type WebhookCreate,
} from "../../src/index.js";
import {
  createWebhookHandler,
  toNodeListener,
  type WebhookEvent,
} from "../../src/webhooks/index.js";
import { emitEventForTesting } from "../helpers/mock-internals.js";
import { webhookUrlOfLength } from "../helpers/webhook-url.js";
import { useReferenceServers } from "./transport.js";

const NOW = "2026-06-15T12:00:00.000Z";
const EVENT = "retrieval_request.status_changed" as const;

// Strict: private URLs refused, names never resolved for real, deliveries kept in the inbox.
// The full loop ("live"): real deliveries to a receiver on 127.0.0.1.
const {
  services: { mock, live },
  msw: server,
} = await useReferenceServers({
  mock: { now: NOW, delivery: "inbox", lookupHost: async () => [] },
  live: {
    now: NOW,
    baseUrl: "https://live.medrecords.test",
    storageUrl: "https://live-storage.medrecords.test",
    allowPrivateWebhookUrls: true,
  },
});
const apiKey = mock.apiKeys.create();
let sent: string[] = [];
const client = (options: ConstructorParameters<typeof MedRecords>[0] = {}) =>
  new MedRecords({
    apiKey,
    baseUrl: mock.baseUrl,
    validateResponses: true,
    maxRetries: 0,
    hooks: { onRequest: (info) => sent.push(`${info.method} ${info.path}`) },
    ...options,
  });
const mr = client();

beforeEach(() => {
  mock.reset();
  sent = [];
});

const x = (n: number) => "x".repeat(n);
const body = (fields: Partial<Record<keyof WebhookCreate, unknown>> = {}) =>
  ({
    name: "Records",
    url: "https://hooks.example.test/h",
    events: [EVENT],
    ...fields,
  }) as WebhookCreate;

/** POSTs a body as is, past the client's own validation. */
async function sendRaw(path: string, payload: unknown, method = "POST") {
  const response = await fetch(`${mock.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(payload),
  });
  return { status: response.status, body: (await response.json()) as { error: { code: string } } };
}

async function refusedBeforeSending(call: () => PromiseLike<unknown>) {
  const before = sent.length;
  const error = await Promise.resolve(call()).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(sent.length, "nothing was sent").toBe(before);
  return error;
}

describe("webhook rules through the client", () => {
  it("create, retrieve, list, update, delete: every response matches the spec's schema", async () => {
    const created = await mr.webhooks.create(body({ description: "status" }));
    expect(created.secret).toMatch(/^whsec_/);
    const read = await mr.webhooks.retrieve(created.id);
    expect(read.secret_hint).toBe(`...${created.secret.slice(-4)}`);
    const list = await mr.webhooks.list();
    expect(Array.isArray(list)).toBe(true);
    expect(list).toEqual([read]);
    const { data, response } = await mr.webhooks
      .update(created.id, { is_enabled: false })
      .withResponse();
    expect(response.status).toBe(200);
    expect(data.is_enabled).toBe(false);
    await expect(mr.webhooks.delete(created.id)).resolves.toBeUndefined();
    await expect(mr.webhooks.retrieve(created.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("the 20th webhook is created and the 21st is a LimitExceededError", async () => {
    for (let i = 1; i <= 20; i++) await mr.webhooks.create(body({ name: `hook ${i}` }));
    const error = await mr.webhooks.create(body({ name: "hook 21" })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LimitExceededError);
    expect(error).toMatchObject({ status: 409, code: "limit_exceeded" });
    expect(await mr.webhooks.list()).toHaveLength(20);
  });

  const lengths: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
    ["name", { name: x(100) }, { name: x(101) }],
    ["description", { description: x(500) }, { description: x(501) }],
    ["url", { url: webhookUrlOfLength(2048) }, { url: webhookUrlOfLength(2049) }],
  ];

  it.each(lengths)(
    "%s at its limit is accepted; one over is an InvalidRequestError before sending and 400 invalid_request from the server",
    async (field, ok, bad) => {
      await mr.webhooks.create(body(ok));
      const error = await refusedBeforeSending(() =>
        mr.webhooks.create(body({ name: "other", ...bad })),
      );
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect(error).not.toBeInstanceOf(ValidationError);
      expect(error).toMatchObject({ status: 400, code: "invalid_request", requestId: undefined });
      expect((error as InvalidRequestError).issues.map((i) => i.path)).toEqual([field]);

      const created = await mr.webhooks.list();
      const updateError = await refusedBeforeSending(() => mr.webhooks.update(created[0]!.id, bad));
      expect(updateError).toBeInstanceOf(InvalidRequestError);

      const raw = await sendRaw("/v2/webhooks", body({ name: "raw", ...bad }));
      expect(raw).toMatchObject({ status: 400, body: { error: { code: "invalid_request" } } });
    },
  );

  it("events [] is a ValidationError before sending and 400 validation_error from the server", async () => {
    const error = await refusedBeforeSending(() => mr.webhooks.create(body({ events: [] })));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((i) => i.path)).toEqual(["events"]);
    const raw = await sendRaw("/v2/webhooks", body({ events: [] }));
    expect(raw).toMatchObject({ status: 400, body: { error: { code: "validation_error" } } });
    const empty = await refusedBeforeSending(() => mr.webhooks.update("wh_1", {}));
    expect(empty).toBeInstanceOf(ValidationError);
  });

  it.each([
    "https://hooks.example.test/a b",
    "https://hööks.example/",
    "https://hooks.example.test/hööks",
    "https://user:pw@hooks.example.test/h",
    "ftp://hooks.example.test/h",
    "/hooks",
  ])(
    "url %s is a ValidationError before sending and 400 validation_error from the server, on create and update",
    async (url) => {
      const error = await refusedBeforeSending(() => mr.webhooks.create(body({ url })));
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues.map((i) => i.path)).toEqual(["url"]);
      const raw = await sendRaw("/v2/webhooks", body({ url }));
      expect(raw).toMatchObject({ status: 400, body: { error: { code: "validation_error" } } });

      const created = await mr.webhooks.create(body());
      expect(
        await refusedBeforeSending(() => mr.webhooks.update(created.id, { url })),
      ).toBeInstanceOf(ValidationError);
      const rawPatch = await sendRaw(`/v2/webhooks/${created.id}`, { url }, "PATCH");
      expect(rawPatch).toMatchObject({
        status: 400,
        body: { error: { code: "validation_error" } },
      });
    },
  );

  it("a percent-encoded url is sent and stored as given", async () => {
    const created = await mr.webhooks.create(body({ url: "https://hooks.example.test/a%20b" }));
    expect(created.url).toBe("https://hooks.example.test/a%20b");
  });

  it("a duplicate name is a ConflictError (not a LimitExceededError)", async () => {
    await mr.webhooks.create(body());
    const error = await mr.webhooks.create(body()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).not.toBeInstanceOf(LimitExceededError);
    expect(error).toMatchObject({ status: 409, code: "conflict" });
  });

  it.each([
    "http://127.0.0.1/h",
    "http://localhost:8080/h",
    "http://10.0.0.1/h",
    "http://169.254.169.254/h",
    "http://[fe80::1]/h",
    "http://[::ffff:127.0.0.1]/h",
    "http://2130706433/h",
    "http://0177.0.0.1/h",
  ])(
    "%s is an InvalidRequestError from the server, and accepted with allowPrivateWebhookUrls",
    async (url) => {
      const error = await mr.webhooks.create(body({ url })).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect((error as InvalidRequestError).requestId).toMatch(/^req_/);
      const liveClient = new MedRecords({
        apiKey: live.apiKeys.create(),
        baseUrl: live.baseUrl,
        validateResponses: true,
      });
      const created = await liveClient.webhooks.create(body({ name: url, url }));
      await liveClient.webhooks.delete(created.id);
    },
  );

  it("creating needs retrievals:read as well: a PermissionError naming it", async () => {
    const narrow = client({ apiKey: mock.apiKeys.create({ scopes: ["webhooks:write"] }) });
    const error = await narrow.webhooks.create(body()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PermissionError);
    expect((error as PermissionError).requiredScope).toBe("retrievals:read");
  });

  it("test: one per 10 s by the mock clock; 9.999 s is a RateLimitError with Retry-After, 10 s passes", async () => {
    const hook = await mr.webhooks.create(body());
    const first = await mr.webhooks.test(hook.id);
    expect(first).toMatchObject({ success: true, status_code: 200, error: null });

    mock.clock.advance(9_999);
    const error = await mr.webhooks.test(hook.id).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RateLimitError);
    const limited = error as RateLimitError;
    expect(limited).toMatchObject({ status: 429, code: "rate_limited", retryAfterSeconds: 1 });
    expect(limited.headers.get("retry-after")).toBe("1");

    // With retries on, a wait above maxRetryAfterMs is surfaced at once rather than slept.
    mock.clock.set(Date.parse(NOW) + 2_000);
    const patient = client({ maxRetries: 2, maxRetryAfterMs: 100 });
    sent = [];
    const surfaced = await patient.webhooks.test(hook.id).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(surfaced).toMatchObject({ retryAfterSeconds: 8 });
    expect(sent).toHaveLength(1);

    mock.clock.set(Date.parse(NOW) + 10_000);
    await expect(mr.webhooks.test(hook.id)).resolves.toMatchObject({ success: true });
    expect(mock.deliveries.inbox).toHaveLength(2);
  });

  it("deliveries are listed page by page and redelivered", async () => {
    const hook = await mr.webhooks.create(body());
    for (let n = 0; n < 3; n++) {
      mock.clock.advance("1s");
      emitEventForTesting(mock, EVENT, {
        retrieval_request_id: `rr_${n}`,
        case_id: null,
        public_updated_at: NOW,
      });
    }
    await mock.deliveries.flush();
    const ids: string[] = [];
    for await (const delivery of mr.webhooks.listDeliveries(hook.id, { limit: 2 })) {
      ids.push(delivery.event_id);
    }
    expect(ids).toHaveLength(3);
    const page = await mr.webhooks.listDeliveries(hook.id, { limit: 2 });
    expect(page.hasNextPage()).toBe(true);
    const again = await mr.webhooks.redeliver(hook.id, page.results[0]!.id);
    expect(again).toMatchObject({ event_id: ids[0], is_redelivery: true, success: true });
    const error = await refusedBeforeSending(() =>
      mr.webhooks.listDeliveries(hook.id, { limit: 101 }),
    );
    expect(error).toBeInstanceOf(ValidationError);
  });
});

describe("full loop: the reference server delivers to a receiver built with medrecords/webhooks", () => {
  let receiver: Server;
  let receiverUrl: string;
  let listener: RequestListener | undefined;

  beforeAll(async () => {
    receiver = createServer((req, res) => listener?.(req, res));
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
  });
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        receiver.closeAllConnections();
        receiver.close(() => resolve());
      }),
  );

  it("every delivery verifies; a failing handler gets the event again 1 minute later", async () => {
    const liveMr = new MedRecords({
      apiKey: live.apiKeys.create(),
      baseUrl: live.baseUrl,
      validateResponses: true,
    });
    const hook = await liveMr.webhooks.create(body({ name: "loop", url: receiverUrl }));
    const handled: WebhookEvent[] = [];
    const failures: string[] = [];
    let failNext = false;
    listener = toNodeListener(
      createWebhookHandler({
        secret: hook.secret,
        onError: (_, { stage }) => failures.push(stage),
        on: {
          "retrieval_request.status_changed": (event) => {
            if (failNext) {
              failNext = false;
              throw new Error("database down");
            }
            handled.push(event);
          },
        },
      }),
    );

    // The test operation: verified and acknowledged.
    await expect(liveMr.webhooks.test(hook.id)).resolves.toMatchObject({
      success: true,
      status_code: 200,
    });

    const data = { retrieval_request_id: "rr_1", case_id: "case_1", public_updated_at: NOW };
    const entry = emitEventForTesting(live, EVENT, data);
    await live.deliveries.flush();
    expect(handled).toEqual([{ id: entry.id, type: EVENT, created_at: entry.created_at, data }]);

    // A handler failure answers 500; the engine retries at +1 min and the receiver processes it then.
    failNext = true;
    const second = emitEventForTesting(live, EVENT, { ...data, retrieval_request_id: "rr_2" });
    await live.deliveries.flush();
    expect(handled).toHaveLength(1);
    expect((await liveMr.webhooks.retrieve(hook.id)).last_failure).toMatchObject({
      status_code: 500,
    });
    live.clock.advance("1m");
    await live.deliveries.flush();
    expect(handled.map((e) => e.id)).toEqual([entry.id, second.id]);
    expect(failures).toEqual(["handler"]);

    // A redelivery of an already processed event is acknowledged as a duplicate.
    const [latest] = (await liveMr.webhooks.listDeliveries(hook.id, { limit: 1 })).results;
    await expect(liveMr.webhooks.redeliver(hook.id, latest!.id)).resolves.toMatchObject({
      success: true,
    });
    expect(handled).toHaveLength(2);
    const health = await liveMr.webhooks.retrieve(hook.id);
    expect(health).toMatchObject({ consecutive_failures: 0, is_enabled: true });

    // A webhook whose secret the receiver does not know: refused with 400, a failed attempt.
    const stranger = await liveMr.webhooks.create(body({ name: "stranger", url: receiverUrl }));
    const refused = await liveMr.webhooks.test(stranger.id);
    expect(refused).toMatchObject({ success: false, status_code: 400 });
    expect(failures).toEqual(["handler", "verify"]);
  });

  it("MSW can stand in for the receiver too", async () => {
    const liveMr = new MedRecords({
      apiKey: live.apiKeys.create(),
      baseUrl: live.baseUrl,
      validateResponses: true,
    });
    const seen: string[] = [];
    server.use(
      http.post("https://receiver.example.test/hook", async ({ request }) => {
        seen.push(request.headers.get("x-webhook-event-type") ?? "");
        return HttpResponse.json({ ok: true });
      }),
    );
    const hook = await liveMr.webhooks.create(
      body({ name: "msw", url: "https://receiver.example.test/hook" }),
    );
    await expect(liveMr.webhooks.test(hook.id)).resolves.toMatchObject({ success: true });
    expect(seen).toEqual(["webhook.test"]);
  });
});
