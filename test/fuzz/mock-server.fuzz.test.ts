/**
 * Fuzzing of the reference server over real HTTP (`startMockServer`): every
 * API operation (from the contract, src/contract) and the presigned storage origin get
 * arbitrary methods, path ids, query strings, headers, credentials, content
 * types and bodies (arbitrary bytes, any JSON, valid bodies taken apart);
 * then huge bodies (up to 50 MB), 100 000 levels of nested JSON, and
 * arbitrary bytes straight on the socket. Every answer must be a 4xx (or a
 * 2xx when the input happened to be valid), never a 5xx; API and storage
 * answers carry an `X-Request-Id` and errors the spec's shape; and the server
 * keeps answering afterwards.
 */
import { METHODS } from "node:http";
import { connect } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATIONS } from "../../src/contract/index.js";
import { MedRecords } from "../../src/index.js";
import { type MockServer, startMockServer } from "../../src/mock/index.js";
import { SUBSCRIBABLE_EVENT_TYPES } from "../../src/schemas/events.js";
import { MAX_BODY_BYTES } from "../../src/shared/request-body.js";
import { nearValid, show, utf16, VALID_BODIES } from "./arbitraries.js";
import { FULL, fuzzParams } from "./runs.js";

const START = "2026-03-01T10:00:00.000Z";
const MB = 1_000_000;
const TIMEOUT = FULL ? 600_000 : 60_000;

let server: MockServer;
let key: string;
let noScopeKey: string;
/** Ids that exist, so that some calls get past the 404 into the handlers. */
let ids: string[] = [];
let uploadToken: string;
let downloadToken: string;

beforeAll(async () => {
  server = await startMockServer({ now: START, delivery: "inbox" });
  key = server.apiKeys.create();
  noScopeKey = server.apiKeys.create({ scopes: [] });
  const mr = new MedRecords({ apiKey: key, baseUrl: server.url, maxRetries: 0 });
  const pdf = () => new File(["%PDF-1.7 fuzz"], "a.pdf", { type: "application/pdf" });

  const c = await mr.cases.create({ title: "Doe v. Acme", client_name: "Jane Doe" });
  const doc = await mr.cases.uploadDocument(c.id, { file: pdf() });
  const hook = await mr.webhooks.create({
    name: "fuzz",
    url: "https://hooks.example.test/fuzz",
    events: [...SUBSCRIBABLE_EVENT_TYPES],
  });
  const requestor = await mr.requestors.create({ name: "Ann", email: "ann@firm.example" });
  const rr = await mr.retrievalRequests.create({
    case_id: c.id,
    facility: { name: "Harbor Clinic", address: "1 Pier St" },
    requestor_id: requestor.id,
    auth_form: await mr.retrievalRequests.uploadFile({ file: pdf() }),
  });
  await server.deliveries.flush();
  const events = (await mr.events.list()).results.map((e) => e.id);
  const deliveries = (await mr.webhooks.listDeliveries(hook.id)).results.map((d) => d.id);
  const signed = await mr.cases.signUpload(c.id, {
    file_name: "b.pdf",
    file_type: "application/pdf",
  });
  const download = await mr.documents.download(doc.id);
  uploadToken = new URL(signed.upload_url).pathname.split("/").pop() as string;
  downloadToken = new URL(download.download_url).pathname.split("/").pop() as string;
  ids = [c.id, doc.id, hook.id, requestor.id, rr.id, signed.upload_id, ...events, ...deliveries];
}, 30_000);

afterAll(() => server?.close());

// ------------------------------------------------------------------ checks

/** What every answer must be: below 500, with a request id, and errors in the spec's shape. */
async function checkAnswer(response: Response, method: string, what: () => string): Promise<void> {
  const text = await response.text();
  const fail = (why: string) => {
    throw new Error(`${why}: ${response.status} ${text.slice(0, 300)}\n${what()}`);
  };
  if (response.status >= 500 || response.status < 200) fail("not a 2xx or 4xx");
  // Node answers itself, without reaching the server: 400 to a method its parser does not
  // know, 431 to headers over its 16 KiB limit.
  if (!METHODS.includes(method) || response.status === 431) return;
  if (!response.headers.get("x-request-id")) fail("no X-Request-Id");
  if (response.status >= 400 && method !== "HEAD") {
    let code: unknown;
    try {
      code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
    } catch {
      fail("an error body that is not JSON");
    }
    if (typeof code !== "string") fail("an error body without error.code");
  }
}

