import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { ConnectionError, MedRecords, MedRecordsError, TimeoutError } from "../../src/index.js";
import {
  API_KEY,
  BASE_URL,
  connectionError,
  json,
  sampleCase,
  scriptedFetch,
} from "../helpers/scripted-fetch.js";

const client = (fetch: typeof globalThis.fetch, extra = {}) =>
  new MedRecords({ apiKey: API_KEY, baseUrl: BASE_URL, fetch, maxRetries: 0, ...extra });

describe("error hierarchy", () => {
  it("a timeout is a ConnectionError, so one catch branch sees every failure without a response", async () => {
    const { fetch } = scriptedFetch(["hang"]);
    const error = await client(fetch, { timeoutMs: 50 })
      .cases.retrieve("case_1")
      .catch((e) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toBeInstanceOf(MedRecordsError);
    expect(error.name).toBe("TimeoutError");
  });

  it("a connection failure keeps the transport's error as its cause, system code included", async () => {
    const failure = connectionError("ECONNRESET");
    const { fetch } = scriptedFetch([failure]);
    const error = await client(fetch)
      .cases.retrieve("case_1")
      .catch((e) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(TimeoutError);
    expect(error.cause).toBe(failure);
    expect((error.cause as Error).cause).toMatchObject({ code: "ECONNRESET" });
  });

  it("an error with its cause, printed, shows neither the key nor the identifier in the path", async () => {
    const { fetch } = scriptedFetch([connectionError("ECONNREFUSED")]);
    const error = await client(fetch)
      .cases.retrieve("case_CANARY_ID")
      .catch((e) => e);
    const printed = inspect(error, { depth: 10 });
    expect(printed).toContain("ECONNREFUSED");
    expect(printed).not.toContain(API_KEY);
    expect(printed).not.toContain("case_CANARY_ID");
  });

  it("the caller's own AbortSignal.timeout rejects with its DOMException, not the SDK's TimeoutError", async () => {
    const { fetch, seen } = scriptedFetch(["hang"], json(200, sampleCase));
    const error = await client(fetch, { maxRetries: 2 })
      .cases.retrieve("case_1", { signal: AbortSignal.timeout(20) })
      .catch((e) => e);
    expect(error.name).toBe("TimeoutError");
    expect(error).toBeInstanceOf(DOMException);
    expect(error).not.toBeInstanceOf(TimeoutError);
    // Cancelled by the caller: not retried.
    expect(seen).toHaveLength(1);
  });
});
