/**
 * `mock.faults`: latency, 5xx, 429 bursts and dropped connections on the API
 * origin; duplicated, reordered and clock-skewed webhook deliveries; the
 * seeded PRNG behind them; validation of `set()`.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ConnectionError, MedRecords, RateLimitError } from "../../src/index.js";
import type { MockFaultOptions, MockService } from "../../src/mock/index.js";
import { partialOfDropped } from "../../src/mock/runtime/faults.js";
import type { Case } from "../../src/schemas/cases.js";
import type { WebhookDelivery } from "../../src/schemas/webhooks.js";
import { verifyWebhook } from "../../src/webhooks/index.js";
import { emitEventForTesting, eventLogForTesting } from "../helpers/mock-internals.js";
import {
  type Api,
  bytesOf,
  createCase,
  putBytes,
  REQUEST_ID,
  setup,
  signUpload,
} from "./helpers.js";
import { createWebhook, EVENT, statusData } from "./webhook-helpers.js";

let current: MockService | undefined;

function start(options: Parameters<typeof setup>[0] = {}) {
  const made = setup(options);
  current = made.mock;
  return made;
}

afterEach(async () => {
  current?.faults.clear();
  await current?.deliveries.flush();
  current = undefined;
});

async function caseCount(api: Api): Promise<number> {
  const page = await api.get<{ results: Case[] }>("/v2/cases?limit=100");
  expect(page.status).toBe(200);
  return page.body.results.length;
}

/** Statuses of `n` sequential GETs. */
async function statuses(api: Api, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await api.get("/v2/cases")).status);
  return out;
}

describe("errorRate", () => {
  it("0 answers every request normally", async () => {
    const { mock, api } = start();
    mock.faults.set({ errorRate: 0 });
    expect(new Set(await statuses(api, 50))).toEqual(new Set([200]));
  });

  it("1 answers every API request with a 5xx of the spec's error shape, not applied", async () => {
    const { mock, api } = start();
    mock.faults.set({ errorRate: 1 });
    const codes = new Map<number, string>();
    for (let i = 0; i < 40; i++) {
      const response = await api.post<{ error: { code: string; message: string } }>("/v2/cases", {
        title: "Doe v. Acme",
        client_name: "Jane Doe",
      });
      expect([500, 502, 503]).toContain(response.status);
      expect(response.headers.get("x-request-id")).toMatch(REQUEST_ID);
      expect(response.headers.get("content-type")).toBe("application/json");
      expect(response.body.error.message).toMatch(/mock\.faults/);
      codes.set(response.status, response.body.error.code);
    }
    expect(Object.fromEntries(codes)).toEqual({
      500: "internal_error",
      502: "bad_gateway",
      503: "service_unavailable",
    });
    mock.faults.clear();
    expect(await caseCount(api)).toBe(0);
  });

  it("errorStatuses fixes the status; errorTiming after applies the request first", async () => {
    const { mock, api } = start();
    mock.faults.set({ errorRate: 1, errorStatuses: [503], errorTiming: "after" });
    const response = await api.post("/v2/cases", { title: "Doe v. Acme", client_name: "Jane" });
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ error: { code: "service_unavailable" } });
    mock.faults.clear();
    expect(await caseCount(api)).toBe(1);
  });

  it("a seeded rate injects close to that fraction, the same requests for the same seed", async () => {
    const { mock, api } = start();
    mock.faults.set({ errorRate: 0.3, seed: 42 });
    const first = await statuses(api, 400);
    const failed = first.filter((s) => s >= 500).length;
    expect(failed).toBeGreaterThan(400 * 0.22);
    expect(failed).toBeLessThan(400 * 0.38);
    mock.faults.set({ errorRate: 0.3, seed: 42 });
    expect(await statuses(api, 400)).toEqual(first);
    mock.faults.set({ errorRate: 0.3, seed: 43 });
    expect(await statuses(api, 400)).not.toEqual(first);
  });
});