async function stillServing(): Promise<void> {
  const health = await fetch(`${server.url}/__mock`);
  expect(health.status).toBe(200);
  await health.body?.cancel();
  const list = await fetch(`${server.url}/v2/cases`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(list.status).toBe(200);
  await list.body?.cancel();
}

// ------------------------------------------------------------------ arbitraries

/** Every operation, its path parameters written `:name` (as VALID_BODIES keys them). */
const ROUTES = OPERATIONS.map(({ method, path }) => ({
  method,
  pattern: path.replace(/\{(\w+)\}/g, ":$1"),
}));

/** Methods fetch can send (it refuses CONNECT, TRACE and TRACK). */
const otherMethod = fc.oneof(
  fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "PROPFIND", "PURGE"),
  fc
    .stringMatching(/^[A-Za-z]{1,10}$/)
    .filter((m) => !["CONNECT", "TRACE", "TRACK"].includes(m.toUpperCase())),
);

const encode = (s: string) => {
  try {
    return encodeURIComponent(s);
  } catch {
    return encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, "x"));
  }
};

/** A path segment in place of an id. */
const segment = fc.oneof(
  // Read when generating, after beforeAll filled `ids`.
  { arbitrary: fc.constant(null).chain(() => fc.constantFrom(...ids)), weight: 3 },
  fc.string({ unit: "binary", maxLength: 30 }).map(encode),
  utf16.map(encode),
  fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=:@%-]{0,30}$/),
  fc.constantFrom("..", ".", "%", "%zz", "%2F", "%00", "%C0%AF", "%E2%80", "%ED%A0%80", "%FF", ""),
);

const queryPart = fc.oneof(
  fc.constantFrom(
    "limit=5",
    "limit=0",
    "limit=101",
    "limit=1e2",
    "limit=-1",
    "limit=",
    "cursor=abc",
    "cursor=",
    "type=webhook.test",
    `type=${"x,".repeat(30)}`,
    "archived=true",
    "archived=yes",
    "updated_since=2026-01-01T00:00:00Z",
    "created_after=not-a-date",
    "query=clinic",
    "query=%20",
    "status=pending",
    "case_id=case_1",
    "object_id=",
    "__proto__=1",
    "constructor=x",
    "%zz=%zz",
    "a=1&a=2",
    "=",
    "&&",
  ),
  fc
    .tuple(fc.string({ maxLength: 12 }), fc.string({ unit: "binary", maxLength: 20 }))
    .map(([k, v]) => `${encode(k)}=${encode(v)}`),
  fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=:@%/?-]{0,40}$/),
);

const query = fc.oneof(
  { arbitrary: fc.constant(""), weight: 3 },
  fc.array(queryPart, { minLength: 1, maxLength: 4 }).map((parts) => `?${parts.join("&")}`),
);

const authorization = fc.oneof(
  { arbitrary: fc.constant("valid"), weight: 6 },
  fc.constantFrom(
    "none",
    "no-scope",
    "lowercase",
    "spaces",
    "Bearer medrecords_sk_live_0000000000000000000000000000000",
    "Bearer",
    "Bearer ",
    "Basic dXNlcjpwYXNz",
    "bearer\tx",
  ),
  fc.string({ unit: "binary-ascii", maxLength: 60 }),
);

function authHeader(auth: string): string | undefined {
  switch (auth) {
    case "valid":
      return `Bearer ${key}`;
    case "none":
      return undefined;
    case "no-scope":
      return `Bearer ${noScopeKey}`;
    case "lowercase":
      return `bearer ${key}`;
    case "spaces":
      return `Bearer   ${key}  `;
    default:
      return auth;
  }
}

