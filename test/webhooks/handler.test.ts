import { describe, expect, it, vi } from "vitest";
import {
  createWebhookHandler,
  type DedupeStore,
  memoryDedupeStore,
  StoreUnavailableError,
  type WebhookErrorContext,
  WebhookVerificationError,
} from "../../src/webhooks/index.js";
import { nestedJson, VERY_DEEP } from "../helpers/nested-json.js";
import {
  documentsAvailable,
  NOW_MS,
  nodeSignedHeaders,
  SECRET,
  statusChanged,
  TS,
  webhookTest,
} from "./fixtures.js";

const URL_ = "https://receiver.example/webhooks/medrecords";

function delivery(event: object, options: { ts?: number; secret?: string } = {}): Request {
  const body = JSON.stringify(event);
  return new Request(URL_, {
    method: "POST",
    body,
    headers: { "content-type": "application/json", ...nodeSignedHeaders(body, options) },
  });
}

function setup(on: Parameters<typeof createWebhookHandler>[0]["on"], dedupe?: DedupeStore) {
  const errors: Array<{ error: unknown; context: WebhookErrorContext }> = [];
  const handler = createWebhookHandler({
    secret: SECRET,
    on,
    dedupe,
    now: () => NOW_MS,
    onError: (error, context) => errors.push({ error, context }),
  });
  return { handler, errors };
}

