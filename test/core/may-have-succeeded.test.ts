/**
 * `mayHaveSucceeded` on the errors of a failed call: true when the service
 * may have carried out a write, false when it certainly did not and for
 * every read; OR-ed over the attempts of the call.
 */
import { describe, expect, it, onTestFinished, vi } from "vitest";
import {
  APIError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  InternalServerError,
  MedRecords,
  NotFoundError,
  RateLimitError,
  TimeoutError,
  ValidationError,
} from "../../src/index.js";
import {
  type Answer,
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
// A zero Retry-After makes each retry immediate, so no test waits out a backoff.
const now = { "retry-after": "0" };

async function failure(promise: PromiseLike<unknown>): Promise<{ mayHaveSucceeded: boolean }> {
  try {
    await promise;
  } catch (error) {
    return error as { mayHaveSucceeded: boolean };
  }
  throw new Error("expected the call to fail");
}

/** cases.create (a non-idempotent POST) answered by `answers`, with one retry allowed. */
const createWith = (answers: Answer[], extra = {}) =>
  failure(client(scriptedFetch(answers).fetch, { maxRetries: 1, ...extra }).cases.create(create));

describe("mayHaveSucceeded of a create (non-idempotent POST)", () => {
  it("is true after a timeout: the request may be carried out yet", async () => {
    const error = await createWith(["hang"], { timeoutMs: 50 });
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.mayHaveSucceeded).toBe(true);
  });

  it("is true after a connection reset, which may come after the request was sent", async () => {
    const error = await createWith([connectionError("ECONNRESET")]);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.mayHaveSucceeded).toBe(true);
  });

  it("is true after a network failure with no code to tell when it struck", async () => {
    const error = await createWith([new TypeError("fetch failed")]);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.mayHaveSucceeded).toBe(true);
  });

  it("is false after a refused connection: nothing reached the service", async () => {
    const error = await createWith([connectionError("ECONNREFUSED")], { maxRetries: 0 });
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.mayHaveSucceeded).toBe(false);
  });

  it("is false after a DNS failure, and the create is retried since nothing was sent", async () => {
    const { fetch, seen } = scriptedFetch([connectionError("ENOTFOUND")], json(201, sampleCase));
    await expect(client(fetch).cases.create(create)).resolves.toMatchObject({ id: "case_1" });
    expect(seen).toHaveLength(2);
    const error = await createWith([connectionError("ENOTFOUND")], { maxRetries: 0 });
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.mayHaveSucceeded).toBe(false);
  });

  it.each([
    [400, "validation_error", ValidationError],
    [404, "not_found", NotFoundError],
    [409, "conflict", ConflictError],
    [499, "other", APIError],
  ])("is false after a %i: the service refused the request", async (status, code, type) => {
    const error = await createWith([apiError(status, code, "no")]);
    expect(error).toBeInstanceOf(type);
    expect(error.mayHaveSucceeded).toBe(false);
  });

  it("is false after a 429, retried or not", async () => {
    const limited = () => apiError(429, "rate_limited", "slow down", now);
    const error = await createWith([limited(), limited()]);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.mayHaveSucceeded).toBe(false);
  });

  it.each([500, 502, 503, 504])("is true after a %i", async (status) => {
    const error = await createWith([apiError(status, "internal_error", "boom")]);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.mayHaveSucceeded).toBe(true);
  });

  it("is false when the SDK refused the body before sending", async () => {
    const { fetch, seen } = scriptedFetch([]);
    const error = await failure(client(fetch).cases.create({ ...create, title: "" }));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.mayHaveSucceeded).toBe(false);
    expect(seen).toHaveLength(0);
  });
});

describe("mayHaveSucceeded across the retries of one call", () => {
  it("stays true when an attempt may have acted and the last one was answered 404", async () => {
    // A PATCH is idempotent, so a 503 is retried; the 404 that follows does not undo the first attempt.
    const { fetch } = scriptedFetch([
      apiError(503, "service_unavailable", "down", now),
      apiError(404, "not_found", "gone"),
    ]);
    const error = await failure(client(fetch).cases.update("case_1", { title: "New" }));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.mayHaveSucceeded).toBe(true);
  });

  it("stays true when a DELETE timed out and its retry found nothing to delete", async () => {
    const { fetch } = scriptedFetch(["hang", apiError(404, "not_found", "gone")]);
    const error = await failure(client(fetch, { timeoutMs: 50 }).webhooks.delete("wh_1"));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.mayHaveSucceeded).toBe(true);
  });

  it("is false when every attempt was refused for certain (429, then 400)", async () => {
    const error = await createWith([
      apiError(429, "rate_limited", "slow down", now),
      apiError(400, "bad_request", "no"),
    ]);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.mayHaveSucceeded).toBe(false);
  });

  it("is false when the deadline strikes during a backoff wait after a 429", async () => {
    vi.useFakeTimers();
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const { fetch, seen } = scriptedFetch(
      [],
      apiError(429, "rate_limited", "slow down", { "retry-after": "2" }),
    );
    const call = failure(client(fetch, { deadlineMs: 500 }).cases.create(create));
    await vi.advanceTimersByTimeAsync(500);
    const error = await call;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.mayHaveSucceeded).toBe(false);
    expect(seen).toHaveLength(1);
  });
});

describe("mayHaveSucceeded of a read (GET)", () => {
  it.each<[string, Answer, typeof TimeoutError | typeof ConnectionError | typeof APIError]>([
    ["a timeout", "hang", TimeoutError],
    ["a reset", connectionError("ECONNRESET"), ConnectionError],
    ["a 500", apiError(500, "internal_error", "boom"), InternalServerError],
  ])("is false after %s on every attempt", async (_, answer, type) => {
    const { fetch, seen } = scriptedFetch([], answer);
    const error = await failure(
      client(fetch, { timeoutMs: 50, maxRetries: 1 }).cases.retrieve("case_1"),
    );
    expect(error).toBeInstanceOf(type);
    expect(error.mayHaveSucceeded).toBe(false);
    expect(seen).toHaveLength(2);
  });
});

describe("APIError constructed by hand", () => {
  it("says false unless told otherwise", () => {
    expect(new APIError({ status: 500, code: undefined, message: "x" }).mayHaveSucceeded).toBe(
      false,
    );
    const told = new InternalServerError({
      status: 500,
      code: undefined,
      message: "x",
      mayHaveSucceeded: true,
    });
    expect(told.mayHaveSucceeded).toBe(true);
  });
});