const contentType = fc.oneof(
  fc.constantFrom(
    undefined,
    "application/json",
    "application/json; charset=utf-8",
    "application/json; charset=utf-16",
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/pdf",
    "",
  ),
  fc.string({ unit: "binary-ascii", maxLength: 40 }),
);

/** Headers fetch refuses to send, or that describe the body it sends. */
const RESERVED = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "upgrade",
  "host",
  "expect",
  "te",
  "trailer",
  "content-length",
  "authorization",
  "content-type",
]);

const extraHeaders = fc.array(
  fc.tuple(
    fc.oneof(
      fc.constantFrom(
        "accept",
        "accept-encoding",
        "x-request-id",
        "x-forwarded-for",
        "origin",
        "cookie",
        "range",
        "if-none-match",
        "content-encoding",
        "x-http-method-override",
      ),
      fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/),
    ),
    fc.oneof(
      fc.string({ unit: "binary-ascii", maxLength: 40 }),
      fc.constantFrom("gzip", "bytes=0-1", "*/*", "PATCH", "x".repeat(4000)),
    ),
  ),
  { maxLength: 4 },
);

const encoder = new TextEncoder();
type Bytes = Uint8Array<ArrayBuffer>;

/** JSON text of any value; what JSON cannot hold falls back to its printed form. */
const jsonText = (value: unknown) => {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return show(value);
  }
};

const DEEP = 100_000;
const DEEP_BODIES = [
  "[".repeat(DEEP) + "]".repeat(DEEP),
  "[".repeat(DEEP),
  `${'{"a":'.repeat(DEEP)}1${"}".repeat(DEEP)}`,
  `{"title":${"[".repeat(DEEP)}${"]".repeat(DEEP)},"client_name":"x"}`,
  `{"case":${'{"title":'.repeat(DEEP)}"x"${"}".repeat(DEEP)}}`,
];

function bodyFor(operation: string): fc.Arbitrary<Bytes | undefined> {
  const valid = VALID_BODIES[operation];
  return fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 2 },
    { arbitrary: fc.uint8Array({ maxLength: 2048 }), weight: 2 },
    { arbitrary: fc.jsonValue().map((v) => encoder.encode(jsonText(v))), weight: 2 },
    fc.string({ unit: "binary", maxLength: 200 }).map((s) => encoder.encode(s)),
    // Not UTF-8: a lone surrogate encoded as three bytes, an overlong slash, a bare 0xFF.
    fc
      .constantFrom([0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xff], [0xef, 0xbb, 0xbf])
      .map((b) => Uint8Array.from([0x7b, ...b, 0x7d])),
    ...(valid
      ? [
          {
            arbitrary: nearValid(valid).map((v) => encoder.encode(jsonText(v))),
            weight: 5,
          },
          fc.constantFrom(...valid).map((v) => encoder.encode(JSON.stringify(v))),
        ]
      : []),
    fc.constantFrom(...DEEP_BODIES).map((s) => encoder.encode(s)),
  );
}

interface ApiCall {
  operation: string;
  method: string;
  path: string;
  query: string;
  auth: string;
  contentType: string | undefined;
  headers: [string, string][];
  body: Bytes | undefined;
}

const apiCall: fc.Arbitrary<ApiCall> = fc.constantFrom(...ROUTES).chain((route) => {
  const operation = `${route.method} ${route.pattern}`;
  const names = route.pattern.split("/").filter((s) => s.startsWith(":"));
  return fc.record({
    operation: fc.constant(operation),
    method: fc.oneof({ arbitrary: fc.constant(route.method), weight: 6 }, otherMethod),
    path: fc.array(segment, { minLength: names.length, maxLength: names.length }).map((values) => {
      let path = route.pattern;
      names.forEach((name, i) => {
        path = path.replace(name, values[i] ?? "");
      });
      return path;
    }),
    query,
    auth: authorization,
    contentType,
    headers: extraHeaders,
    body: bodyFor(operation),
  });
});

