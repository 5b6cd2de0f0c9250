/**
 * What the fuzz suites found, pinned as plain tests so that each stays fixed
 * whatever the seed of the next short pass.
 */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MedRecords, ValidationError } from "../../src/index.js";
import { type MockServer, startMockServer } from "../../src/mock/index.js";
import { verifyWebhook } from "../../src/webhooks/index.js";
import { API_KEY, BASE_URL, json, scriptedFetch } from "../helpers/scripted-fetch.js";
import { NOW_MS, nodeSignedHeaders, SECRET, statusChanged } from "../webhooks/fixtures.js";

describe("verifyWebhook", () => {
  it("accepts a body with a byte order mark given as a string, as it does given as bytes", async () => {
    const text = `\uFEFF${JSON.stringify(statusChanged)}`;
    const headers = nodeSignedHeaders(text, { event: statusChanged });
    const bytes = new TextEncoder().encode(text);
    for (const payload of [bytes, text]) {
      const event = await verifyWebhook({ payload, headers, secret: SECRET, now: NOW_MS });
      expect(event.id).toBe(statusChanged.id);
    }
  });
});

describe("client validation before sending", () => {
  const { fetch, seen } = scriptedFetch([], () => json(200, {}));
  const mr = new MedRecords({ apiKey: API_KEY, baseUrl: BASE_URL, fetch, maxRetries: 0 });

  it("refuses an id with a lone surrogate with a ValidationError, not a URIError", async () => {
    const error = await mr.cases.retrieve("case_\uD800").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues[0]?.path).toBe("case_id");
    expect(seen).toHaveLength(0);
  });

  it("refuses a Date past the year 9999 as an event-list time bound", async () => {
    for (const date of [new Date("+010000-01-01T00:00:00Z"), new Date("-000001-01-01T00:00:00Z")]) {
      const error = await mr.events.list({ created_before: date }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
    }
    expect(seen).toHaveLength(0);
  });
});

describe("reference server over HTTP", () => {
  let server: MockServer;
  beforeAll(async () => {
    server = await startMockServer();
  });
  afterAll(() => server?.close());

  /** Sends raw bytes and returns the status line of the answer. */
  const statusLine = (request: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect({ host: "127.0.0.1", port: Number(new URL(server.url).port) });
      let answer = "";
      socket.on("data", (chunk) => {
        answer += chunk.toString("latin1");
      });
      socket.on("error", reject);
      socket.on("close", () => resolve(answer.split("\r\n")[0] ?? ""));
      socket.end(request);
    });

  it("answers a request target no URL can be made of with 400, not 500", async () => {
    expect(await statusLine("GET http:// HTTP/1.1\r\nHost: x\r\n\r\n")).toBe(
      "HTTP/1.1 400 Bad Request",
    );
  });

  it("answers TRACE, a method a fetch Request cannot carry, with 404, not 500", async () => {
    expect(await statusLine("TRACE /v2/cases HTTP/1.1\r\nHost: x\r\n\r\n")).toBe(
      "HTTP/1.1 404 Not Found",
    );
  });
});