describe("rateLimitBurst", () => {
  it("answers exactly N requests 429 rate_limited with Retry-After, then serves", async () => {
    const { mock, api } = start();
    mock.faults.set({ rateLimitBurst: 3 });
    expect(mock.faults.current().rateLimitBurst).toBe(3);
    for (let i = 0; i < 3; i++) {
      const response = await api.post("/v2/cases", { title: "Doe v. Acme", client_name: "Jane" });
      expect(response.status).toBe(429);
      expect(response.body).toMatchObject({ error: { code: "rate_limited" } });
      expect(response.headers.get("retry-after")).toBe("1");
      expect(response.headers.get("x-request-id")).toMatch(REQUEST_ID);
      expect(mock.faults.current().rateLimitBurst).toBe(2 - i);
    }
    expect(await caseCount(api)).toBe(0);
    await createCase(api);
    expect(await caseCount(api)).toBe(1);
  });

  it("takes its Retry-After from retryAfterSeconds; the SDK waits it out and succeeds", async () => {
    const { mock, key } = start();
    mock.faults.set({ rateLimitBurst: 1, retryAfterSeconds: 0 });
    const mr = new MedRecords({ apiKey: key, baseUrl: mock.baseUrl, fetch: mock.fetch });
    const created = await mr.cases.create({ title: "Doe v. Acme", client_name: "Jane" });
    expect(created.id).toBeTruthy();

    mock.faults.set({ rateLimitBurst: 1, retryAfterSeconds: 7 });
    const strict = new MedRecords({
      apiKey: key,
      baseUrl: mock.baseUrl,
      fetch: mock.fetch,
      maxRetries: 0,
    });
    const error = await strict.cases.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterSeconds).toBe(7);
  });
});

describe("dropRate", () => {
  it("after handling (default): the write happened though the fetch failed", async () => {
    const { mock, api, key } = start();
    mock.faults.set({ dropRate: 1 });
    const error = await api
      .post("/v2/cases", { title: "Doe v. Acme", client_name: "Jane" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe("fetch failed");
    expect(((error as TypeError).cause as { code?: string }).code).toBe("ECONNRESET");

    // The SDK sees a connection error, and does not repeat a create.
    const mr = new MedRecords({ apiKey: key, baseUrl: mock.baseUrl, fetch: mock.fetch });
    await expect(mr.cases.create({ title: "Second", client_name: "Jane" })).rejects.toBeInstanceOf(
      ConnectionError,
    );

    mock.faults.clear();
    expect(await caseCount(api)).toBe(2);
  });

  it("handle() returns Response.error(), and partialOfDropped the real answer", async () => {
    const { mock, key } = start();
    mock.faults.set({ dropRate: 1 });
    const response = await mock.handle(
      new Request(`${mock.baseUrl}/v2/cases`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ title: "Doe v. Acme", client_name: "Jane" }),
      }),
    );
    expect(response?.type).toBe("error");
    const partial = partialOfDropped(response!);
    expect(partial?.status).toBe(201);
    expect(partial?.headers.get("x-request-id")).toMatch(REQUEST_ID);
    expect(await partial?.json()).toMatchObject({ title: "Doe v. Acme" });
    expect(partialOfDropped(new Response("x"))).toBeUndefined();
  });

  it("before handling: nothing happened and there is no partial answer", async () => {
    const { mock, api, key } = start();
    mock.faults.set({ dropRate: 1, dropTiming: "before" });
    const response = await mock.handle(
      new Request(`${mock.baseUrl}/v2/cases`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ title: "Doe v. Acme", client_name: "Jane" }),
      }),
    );
    expect(response?.type).toBe("error");
    expect(partialOfDropped(response!)).toBeUndefined();
    mock.faults.clear();
    expect(await caseCount(api)).toBe(0);
  });

  it("a 429 or a 5xx is drawn first; a drop only for the rest", async () => {
    const { mock, api } = start();
    mock.faults.set({ rateLimitBurst: 1, errorRate: 1, dropRate: 1 });
    expect((await api.get("/v2/cases")).status).toBe(429);
    expect((await api.get("/v2/cases")).status).toBeGreaterThanOrEqual(500);
    mock.faults.set({ errorRate: 0, dropRate: 1 });
    await expect(api.get("/v2/cases")).rejects.toThrow("fetch failed");
  });
});