function headersOf(call: {
  auth?: string;
  contentType: string | undefined;
  headers: [string, string][];
}): Headers {
  const headers = new Headers();
  const add = (name: string, value: string | undefined) => {
    // Only what a client can put on the wire: fetch refuses control characters.
    if (value === undefined || !/^[\t\x20-\x7e\x80-\xff]*$/.test(value)) return;
    try {
      headers.append(name, value);
    } catch {
      // A value Headers refuses (a control character): left out.
    }
  };
  for (const [name, value] of call.headers) if (!RESERVED.has(name)) add(name, value);
  add("content-type", call.contentType);
  if (call.auth !== undefined) add("authorization", authHeader(call.auth));
  return headers;
}

const canHaveBody = (method: string) => !["GET", "HEAD"].includes(method.toUpperCase());

/** The method as fetch sends it: only these six are upper-cased. */
const sentMethod = (method: string) => {
  const upper = method.toUpperCase();
  return ["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"].includes(upper) ? upper : method;
};

// ------------------------------------------------------------------ properties

describe("reference server fuzzing over HTTP", () => {
  it(
    "answers arbitrary calls to every API route with a 2xx or 4xx, never a 5xx",
    async () => {
      await fc.assert(
        fc.asyncProperty(apiCall, async (call) => {
          const body = canHaveBody(call.method) ? call.body : undefined;
          const response = await fetch(`${server.url}${call.path}${call.query}`, {
            method: call.method,
            headers: headersOf(call),
            body,
          });
          await checkAnswer(response, sentMethod(call.method), () =>
            show({ ...call, body: body && Buffer.from(body).toString("latin1").slice(0, 300) }),
          );
        }),
        fuzzParams(20_000),
      );
      await stillServing();
    },
    TIMEOUT,
  );

  it(
    "answers arbitrary calls to the storage origin with a 2xx or 4xx, never a 5xx",
    async () => {
      const storageCall = fc.record({
        method: fc.oneof({ arbitrary: fc.constantFrom("PUT", "GET"), weight: 4 }, otherMethod),
        path: fc.oneof(
          {
            arbitrary: fc.constantFrom(`/uploads/${uploadToken}`, `/downloads/${downloadToken}`),
            weight: 4,
          },
          fc
            .tuple(fc.constantFrom("/uploads/", "/downloads/", "/", "/v2/cases/"), segment)
            .map(([prefix, s]) => prefix + s),
        ),
        query,
        contentType: fc.oneof(
          { arbitrary: fc.constant("application/pdf"), weight: 3 },
          fc.constantFrom("APPLICATION/PDF ", "application/pdf; x=1", undefined),
          contentType,
        ),
        auth: fc.oneof(fc.constant(undefined), authorization),
        headers: extraHeaders,
        body: fc.oneof(fc.constant(undefined), fc.uint8Array({ maxLength: 4096 })),
      });
      await fc.assert(
        fc.asyncProperty(storageCall, async (call) => {
          const body = canHaveBody(call.method) ? call.body : undefined;
          const response = await fetch(`${server.storageUrl}${call.path}${call.query}`, {
            method: call.method,
            headers: headersOf(call),
            body,
          });
          await checkAnswer(response, sentMethod(call.method), () => show(call));
        }),
        fuzzParams(5_000),
      );
      await stillServing();
    },
    TIMEOUT,
  );

  it(
    "answers arbitrary bytes on the socket with a 4xx or by closing, never a 5xx",
    async () => {
      await fc.assert(
        fc.asyncProperty(rawRequest, fc.boolean(), async (bytes, toStorage) => {
          const port = Number(new URL(toStorage ? server.storageUrl : server.url).port);
          const answer = await exchange(port, bytes);
          const statuses = [...answer.matchAll(/(?:^|\n)HTTP\/\d(?:\.\d)? (\d{3})/g)].map((m) =>
            Number(m[1]),
          );
          const bad = statuses.find((s) => s >= 500);
          if (bad !== undefined) {
            throw new Error(
              `answered ${bad} to ${JSON.stringify(Buffer.from(bytes).toString("latin1").slice(0, 400))}:\n${answer.slice(0, 400)}`,
            );
          }
        }),
        fuzzParams(20_000),
      );
      await stillServing();
    },
    TIMEOUT,
  );
});

