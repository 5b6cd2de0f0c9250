import { describe, expect, it, onTestFinished, vi } from "vitest";
import {
  ConnectionError,
  InternalServerError,
  MedRecords,
  RateLimitError,
  TimeoutError,
} from "../../src/index.js";
import {
  API_KEY,
  apiError,
  BASE_URL,
  connectionError,
  json,
  sampleCase,
  scriptedFetch,
} from "../helpers/scripted-fetch.js";

const client = (fetch: typeof globalThis.fetch, extra = {}) =>
  new MedRecords({ apiKey: API_KEY, baseUrl: BASE_URL, fetch, ...extra });
const create = { title: "Doe v. Acme", client_name: "Jane Doe" };

/** Backoffs, Retry-After waits and deadlines on vitest's fake timers, for this test only. */
function useFakeClock(): void {
  vi.useFakeTimers();
  onTestFinished(() => {
    vi.useRealTimers();
  });
}

describe("retries", () => {
  it("a GET answered 503 then 200 succeeds on the second attempt", async () => {
    const { fetch, seen } = scriptedFetch([
      apiError(503, "unavailable", "down"),
      json(200, sampleCase),
    ]);
    await expect(client(fetch).cases.retrieve("case_1")).resolves.toMatchObject({ id: "case_1" });
    expect(seen).toHaveLength(2);
  });

  it("a 413 is not retried, even with Retry-After (ky's defaults would retry it)", async () => {
    const { fetch, seen } = scriptedFetch([
      apiError(413, "payload_too_large", "too large", { "retry-after": "1" }),
      json(200, sampleCase),
    ]);
    await expect(client(fetch).cases.retrieve("case_1")).rejects.toMatchObject({ status: 413 });
    expect(seen).toHaveLength(1);
  });

  it("backs off at most 8 s before jitter, however many retries", async () => {
    // Full jitter draws below the cap: with Math.random at its top the wait is the cap itself.
    useFakeClock();
    vi.spyOn(Math, "random").mockReturnValue(0.999_999);
    onTestFinished(() => {
      vi.restoreAllMocks();
    });
    const answers = Array.from({ length: 6 }, () => apiError(503, "unavailable", "down"));
    const { fetch, seen } = scriptedFetch([...answers, json(200, sampleCase)]);
    const call = client(fetch, { maxRetries: 6 }).cases.retrieve("case_1");
    // 0.5, 1, 2, 4 and 8 s, then 8 s again (16 s uncapped).
    await vi.advanceTimersByTimeAsync(500 + 1_000 + 2_000 + 4_000 + 8_000);
    expect(seen).toHaveLength(6);
    await vi.advanceTimersByTimeAsync(7_990);
    expect(seen).toHaveLength(6);
    await vi.advanceTimersByTimeAsync(10);
    expect(seen).toHaveLength(7);
    await expect(call).resolves.toMatchObject({ id: "case_1" });
  });

  it("waits out Retry-After before the next attempt, and no longer", async () => {
    // The wait is asserted to the millisecond without spending it.
    useFakeClock();
    const { fetch, seen } = scriptedFetch([
      // Longer than any first backoff without the header (at most 500 ms, full jitter).
      apiError(429, "rate_limited", "slow down", { "retry-after": "2" }),
      json(200, sampleCase),
    ]);
    const call = client(fetch).cases.retrieve("case_1");
    await vi.advanceTimersByTimeAsync(1_999);
    expect(seen).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(seen).toHaveLength(2);
    await expect(call).resolves.toMatchObject({ id: "case_1" });
  });

  it("fails at once with the wait when Retry-After exceeds maxRetryAfterMs", async () => {
    const { fetch, seen } = scriptedFetch([
      apiError(429, "rate_limited", "slow down", { "retry-after": "120" }),
    ]);
    const error = await client(fetch, { maxRetryAfterMs: 5_000 })
      .cases.retrieve("case_1")
      .catch((e) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfterSeconds).toBe(120);
    expect(seen).toHaveLength(1);
  });

  it("gives up after maxRetries and surfaces the last error", async () => {
    useFakeClock();
    const { fetch, seen } = scriptedFetch([], apiError(500, "internal_error", "boom"));
    const call = client(fetch, { maxRetries: 2 })
      .cases.retrieve("case_1")
      .catch((e) => e);
    await vi.runAllTimersAsync();
    const error = await call;
    expect(error).toBeInstanceOf(InternalServerError);
    expect(seen).toHaveLength(3);
  });

  it("a POST that times out is not sent twice", async () => {
    const { fetch, seen } = scriptedFetch(["hang"], "hang");
    const error = await client(fetch, { timeoutMs: 100 })
      .cases.create(create)
      .catch((e) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(seen).toHaveLength(1);
  });

  it("a GET that times out is retried", async () => {
    const { fetch, seen } = scriptedFetch(["hang", json(200, sampleCase)]);
    await expect(client(fetch, { timeoutMs: 100 }).cases.retrieve("case_1")).resolves.toMatchObject(
      {
        id: "case_1",
      },
    );
    expect(seen).toHaveLength(2);
  });

  it("a POST answered 429 is retried, since the service did not act", async () => {
    const { fetch, seen } = scriptedFetch([
      apiError(429, "rate_limited", "slow down", { "retry-after": "0" }),
      json(201, sampleCase),
    ]);
    await expect(client(fetch).cases.create(create)).resolves.toMatchObject({ id: "case_1" });
    expect(seen.map((s) => s.method)).toEqual(["POST", "POST"]);
  });

  it("a POST answered 503 is not retried, since the service may have acted", async () => {
    const { fetch, seen } = scriptedFetch([
      apiError(503, "unavailable", "down"),
      json(201, sampleCase),
    ]);
    await expect(client(fetch).cases.create(create)).rejects.toBeInstanceOf(InternalServerError);
    expect(seen).toHaveLength(1);
  });

  it("a POST whose connection was refused is retried", async () => {
    const { fetch, seen } = scriptedFetch([connectionError("ECONNREFUSED"), json(201, sampleCase)]);
    await expect(client(fetch).cases.create(create)).resolves.toMatchObject({ id: "case_1" });
    expect(seen).toHaveLength(2);
  });

  it("a POST whose connection was reset is not retried", async () => {
    const { fetch, seen } = scriptedFetch([connectionError("ECONNRESET"), json(201, sampleCase)]);
    const error = await client(fetch)
      .cases.create(create)
      .catch((e) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toContain("ECONNRESET");
    expect(seen).toHaveLength(1);
  });

  it("a PATCH (idempotent) is retried on 502", async () => {
    const { fetch, seen } = scriptedFetch([
      apiError(502, "bad_gateway", "x"),
      json(200, sampleCase),
    ]);
    await client(fetch).cases.update("case_1", { title: "New" });
    expect(seen.map((s) => s.method)).toEqual(["PATCH", "PATCH"]);
  });

  it("deadlineMs bounds the whole call including backoff", async () => {
    useFakeClock();
    const { fetch, seen } = scriptedFetch(
      [],
      apiError(503, "unavailable", "down", { "retry-after": "2" }),
    );
    const call = client(fetch, { deadlineMs: 500, maxRetries: 5 })
      .cases.retrieve("case_1")
      .catch((e) => e);
    await vi.advanceTimersByTimeAsync(500);
    const error = await call;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(seen).toHaveLength(1);
  });

  it("an aborted signal stops the call during backoff", async () => {
    const { fetch, seen } = scriptedFetch(
      [],
      apiError(503, "unavailable", "down", { "retry-after": "5" }),
    );
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const error = await client(fetch)
      .cases.retrieve("case_1", { signal: controller.signal })
      .catch((e) => e);
    expect(error.name).toBe("AbortError");
    expect(seen).toHaveLength(1);
  });
});