describe("latencyMs", () => {
  it("delays each answer by real time", async () => {
    const { mock, api } = start();
    mock.faults.set({ latencyMs: 60 });
    let started = performance.now();
    expect((await api.get("/v2/cases")).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(50);

    mock.faults.set({ latencyMs: { min: 40, max: 80 } });
    started = performance.now();
    expect((await api.get("/v2/cases")).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(30);
  });

  it("an abort ends the wait and rejects the fetch with the abort reason", async () => {
    const { mock, key } = start();
    mock.faults.set({ latencyMs: 20_000 });
    const started = performance.now();
    const error = await mock
      .fetch(`${mock.baseUrl}/v2/cases`, {
        headers: { authorization: `Bearer ${key}` },
        signal: AbortSignal.timeout(20),
      })
      .catch((e: unknown) => e);
    expect((error as Error).name).toBe("TimeoutError");
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});

describe("origins", () => {
  it("leaves the storage origin alone unless includeStorage", async () => {
    const { mock, api } = start();
    const created = await createCase(api);
    const signed = await signUpload(api, created.id);
    mock.faults.set({ errorRate: 1 });
    expect((await putBytes(mock, signed.upload_url, bytesOf("%PDF-1.7"))).status).toBe(200);

    mock.faults.clear();
    const second = await signUpload(api, created.id);
    mock.faults.set({ errorRate: 1, errorStatuses: [502], includeStorage: true });
    expect((await putBytes(mock, second.upload_url, bytesOf("%PDF-1.7"))).status).toBe(502);
  });
});

describe("webhook deliveries", () => {
  async function withWebhook() {
    const made = start({ delivery: "inbox" });
    const webhook = await createWebhook(made.api);
    return { ...made, webhook };
  }

  function emit(mock: MockService, n: number) {
    return emitEventForTesting(mock, EVENT, statusData(n));
  }

  it("duplicateRate 1 POSTs each event twice with the same id and body, recorded once", async () => {
    const { mock, api, webhook } = await withWebhook();
    mock.faults.set({ duplicateRate: 1 });
    const entry = emit(mock, 1);
    await mock.deliveries.flush();
    expect(mock.deliveries.inbox.map((d) => d.eventId)).toEqual([entry.id, entry.id]);
    const [first, copy] = mock.deliveries.inbox;
    expect(copy!.body).toBe(first!.body);
    expect(copy!.headers["x-webhook-event-id"]).toBe(entry.id);
    expect(copy!.attempt).toBe(1);
    for (const delivery of mock.deliveries.inbox) {
      const verified = await verifyWebhook({
        payload: delivery.body,
        headers: delivery.headers,
        secret: webhook.secret,
      });
      expect(verified.id).toBe(entry.id);
    }
    const history = await api.get<{ results: WebhookDelivery[] }>(
      `/v2/webhooks/${webhook.id}/deliveries`,
    );
    expect(history.body.results).toHaveLength(1);
  });

  it("a seeded duplicateRate duplicates some events, reproducibly", async () => {
    const { mock } = await withWebhook();
    const run = async () => {
      mock.deliveries.inbox.length = 0;
      mock.faults.set({ duplicateRate: 0.5, seed: 7 });
      for (let n = 1; n <= 20; n++) emit(mock, n);
      await mock.deliveries.flush();
      return mock.deliveries.inbox.map((d) => d.eventId);
    };
    const first = await run();
    expect(first.length).toBeGreaterThan(20);
    expect(first.length).toBeLessThan(40);
    expect(new Set(first).size).toBe(20);
    const second = await run();
    // Event ids differ per run (new data), the pattern of copies does not.
    const pattern = (ids: string[]) => ids.map((id, i) => (i > 0 && ids[i - 1] === id ? 1 : 0));
    expect(pattern(second)).toEqual(pattern(first));
  });

  it("reorder holds deliveries until flush and sends all of them, shuffled", async () => {
    const { mock } = await withWebhook();
    mock.faults.set({ reorder: { window: 100, maxHoldMs: 60_000 }, seed: 1 });
    const emitted = Array.from({ length: 8 }, (_, i) => emit(mock, i + 1).id);
    await Promise.resolve();
    expect(mock.deliveries.inbox).toHaveLength(0);
    await mock.deliveries.flush();
    const delivered = mock.deliveries.inbox.map((d) => d.eventId);
    expect([...delivered].sort()).toEqual([...emitted].sort());
    expect(delivered).not.toEqual(emitted);
  });

  it("reorder sends a batch once the window is full, and when the hold time is up", async () => {
    const { mock } = await withWebhook();
    mock.faults.set({ reorder: { window: 3, maxHoldMs: 60_000 } });
    emit(mock, 1);
    emit(mock, 2);
    expect(mock.faults.current().reorder).toEqual({ window: 3, maxHoldMs: 60_000 });
    emit(mock, 3);
    emit(mock, 4);
    // The first three left when the window filled; flush() is only awaited, after the check.
    // Polled rather than a fixed wait: signing is asynchronous and the machine may be busy.
    await expect.poll(() => mock.deliveries.inbox.length, { timeout: 5_000 }).toBe(3);
    await mock.deliveries.flush();
    expect(mock.deliveries.inbox).toHaveLength(4);

    mock.faults.set({ reorder: { window: 100, maxHoldMs: 10 } });
    emit(mock, 5);
    await expect.poll(() => mock.deliveries.inbox.length, { timeout: 5_000 }).toBe(5);
  });

  it("set() and clear() send what a previous reorder held", async () => {
    const { mock } = await withWebhook();
    mock.faults.set({ reorder: { window: 100, maxHoldMs: 60_000 } });
    emit(mock, 1);
    emit(mock, 2);
    mock.faults.clear();
    await mock.deliveries.flush();
    expect(mock.deliveries.inbox).toHaveLength(2);
  });

  it("reorder and duplicates together lose nothing", async () => {
    const { mock } = await withWebhook();
    mock.faults.set({ reorder: { window: 4, maxHoldMs: 60_000 }, duplicateRate: 1, seed: 3 });
    const emitted = Array.from({ length: 10 }, (_, i) => emit(mock, i + 1).id);
    await mock.deliveries.flush();
    const delivered = mock.deliveries.inbox.map((d) => d.eventId);
    expect([...delivered].sort()).toEqual([...emitted, ...emitted].sort());
  });

  it("deliveryClockSkewMs shifts the signed timestamp from this machine's clock, not the delivery records", async () => {
    const { mock, api, webhook } = await withWebhook();
    // The service's clock far from the real one: the skew applies to the real time all the same.
    await mock.clock.advance("3d");
    mock.faults.set({ deliveryClockSkewMs: 301_000 });
    const before = Math.floor(Date.now() / 1000);
    emit(mock, 1);
    await mock.deliveries.flush();
    const after = Math.floor(Date.now() / 1000);
    const delivery = mock.deliveries.inbox[0]!;
    const signed = Number(delivery.headers["x-service-timestamp"]);
    expect(signed).toBeGreaterThanOrEqual(before + 301);
    expect(signed).toBeLessThanOrEqual(after + 301);
    // The signature is valid for the skewed time, and outside a receiver's 300 s tolerance.
    const verify = (now?: Date | number) =>
      verifyWebhook({
        payload: delivery.body,
        headers: delivery.headers,
        secret: webhook.secret,
        ...(now === undefined ? {} : { now }),
      });
    await expect(verify()).rejects.toThrow(/in the future/);
    await expect(verify(signed * 1000)).resolves.toMatchObject({ type: EVENT });
    const history = await api.get<{ results: WebhookDelivery[] }>(
      `/v2/webhooks/${webhook.id}/deliveries`,
    );
    expect(history.body.results[0]!.created_at).toBe(mock.clock.now().toISOString());

    // The test operation is skewed as well, backwards here, and still within tolerance.
    mock.faults.set({ deliveryClockSkewMs: -299_000 });
    const beforeTest = Math.floor(Date.now() / 1000);
    expect((await api.post(`/v2/webhooks/${webhook.id}/test`)).status).toBe(200);
    const test = mock.deliveries.inbox.at(-1)!;
    expect(Number(test.headers["x-service-timestamp"])).toBeGreaterThanOrEqual(beforeTest - 299);
    expect(Number(test.headers["x-service-timestamp"])).toBeLessThanOrEqual(
      Math.floor(Date.now() / 1000) - 299,
    );
    await expect(
      verifyWebhook({ payload: test.body, headers: test.headers, secret: webhook.secret }),
    ).resolves.toMatchObject({ type: "webhook.test" });
  });
});

describe("set, clear, current", () => {
  it("current() is plain JSON with every option, defaults filled and a seed", () => {
    const { mock } = start();
    const config = mock.faults.current();
    expect(JSON.parse(JSON.stringify(config))).toEqual(config);
    expect(config).toEqual({
      latencyMs: 0,
      errorRate: 0,
      errorStatuses: [500, 502, 503],
      errorTiming: "before",
      rateLimitBurst: 0,
      retryAfterSeconds: 1,
      dropRate: 0,
      dropTiming: "after",
      includeStorage: false,
      duplicateRate: 0,
      reorder: false,
      deliveryClockSkewMs: 0,
      seed: expect.any(Number),
    });
    expect(mock.faults.set({ reorder: true, seed: 5 })).toMatchObject({
      reorder: { window: 10, maxHoldMs: 100 },
      seed: 5,
    });
  });

  it("set() replaces the whole configuration; set(current()) replays the sequence", async () => {
    const { mock, api } = start();
    mock.faults.set({ latencyMs: 5, errorRate: 0.5 });
    mock.faults.set({ errorRate: 0.5 });
    expect(mock.faults.current().latencyMs).toBe(0);
    const saved = mock.faults.current();
    const first = await statuses(api, 30);
    mock.faults.set(saved);
    expect(await statuses(api, 30)).toEqual(first);
  });

  it("clear() restores normal behaviour", async () => {
    const { mock, api } = start();
    mock.faults.set({ errorRate: 1, rateLimitBurst: 5, latencyMs: 1 });
    mock.faults.clear();
    expect(new Set(await statuses(api, 10))).toEqual(new Set([200]));
    expect(mock.faults.current()).toMatchObject({ errorRate: 0, rateLimitBurst: 0, latencyMs: 0 });
  });

  it("reset() keeps the faults", async () => {
    const { mock, api } = start();
    mock.faults.set({ errorRate: 1, seed: 9 });
    mock.reset();
    expect(mock.faults.current()).toMatchObject({ errorRate: 1, seed: 9 });
    expect((await api.get("/v2/cases")).status).toBeGreaterThanOrEqual(500);
  });

  it("does not affect events logged by the model", async () => {
    const { mock } = start();
    mock.faults.set({ errorRate: 1, dropRate: 1 });
    emitEventForTesting(mock, EVENT, statusData(1));
    expect(eventLogForTesting(mock)).toHaveLength(1);
  });

  it.each<[string, unknown, RegExp]>([
    ["a rate above 1", { errorRate: 1.5 }, /errorRate/],
    ["a negative rate", { dropRate: -0.1 }, /dropRate/],
    ["an unknown option", { errorrate: 0.5 }, /errorrate/],
    ["a reversed latency range", { latencyMs: { min: 50, max: 10 } }, /latencyMs/],
    ["a negative latency", { latencyMs: -1 }, /latencyMs/],
    ["a fractional burst", { rateLimitBurst: 1.5 }, /rateLimitBurst/],
    ["an unknown status", { errorStatuses: [501] }, /errorStatuses/],
    ["no statuses", { errorStatuses: [] }, /errorStatuses/],
    ["a timing", { dropTiming: "during" }, /dropTiming/],
    ["a window of 1", { reorder: { window: 1 } }, /reorder/],
    ["a seed out of range", { seed: 2 ** 32 }, /seed/],
    ["a string rate", { errorRate: "0.5" }, /errorRate/],
    ["not an object", null, /options/],
  ])("set() throws a TypeError on %s", (_, input, message) => {
    const { mock } = start();
    const before = mock.faults.current();
    expect(() => mock.faults.set(input as MockFaultOptions)).toThrow(TypeError);
    expect(() => mock.faults.set(input as MockFaultOptions)).toThrow(message);
    expect(() => mock.faults.set(input as MockFaultOptions)).toThrow(/^mock\.faults\.set: /);
    expect(mock.faults.current()).toEqual(before);
  });
});