describe("reference server limits over HTTP", () => {
  const BODY_ROUTES = ROUTES.filter((r) => canHaveBody(r.method));
  const withIds = (pattern: string) => pattern.replace(/:[a-z_]+/g, ids[0] ?? "x");

  const post = (path: string, body: BodyInit, init: { auth?: boolean; method?: string } = {}) =>
    fetch(`${server.url}${path}`, {
      method: init.method ?? "POST",
      body,
      headers: {
        "content-type": "application/json",
        ...(init.auth === false ? {} : { authorization: `Bearer ${key}` }),
      },
      duplex: "half",
    } as RequestInit);

  /** A body sent in chunks, without Content-Length. */
  const streamOf = (size: number) => {
    let sent = 0;
    const chunk = new Uint8Array(64 * 1024).fill(0x61);
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= size) return controller.close();
        const part = chunk.subarray(0, Math.min(chunk.length, size - sent));
        controller.enqueue(part);
        sent += part.length;
      },
    });
  };

  it(
    "refuses a body over 1 MiB with 413 payload_too_large on every route that reads one",
    async () => {
      for (const route of BODY_ROUTES) {
        const path = withIds(route.pattern);
        // One byte over on every route; 10 MB on every route in the full pass only (the 50 MB
        // below runs in both).
        for (const size of FULL ? [MAX_BODY_BYTES + 1, 10 * MB] : [MAX_BODY_BYTES + 1]) {
          const sized = await post(path, new Uint8Array(size).fill(0x61), { method: route.method });
          await checkAnswer(sized, route.method, () => `${route.method} ${path} ${size} bytes`);
          const streamed = await post(path, streamOf(size), { method: route.method });
          await checkAnswer(
            streamed,
            route.method,
            () => `${route.method} ${path} ${size} streamed`,
          );
          // Routes that answer before reading (e.g. an unknown id) are 4xx anyway.
          expect([sized.status, streamed.status].every((s) => s >= 400 && s < 500)).toBe(true);
        }
      }
      // The biggest, once each way, on the route that reads its body before validating.
      for (const body of [new Uint8Array(50 * MB), streamOf(50 * MB)]) {
        const response = await post("/v2/retrieval-requests", body);
        expect(response.status).toBe(413);
        expect(await response.json()).toMatchObject({ error: { code: "payload_too_large" } });
      }
      await stillServing();
    },
    TIMEOUT,
  );

  it("reads a body of exactly 1 MiB, and answers a big body without a key with 401", async () => {
    // Valid JSON padded with trailing whitespace to the limit, then one byte over it.
    const valid = JSON.stringify({ title: "t", client_name: "c" });
    const exact = `${valid}${" ".repeat(MAX_BODY_BYTES - valid.length)}`;
    const created = await post("/v2/cases", exact);
    expect(created.status).toBe(201);
    await created.body?.cancel();
    for (const body of [`${exact} `, streamOf(MAX_BODY_BYTES + 1)]) {
      const over = await post("/v2/cases", body);
      expect(over.status).toBe(413);
      await over.body?.cancel();
    }
    const anonymous = await post("/v2/cases", new Uint8Array(50 * MB), { auth: false });
    expect(anonymous.status).toBe(401);
    await anonymous.body?.cancel();
    await stillServing();
  });

  it("stores a 50 MB upload on the storage origin (uploads have no limit)", async () => {
    const response = await fetch(`${server.storageUrl}/uploads/${uploadToken}`, {
      method: "PUT",
      body: new Uint8Array(50 * MB),
      headers: { "content-type": "application/pdf" },
    });
    expect(response.status).toBe(200);
    await response.body?.cancel();
  });

  it(
    "answers 100 000 levels of nested JSON on every route that reads a body with a 4xx",
    async () => {
      for (const route of BODY_ROUTES) {
        for (const body of DEEP_BODIES) {
          const path = withIds(route.pattern);
          const response = await post(path, body, { method: route.method });
          await checkAnswer(
            response,
            route.method,
            () => `${route.method} ${path} deep ${body.slice(0, 20)}`,
          );
          expect(response.status).toBeGreaterThanOrEqual(400);
        }
      }
      await stillServing();
    },
    TIMEOUT,
  );
});