describe("createWebhookHandler", () => {
  it("runs the handler of the event's type with the typed event and answers 200", async () => {
    const seen: string[] = [];
    const { handler } = setup({
      "retrieval_request.status_changed": (event, { request }) => {
        seen.push(`${event.data.retrieval_request_id} ${request.method}`);
      },
    });
    const response = await handler(delivery(statusChanged));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true });
    expect(seen).toEqual(["rr_01J9Z POST"]);
  });

  it("refuses (400) a delivery signed now when its `now` disagrees with this machine's clock, and the error says to remove `now`", async () => {
    const errors: unknown[] = [];
    const fn = vi.fn();
    const handler = createWebhookHandler({
      secret: SECRET,
      on: { "retrieval_request.status_changed": fn },
      // A test kit's clock two hours ahead of this machine's, as after advance("2h").
      now: () => Date.now() + 7_200_000,
      onError: (error) => errors.push(error),
    });
    const response = await handler(delivery(statusChanged, { ts: Math.floor(Date.now() / 1000) }));
    expect(response.status).toBe(400);
    expect(fn).not.toHaveBeenCalled();
    const error = errors[0] as WebhookVerificationError;
    expect(error.reason).toBe("timestamp_out_of_tolerance");
    expect(error.message).toContain("remove the `now` option");
    // Without `now`, the same delivery is taken.
    const plain = createWebhookHandler({
      secret: SECRET,
      on: { "retrieval_request.status_changed": fn },
    });
    const taken = await plain(delivery(statusChanged, { ts: Math.floor(Date.now() / 1000) }));
    expect(taken.status).toBe(200);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it("acknowledges a duplicate delivery with 200 and runs the handler once", async () => {
    const fn = vi.fn();
    const { handler } = setup({ "retrieval_request.status_changed": fn });
    expect((await handler(delivery(statusChanged))).status).toBe(200);
    // A retry carries the same id with a new timestamp and signature.
    const again = await handler(delivery(statusChanged, { ts: TS + 60 }));
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it("answers 500 when the handler throws, and processes the service's retry of that event", async () => {
    let attempts = 0;
    const { handler, errors } = setup({
      "retrieval_request.documents_available": async () => {
        attempts++;
        if (attempts === 1) throw new Error("database down");
      },
    });
    const failed = await handler(delivery(documentsAvailable));
    expect(failed.status).toBe(500);
    expect(await failed.text()).not.toContain("database down");
    expect(errors).toHaveLength(1);
    expect(errors[0]?.context.stage).toBe("handler");
    expect(errors[0]?.context.event?.id).toBe(documentsAvailable.id);

    const retry = await handler(delivery(documentsAvailable, { ts: TS + 60 }));
    expect(retry.status).toBe(200);
    expect(await retry.json()).toEqual({ received: true });
    expect(attempts).toBe(2);
  });

  it("answers 400 without detail on a bad signature and gives the reason to onError", async () => {
    const fn = vi.fn();
    const { handler, errors } = setup({ "retrieval_request.status_changed": fn });
    const body = JSON.stringify(statusChanged);
    const response = await handler(
      new Request(URL_, {
        method: "POST",
        body,
        headers: nodeSignedHeaders(body, { secret: "whsec_wrong" }),
      }),
    );
    expect(response.status).toBe(400);
    expect(await response.text()).toBe('{"error":"invalid_webhook"}');
    expect(fn).not.toHaveBeenCalled();
    const [failure] = errors;
    expect(failure?.context.stage).toBe("verify");
    expect(failure?.error).toBeInstanceOf(WebhookVerificationError);
    expect((failure?.error as WebhookVerificationError | undefined)?.reason).toBe(
      "signature_mismatch",
    );
  });

  it("answers 400 to a body nested 100 000 deep under a wrong signature, with a WebhookVerificationError", async () => {
    const { handler, errors } = setup({});
    const response = await handler(
      new Request(URL_, {
        method: "POST",
        body: nestedJson(VERY_DEEP, "arrays"),
        headers: nodeSignedHeaders(JSON.stringify(statusChanged)),
      }),
    );
    expect(response.status).toBe(400);
    expect(await response.text()).toBe('{"error":"invalid_webhook"}');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.error).toBeInstanceOf(WebhookVerificationError);
    expect(errors[0]?.error).toMatchObject({ reason: "signature_mismatch" });
  });

  it("answers 400 the same way for a stale timestamp or a missing header", async () => {
    const { handler, errors } = setup({});
    const stale = await handler(delivery(statusChanged, { ts: TS - 3600 }));
    const unsigned = await handler(
      new Request(URL_, { method: "POST", body: JSON.stringify(statusChanged) }),
    );
    for (const response of [stale, unsigned]) {
      expect(response.status).toBe(400);
      expect(await response.text()).toBe('{"error":"invalid_webhook"}');
    }
    expect(errors.map((e) => (e.error as WebhookVerificationError).reason)).toEqual([
      "timestamp_out_of_tolerance",
      "missing_header",
    ]);
  });

  it("answers 200 to webhook.test without running any handler or claiming its id", async () => {
    const fn = vi.fn();
    const claim = vi.fn(async () => ({ state: "done" as const }));
    const { handler } = setup(
      { "retrieval_request.status_changed": fn, "retrieval_request.action_required": fn },
      { claim, complete: vi.fn(), release: vi.fn() },
    );
    const response = await handler(delivery(webhookTest));
    expect(response.status).toBe(200);
    expect(fn).not.toHaveBeenCalled();
    expect(claim).not.toHaveBeenCalled();
  });

  it("acknowledges an event type without a handler, including types this version does not know", async () => {
    const claim = vi.fn(async () => ({ state: "done" as const }));
    const { handler } = setup({}, { claim, complete: vi.fn(), release: vi.fn() });
    expect((await handler(delivery(statusChanged))).status).toBe(200);
    expect((await handler(delivery({ ...statusChanged, type: "case.created" }))).status).toBe(200);
    expect((await handler(delivery({ ...statusChanged, type: "constructor" }))).status).toBe(200);
    expect(claim).not.toHaveBeenCalled();
  });

  it("answers 405 to anything but POST", async () => {
    const { handler } = setup({});
    const response = await handler(new Request(URL_));
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
  });

  it("answers 503 store_unavailable when the store's claim fails, naming the store, without running the handler", async () => {
    const fn = vi.fn();
    const { handler, errors } = setup(
      { "retrieval_request.status_changed": fn },
      {
        claim: async () => {
          throw new Error("redis unreachable");
        },
        complete: async () => undefined,
        release: async () => undefined,
      },
    );
    const response = await handler(delivery(statusChanged));
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ error: "store_unavailable" });
    expect(fn).not.toHaveBeenCalled();
    expect(errors[0]?.context.stage).toBe("dedupe");
    const error = errors[0]?.error;
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error).toMatchObject({ operation: "claim", store: expect.stringMatching(/dedupe/) });
    expect((error as Error).cause).toEqual(new Error("redis unreachable"));
  });

  it("answers 503 when complete fails after the handler ran, and the retry processes the event again", async () => {
    const inner = memoryDedupeStore();
    let completeFails = true;
    const dedupe: DedupeStore = {
      claim: (id) => inner.claim(id),
      release: (id, token) => inner.release(id, token),
      complete: async (id, token, ttl) => {
        if (completeFails) throw new Error("connection reset");
        await inner.complete(id, token, ttl);
      },
    };
    const fn = vi.fn();
    const { handler, errors } = setup({ "retrieval_request.status_changed": fn }, dedupe);
    const failed = await handler(delivery(statusChanged));
    expect(failed.status).toBe(503);
    expect(await failed.json()).toEqual({ error: "store_unavailable" });
    expect(errors.map((e) => e.context.stage)).toEqual(["complete"]);
    expect(errors[0]?.error).toBeInstanceOf(StoreUnavailableError);

    completeFails = false;
    const retry = await handler(delivery(statusChanged, { ts: TS + 60 }));
    expect(await retry.json()).toEqual({ received: true });
    expect(fn).toHaveBeenCalledTimes(2);
    const duplicate = await handler(delivery(statusChanged, { ts: TS + 120 }));
    expect(await duplicate.json()).toEqual({ received: true, duplicate: true });
    expect(fn).toHaveBeenCalledTimes(2);
  });

  it("answers 409 in_progress while the id is being processed elsewhere, and 200 once that processing is done", async () => {
    const dedupe = memoryDedupeStore();
    const elsewhere = await dedupe.claim(statusChanged.id);
    const fn = vi.fn();
    const { handler } = setup({ "retrieval_request.status_changed": fn }, dedupe);
    const busy = await handler(delivery(statusChanged));
    expect(busy.status).toBe(409);
    expect(await busy.json()).toEqual({ error: "in_progress" });
    expect(fn).not.toHaveBeenCalled();

    if (elsewhere.state !== "claimed") throw new Error("expected a claim");
    await dedupe.complete(statusChanged.id, elsewhere.token, 60);
    const after = await handler(delivery(statusChanged, { ts: TS + 60 }));
    expect(after.status).toBe(200);
    expect(await after.json()).toEqual({ received: true, duplicate: true });
    expect(fn).not.toHaveBeenCalled();
  });

  it("a concurrent delivery while the handler runs answers 409; the id is done only after the handler resolved", async () => {
    let finish = () => {};
    const running = new Promise<void>((resolve) => {
      finish = resolve;
    });
    let started = () => {};
    const hasStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const { handler } = setup({
      "retrieval_request.status_changed": async () => {
        started();
        await running;
      },
    });
    const first = handler(delivery(statusChanged));
    await hasStarted;
    expect((await handler(delivery(statusChanged, { ts: TS + 1 }))).status).toBe(409);
    finish();
    expect(await (await first).json()).toEqual({ received: true });
    expect(await (await handler(delivery(statusChanged, { ts: TS + 2 }))).json()).toEqual({
      received: true,
      duplicate: true,
    });
  });

  it("refuses a store written for the one-phase interface with a TypeError saying what changed (500), and gives its claim back", async () => {
    const released: string[] = [];
    const old = {
      claim: async () => true,
      release: async (id: string) => {
        released.push(id);
      },
    } as unknown as DedupeStore;
    const fn = vi.fn();
    const { handler, errors } = setup({ "retrieval_request.status_changed": fn }, old);
    expect((await handler(delivery(statusChanged))).status).toBe(500);
    expect(fn).not.toHaveBeenCalled();
    expect(errors[0]?.error).toBeInstanceOf(TypeError);
    expect(errors[0]?.error).toMatchObject({ message: expect.stringMatching(/one-phase/) });
    expect(released).toEqual([statusChanged.id]);
  });

  it("shares one store: an id completed elsewhere (e.g. by the poller) is a duplicate", async () => {
    const dedupe = memoryDedupeStore();
    const claim = await dedupe.claim(statusChanged.id);
    if (claim.state !== "claimed") throw new Error("expected a claim");
    await dedupe.complete(statusChanged.id, claim.token, 60);
    const fn = vi.fn();
    const { handler } = setup({ "retrieval_request.status_changed": fn }, dedupe);
    expect(await (await handler(delivery(statusChanged))).json()).toMatchObject({
      duplicate: true,
    });
    expect(fn).not.toHaveBeenCalled();
  });

  it("answers the same when onError itself throws", async () => {
    const handler = createWebhookHandler({
      secret: SECRET,
      on: {},
      now: () => NOW_MS,
      onError: () => {
        throw new Error("logger broken");
      },
    });
    const response = await handler(new Request(URL_, { method: "POST", body: "{}" }));
    expect(response.status).toBe(400);
  });

  it("answers 500 and tells onError when a middleware already read the body", async () => {
    const { handler, errors } = setup({});
    const request = delivery(statusChanged);
    await request.text();
    expect((await handler(request)).status).toBe(500);
    expect(String(errors[0]?.error)).toContain("already read");
  });

  it("refuses to start without a secret", () => {
    for (const secret of ["", [], [" "]]) {
      expect(() => createWebhookHandler({ secret, on: {} })).toThrow(TypeError);
    }
  });
});
