import { afterEach, describe, expect, it, vi } from "vitest";
import { type LogLevel, MedRecords } from "../../src/index.js";
import {
  API_KEY,
  apiError,
  BASE_URL,
  connectionError,
  json,
  sampleCase,
  scriptedFetch,
} from "../helpers/scripted-fetch.js";

type Level = Exclude<LogLevel, "off">;

/** A logger that keeps every call as `level line` and the fields it was given. */
function recordingLogger() {
  const lines: string[] = [];
  const fields: unknown[] = [];
  const at = (level: Level) => (line: string, f?: unknown) => {
    lines.push(`${level} ${line}`);
    fields.push(f);
  };
  return {
    lines,
    fields,
    logger: { error: at("error"), warn: at("warn"), info: at("info"), debug: at("debug") },
  };
}

const client = (fetch: typeof globalThis.fetch, extra = {}) =>
  new MedRecords({ apiKey: API_KEY, baseUrl: BASE_URL, fetch, ...extra });

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe("logging", () => {
  it("at info: one concise line per call, with method, path template, status, time, request id and attempt", async () => {
    const { lines, fields, logger } = recordingLogger();
    const { fetch } = scriptedFetch([json(200, sampleCase)]);
    await client(fetch, { logger, logLevel: "info" }).cases.retrieve("case_1");
    expect(lines).toEqual([
      expect.stringMatching(
        /^info medrecords: GET \/v2\/cases\/\{case_id\} 200 in \d+ ms \(request req_test_200, attempt 1\)$/,
      ),
    ]);
    expect(fields[0]).toMatchObject({
      method: "GET",
      path: "/v2/cases/{case_id}",
      status: 200,
      requestId: "req_test_200",
      attempt: 1,
    });
  });

  it("retries are warnings, a call that ends without an answer is an error, and debug adds each attempt", async () => {
    const { lines, logger } = recordingLogger();
    const failure = connectionError("ECONNRESET");
    const { fetch } = scriptedFetch([apiError(503, "unavailable", "down"), failure, failure]);
    await client(fetch, { logger, logLevel: "debug", maxRetries: 2 })
      .cases.retrieve("case_1")
      .catch(() => undefined);
    expect(lines.map((l) => l.replace(/\d+ ms/, "N ms"))).toEqual([
      "debug medrecords: GET /v2/cases/{case_id} sending (attempt 1)",
      "warn medrecords: GET /v2/cases/{case_id} 503 in N ms (request req_test_503, attempt 1); retrying",
      "debug medrecords: GET /v2/cases/{case_id} sending (attempt 2)",
      "warn medrecords: GET /v2/cases/{case_id} TypeError after N ms (attempt 2); retrying",
      "debug medrecords: GET /v2/cases/{case_id} sending (attempt 3)",
      "error medrecords: GET /v2/cases/{case_id} ConnectionError after N ms (attempt 3)",
    ]);
  });

  it.each([
    ["off", []],
    ["error", ["error"]],
    ["warn", ["warn", "error"]],
    ["info", ["warn", "error", "info"]],
    ["debug", ["debug", "warn", "debug", "error", "debug", "info"]],
  ] as const)("at %s, writes only what that level allows", async (logLevel, expected) => {
    const { lines, logger } = recordingLogger();
    const { fetch } = scriptedFetch([
      apiError(503, "unavailable", "down"),
      apiError(503, "unavailable", "down"),
      json(200, sampleCase),
    ]);
    const mr = client(fetch, { logger, logLevel, maxRetries: 1 });
    await mr.cases.retrieve("case_1").catch(() => undefined); // 503, retried, 503: an error
    await mr.cases.retrieve("case_1"); // 200: info
    expect(lines.map((l) => l.split(" ")[0])).toEqual(expected);
  });

  it("a 4xx is the caller's to handle: an info line, not an error", async () => {
    const { lines, logger } = recordingLogger();
    const { fetch } = scriptedFetch([apiError(404, "not_found", "No such case")]);
    await client(fetch, { logger, logLevel: "info" })
      .cases.retrieve("case_1")
      .catch(() => undefined);
    expect(lines).toEqual([expect.stringMatching(/^info .* 404 in \d+ ms/)]);
  });

  it("never holds a body, a query value, an id in a path or the key, at any level", async () => {
    const { lines, fields, logger } = recordingLogger();
    const CANARY = {
      id: "case_CANARYID",
      query: "CANARYQUERY",
      body: "CANARYBODY Jane Doe",
      answer: "CANARYANSWER",
    };
    const { fetch } = scriptedFetch([
      apiError(503, "unavailable", `down ${CANARY.answer} ${API_KEY}`),
      json(200, { ...sampleCase, id: CANARY.id, title: CANARY.answer }),
      connectionError("ECONNRESET"),
      json(200, { results: [], next: null, previous: null, next_public_updated_since: null }),
      json(200, { results: [{ ...sampleCase, title: CANARY.answer }], next: null, previous: null }),
    ]);
    const mr = client(fetch, { logger, logLevel: "debug" });
    await mr.cases.update(CANARY.id, { title: CANARY.body });
    await mr.retrievalRequests.list({ case_id: CANARY.query, status: "pending" });
    await mr.cases.list({ cursor: CANARY.query });
    expect(lines.length).toBeGreaterThanOrEqual(6);
    const logged = `${lines.join("\n")}\n${JSON.stringify(fields)}`;
    for (const canary of [...Object.values(CANARY), API_KEY, "pending"]) {
      expect(logged).not.toContain(canary);
    }
  });

  it("console, the default logger, gets one line per call and no object", async () => {
    const info = vi.spyOn(console, "info").mockImplementation(() => {});
    const { fetch } = scriptedFetch([json(200, sampleCase)]);
    await client(fetch, { logLevel: "info" }).cases.retrieve("case_1");
    expect(info).toHaveBeenCalledOnce();
    expect(info.mock.calls[0]).toEqual([expect.stringMatching(/^medrecords: GET .* 200 in/)]);
  });

  it("defaults to warn: a successful call prints nothing, a retry prints a warning", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const info = vi.spyOn(console, "info").mockImplementation(() => {});
    const { fetch } = scriptedFetch([apiError(503, "unavailable", "down"), json(200, sampleCase)]);
    await client(fetch).cases.retrieve("case_1");
    expect(info).not.toHaveBeenCalled();
    expect(warn).toHaveBeenCalledOnce();
  });

  it("takes its default from MEDRECORDS_LOG, in any case; the option wins over it", async () => {
    vi.stubEnv("MEDRECORDS_LOG", "DEBUG");
    const { lines, logger } = recordingLogger();
    const { fetch } = scriptedFetch([], json(200, sampleCase));
    await client(fetch, { logger }).cases.retrieve("case_1");
    expect(lines.map((l) => l.split(" ")[0])).toEqual(["debug", "info"]);
    lines.length = 0;
    await client(fetch, { logger, logLevel: "off" }).cases.retrieve("case_1");
    expect(lines).toEqual([]);
  });

  it("an invalid MEDRECORDS_LOG is a warning, without its value, and logging stays at warn", async () => {
    vi.stubEnv("MEDRECORDS_LOG", "verbose-CANARY");
    const { lines, logger } = recordingLogger();
    const { fetch } = scriptedFetch([], json(200, sampleCase));
    const mr = client(fetch, { logger });
    await mr.cases.retrieve("case_1");
    expect(lines).toEqual([
      'warn medrecords: MEDRECORDS_LOG is not one of off, error, warn, info, debug; logging at "warn".',
    ]);
  });

  it("an invalid logLevel option is a TypeError at construction", () => {
    const { fetch } = scriptedFetch([]);
    expect(() => client(fetch, { logLevel: "verbose" })).toThrow(TypeError);
    expect(() => client(fetch, { logLevel: "verbose" })).toThrow(/off, error, warn, info, debug/);
  });

  it("reads no environment where process does not exist (browsers, Workers)", async () => {
    vi.stubGlobal("process", undefined);
    try {
      const { lines, logger } = recordingLogger();
      const { fetch } = scriptedFetch([], json(200, sampleCase));
      await client(fetch, { logger }).cases.retrieve("case_1");
      expect(lines).toEqual([]);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