// ------------------------------------------------------------------ raw bytes

const TARGETS = [
  "/",
  "*",
  "/v2/cases",
  "/v2/cases/",
  "//evil.test/v2/cases",
  "http://evil.test/v2/cases",
  "http://[::1",
  "http://",
  "/v2/cases?%",
  "/v2/%zz",
  "/v2/cases#frag",
  "/v2/cases/%ED%A0%80",
  "/__mock",
  "/uploads/x",
  "/v2/../__mock",
  "",
];

const rawHeaderLine = fc.oneof(
  fc.constantFrom(
    "Host: 127.0.0.1",
    "Host:",
    "Content-Length: 5",
    "Content-Length: -1",
    "Content-Length: 1e3",
    "Content-Length: 99999999999999999999",
    "Content-Length: 0",
    "Transfer-Encoding: chunked",
    "Transfer-Encoding: gzip, chunked",
    "Expect: 100-continue",
    "Expect: nonsense",
    "Connection: close",
    "Connection: upgrade",
    "Upgrade: websocket",
    "Content-Type: application/json",
    "Authorization: Bearer ",
    `X-Long: ${"x".repeat(20_000)}`,
    " folded: continuation",
    "NoColon",
    ": empty-name",
  ),
  fc
    .tuple(
      fc.stringMatching(/^[A-Za-z-]{1,12}$/),
      fc.string({ unit: "binary-ascii", maxLength: 30 }),
    )
    .map(([n, v]) => `${n}: ${v}`),
);

const rawRequest: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.uint8Array({ maxLength: 512 }) as fc.Arbitrary<Uint8Array>,
  fc
    .record({
      method: fc.oneof(
        fc.constantFrom(
          "GET",
          "POST",
          "PUT",
          "PATCH",
          "DELETE",
          "HEAD",
          "OPTIONS",
          "CONNECT",
          "TRACE",
          "PRI",
        ),
        fc.string({ unit: "binary-ascii", maxLength: 8 }),
      ),
      target: fc.oneof(
        fc.constantFrom(...TARGETS),
        fc.string({ unit: "binary-ascii", maxLength: 40 }),
      ),
      version: fc.constantFrom(
        "HTTP/1.1",
        "HTTP/1.0",
        "HTTP/2.0",
        "HTTP/9.9",
        "HTTP/1.1x",
        "",
        "http/1.1",
      ),
      auth: fc.boolean(),
      headers: fc.array(rawHeaderLine, { maxLength: 5 }),
      body: fc.oneof(
        fc.constant(""),
        fc.string({ unit: "binary-ascii", maxLength: 200 }),
        fc.constantFrom("5\r\nhello\r\n0\r\n\r\n", "zz\r\n", "0\r\n\r\n", "{}", "[".repeat(1000)),
      ),
      lineEnd: fc.constantFrom("\r\n", "\n"),
    })
    .map(({ method, target, version, auth, headers, body, lineEnd }) => {
      const lines = [`${method} ${target} ${version}`, ...headers];
      if (auth) lines.push(`Authorization: Bearer ${key}`);
      return Buffer.from(`${lines.join(lineEnd)}${lineEnd}${lineEnd}${body}`, "latin1");
    }),
);

/** Writes the bytes, half-closes, and returns everything read until the server closes. */
function exchange(port: number, bytes: Uint8Array): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(
          `no end within 5 s after ${JSON.stringify(Buffer.from(bytes).toString("latin1").slice(0, 200))}`,
        ),
      );
    }, 5_000);
    socket.on("data", (chunk) => chunks.push(chunk));
    // A reset after the answer, or instead of one, is a closed connection.
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString("latin1"));
    });
    socket.end(bytes);
  });
}
