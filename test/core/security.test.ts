import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { MedRecords, MedRecordsError, RateLimitError, type ResponseInfo } from "../../src/index.js";
import {
  API_KEY,
  apiError,
  BASE_URL,
  connectionError,
  json,
  sampleCase,
  scriptedFetch,
} from "../helpers/scripted-fetch.js";

function collectingLogger() {
  const lines: string[] = [];
  const fields: ResponseInfo[] = [];
  const log = (message: string, f: ResponseInfo) => {
    lines.push(`${message} ${JSON.stringify(f)}`);
    fields.push(f);
  };
  return { lines, fields, logger: { debug: log, info: log, warn: log, error: log } };
}

function everyRendering(error: unknown): string {
  const e = error as Error;
  return [e.message, String(e), e.stack, inspect(e, { depth: 5 }), JSON.stringify(e)].join("\n");
}

describe("the API key", () => {
  it("is refused at construction when missing, with a message that says how to pass it", () => {
    const previous = process.env.MEDRECORDS_API_KEY;
    delete process.env.MEDRECORDS_API_KEY;
    try {
      expect(() => new MedRecords({ baseUrl: BASE_URL })).toThrow(/MEDRECORDS_API_KEY/);
      expect(() => new MedRecords({ baseUrl: BASE_URL })).toThrow(MedRecordsError);
    } finally {
      if (previous !== undefined) process.env.MEDRECORDS_API_KEY = previous;
    }
  });

  it("and the base URL default to MEDRECORDS_API_KEY and MEDRECORDS_BASE_URL", async () => {
    const { fetch, seen } = scriptedFetch([json(200, sampleCase)]);
    process.env.MEDRECORDS_API_KEY = API_KEY;
    process.env.MEDRECORDS_BASE_URL = `${BASE_URL}/`;
    try {
      await new MedRecords({ fetch }).cases.retrieve("case_1");
    } finally {
      delete process.env.MEDRECORDS_API_KEY;
      delete process.env.MEDRECORDS_BASE_URL;
    }
    expect(seen[0]!.url).toBe(`${BASE_URL}/v2/cases/case_1`);
    expect(seen[0]!.headers.get("authorization")).toBe(`Bearer ${API_KEY}`);
  });

  it("appears in no error message, toString(), inspection or log line", async () => {
    const { lines, logger } = collectingLogger();
    const failures = [
      apiError(401, "invalid_api_key", "Unknown API key"),
      apiError(403, "insufficient_scope", "This API key lacks the required scope cases:write."),
      apiError(404, "not_found", "No such case"),
      apiError(500, "internal_error", `echoed ${API_KEY} by a careless server`),
      connectionError("ECONNRESET"),
    ];
    const errors: unknown[] = [];
    for (const failure of failures) {
      const { fetch } = scriptedFetch([failure], failure);
      const mr = new MedRecords({
        apiKey: API_KEY,
        baseUrl: BASE_URL,
        fetch,
        logger,
        logLevel: "debug",
        maxRetries: 0,
      });
      errors.push(await mr.cases.retrieve("case_1").catch((e) => e));
      errors.push(await mr.cases.create({ title: "", client_name: "x" }).catch((e) => e));
    }
    const { fetch } = scriptedFetch(["hang"]);
    const slow = new MedRecords({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      fetch,
      logger,
      logLevel: "debug",
      timeoutMs: 50,
      maxRetries: 0,
    });
    errors.push(await slow.cases.retrieve("case_1").catch((e) => e));

    expect(errors.every((e) => e instanceof MedRecordsError)).toBe(true);
    for (const error of errors) expect(everyRendering(error)).not.toContain(API_KEY);
    expect(errors[6]).toMatchObject({ message: expect.stringContaining("[redacted]") });
    expect(lines.length).toBeGreaterThanOrEqual(6);
    for (const line of lines) expect(line).not.toContain(API_KEY);
  });

  it("is not printed when the client itself is logged", () => {
    const mr = new MedRecords({ apiKey: API_KEY, baseUrl: BASE_URL });
    expect(inspect(mr, { depth: 10, showHidden: true })).not.toContain(API_KEY);
    expect(JSON.stringify(mr)).not.toContain(API_KEY);
  });

  it("travels only to baseUrl's origin: a next link to another origin is refused before any request", async () => {
    const { fetch, seen } = scriptedFetch([
      json(200, {
        results: [sampleCase],
        next: "https://evil.example/v2/cases?cursor=abc",
        previous: null,
      }),
    ]);
    const mr = new MedRecords({ apiKey: API_KEY, baseUrl: BASE_URL, fetch });
    const page = await mr.cases.list();
    const error = await page.getNextPage().catch((e) => e);
    expect(error).toBeInstanceOf(MedRecordsError);
    expect(error.message).toContain("https://evil.example");
    expect(seen.map((s) => new URL(s.url).origin)).toEqual([BASE_URL]);
  });

  it("is not shown by APIError.headers when the answer reflects it, and the other headers stay usable", async () => {
    const { fetch } = scriptedFetch([
      (request) => {
        const authorization = request.headers.get("authorization") ?? "";
        return apiError(429, "rate_limited", "Slow down", {
          authorization,
          "x-debug-echo": `seen ${authorization.slice("Bearer ".length)}; at edge`,
          "retry-after": "7",
        });
      },
    ]);
    const mr = new MedRecords({ apiKey: API_KEY, baseUrl: BASE_URL, fetch, maxRetries: 0 });
    const error = await mr.cases.retrieve("case_1").catch((e) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(everyRendering(error)).not.toContain(API_KEY);
    expect([...error.headers].join("\n")).not.toContain(API_KEY);
    expect(error.headers.get("authorization")).toBe("Bearer [redacted]");
    expect(error.headers.get("x-debug-echo")).toBe("seen [redacted]; at edge");
    expect(error.headers.get("x-request-id")).toBe("req_test_429");
    expect(error.headers.get("retry-after")).toBe("7");
    expect(error.retryAfterSeconds).toBe(7);
  });

  it("is not shown by requestId when the answer reflects it as X-Request-Id", async () => {
    const { fetch } = scriptedFetch([
      (request) =>
        apiError(500, "internal_error", "x", {
          "x-request-id": `req_${request.headers.get("authorization")}`,
        }),
    ]);
    const mr = new MedRecords({ apiKey: API_KEY, baseUrl: BASE_URL, fetch, maxRetries: 0 });
    const error = await mr.cases.retrieve("case_1").catch((e) => e);
    expect(error.requestId).toBe("req_Bearer [redacted]");
    expect(everyRendering(error)).not.toContain(API_KEY);
  });

  it("travels with no other credentials: a next link with user info is refused with a MedRecordsError before any request", async () => {
    const host = new URL(BASE_URL).host;
    for (const userInfo of ["user:pass@", "user@", ":pass@"]) {
      const next = `https://${userInfo}${host}/v2/cases?cursor=x`;
      const { fetch, seen } = scriptedFetch([
        json(200, { results: [sampleCase], next, previous: null }),
      ]);
      const mr = new MedRecords({ apiKey: API_KEY, baseUrl: BASE_URL, fetch });
      const page = await mr.cases.list();
      const error = await page.getNextPage().catch((e) => e);
      expect(error).toBeInstanceOf(MedRecordsError);
      expect(error).not.toBeInstanceOf(TypeError);
      expect(error.message).toContain("credentials");
      expect(everyRendering(error)).not.toContain(userInfo);
      expect(seen).toHaveLength(1);
    }
    // The same link without user info is followed.
    const { fetch, seen } = scriptedFetch([
      json(200, {
        results: [sampleCase],
        next: `https://${host}/v2/cases?cursor=x`,
        previous: null,
      }),
      json(200, { results: [], next: null, previous: null }),
    ]);
    const mr = new MedRecords({ apiKey: API_KEY, baseUrl: BASE_URL, fetch });
    await (await mr.cases.list()).getNextPage();
    expect(seen.map((s) => s.url)).toEqual([
      `${BASE_URL}/v2/cases`,
      `${BASE_URL}/v2/cases?cursor=x`,
    ]);
  });

  it("logs carry method, path template, status, request id, attempt and time, and nothing of the body or query", async () => {
    const { lines, fields: logged, logger } = collectingLogger();
    const { fetch } = scriptedFetch([apiError(503, "unavailable", "x"), json(201, sampleCase)]);
    const mr = new MedRecords({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      fetch,
      logger,
      logLevel: "info",
    });
    await mr.cases.update("case_1", { title: "Jane Doe's secret matter" });
    expect(lines).toHaveLength(2);
    const fields = logged[1]!;
    expect(fields).toMatchObject({
      method: "PATCH",
      path: "/v2/cases/{case_id}",
      status: 201,
      attempt: 2,
    });
    expect(fields.requestId).toBe("req_test_201");
    expect(typeof fields.elapsedMs).toBe("number");
    expect(lines.join("\n")).not.toMatch(/secret matter|case_1/);
  });
});
