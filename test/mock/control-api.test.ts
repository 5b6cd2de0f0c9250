/**
 * The control API under `/__mock/` over real loopback HTTP, with plain fetch
 * as a suite in another language would call it: each endpoint's documented
 * answer (docs/reference-server.md), its effect on the /v2 API, and its errors.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MockServer, startMockServer } from "../../src/mock/index.js";
import { CONTROL_ENDPOINTS } from "../../src/mock/server/control-api.js";
import { openApiDocument } from "../../src/openapi/document.js";
import { SCOPES } from "../../src/schemas/scopes.js";
import { MAX_BODY_BYTES } from "../../src/shared/request-body.js";
import { verifyWebhook } from "../../src/webhooks/index.js";

const START = "2026-03-01T10:00:00.000Z";
const PDF = "%PDF-1.7\nsigned HIPAA authorization\n%%EOF\n";
const STATUS_CHANGED = "retrieval_request.status_changed";
const ACTION_REQUIRED = "retrieval_request.action_required";
const DOCUMENTS_AVAILABLE = "retrieval_request.documents_available";

// biome-ignore lint/suspicious/noExplicitAny: JSON of many shapes, checked by each test
type Json = any;

interface Answer {
  status: number;
  headers: Headers;
  body: Json;
}

// ------------------------------------------------------------ every endpoint is exercised

/** CONTROL_ENDPOINTS entries that answered 2xx at least once in this file. */
const answered = new Set<string>();
const ENDPOINTS = CONTROL_ENDPOINTS.map((entry) => {
  const [method, path] = entry.split(/\s+/) as [string, string];
  return { entry, method, path: new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`) };
});

// ------------------------------------------------------------ plain-fetch helpers

async function send(
  url: string,
  method: string,
  options: { body?: unknown; raw?: string; key?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(url, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  const { pathname } = new URL(url);
  if (response.status < 300) {
    for (const endpoint of ENDPOINTS) {
      if (endpoint.method === method && endpoint.path.test(pathname)) answered.add(endpoint.entry);
    }
  }
  return {
    status: response.status,
    headers: response.headers,
    body:
      text === ""
        ? undefined
        : response.headers.get("content-type") === "application/json"
          ? JSON.parse(text)
          : text,
  };
}

interface Harness {
  server: MockServer;
  key: string;
  /** A control API call: `path` is under `/__mock`. */
  control(method: string, path: string, body?: unknown): Promise<Answer>;
  controlRaw(method: string, path: string, raw: string): Promise<Answer>;
  /** A /v2 call with the harness's key (or another). */
  api(method: string, path: string, body?: unknown, key?: string): Promise<Answer>;
}

/** A server per describe block, started before its tests and closed after them. */
function useServer(options: Parameters<typeof startMockServer>[0] = {}): Harness {
  const harness = {
    control: (method: string, path: string, body?: unknown) =>
      send(`${harness.server.controlUrl}${path}`, method, { body }),
    controlRaw: (method: string, path: string, raw: string) =>
      send(`${harness.server.controlUrl}${path}`, method, { raw }),
    api: (method: string, path: string, body?: unknown, key?: string) =>
      send(`${harness.server.url}${path}`, method, { body, key: key ?? harness.key }),
  } as Harness;
  beforeAll(async () => {
    harness.server = await startMockServer({ now: START, ...options });
    harness.key = harness.server.apiKeys.create();
  });
  afterAll(() => harness.server?.close());
  return harness;
}

function expectError(answer: Answer, status: number, code: string): string {
  expect({ status: answer.status, body: answer.body }).toMatchObject({
    status,
    body: { error: { code, message: expect.any(String) } },
  });
  expect(answer.headers.get("content-type")).toBe("application/json");
  return answer.body.error.message;
}

async function createCase(h: Harness, title = "Doe v. Acme"): Promise<string> {
  const created = await h.api("POST", "/v2/cases", { title, client_name: "Jane Doe" });
  expect(created.status).toBe(201);
  return created.body.id;
}

/**
 * Signs an upload (retrieval-level, or under a case to answer an action
 * request) and PUTs a PDF to it over HTTP; returns the upload_id.
 */
async function uploadPdf(
  h: Harness,
  { fileName = "authorization.pdf", caseId }: { fileName?: string; caseId?: string } = {},
): Promise<string> {
  const where = caseId === undefined ? "/v2/retrieval-requests" : `/v2/cases/${caseId}`;
  const signed = await h.api("POST", `${where}/sign-upload`, {
    file_name: fileName,
    file_type: "application/pdf",
  });
  expect(signed.status).toBe(200);
  expect(signed.body.upload_url.startsWith(`${h.server.storageUrl}/`)).toBe(true);
  const put = await fetch(signed.body.upload_url, {
    method: "PUT",
    headers: { "content-type": "application/pdf" },
    body: new TextEncoder().encode(PDF),
  });
  expect(put.status).toBe(200);
  return signed.body.upload_id;
}

/** A retrieval request on a new case, with an inline facility and requestor. */
async function createRetrieval(h: Harness): Promise<{ id: string; case_id: string }> {
  const caseId = await createCase(h);
  const created = await h.api("POST", "/v2/retrieval-requests", {
    case_id: caseId,
    facility: { name: "Harbor Clinic", address: "1 Pier St, Bay City, CA 94000" },
    requestor: { name: "Ann Counsel", email: "ann@firm.example" },
    auth_form: await uploadPdf(h),
  });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ status: "pending", case_id: caseId });
  return created.body;
}

/** The event log's entries about one retrieval request, oldest first. */
async function eventsOf(h: Harness, id: string): Promise<Json[]> {
  const page = await h.api("GET", `/v2/events?object_id=${id}&limit=100`);
  expect(page.status).toBe(200);
  return [...page.body.results].reverse();
}

/** Bytes of a retrieval document, fetched through its presigned address. */
async function downloadRetrievalDocument(
  h: Harness,
  id: string,
  documentId: string,
): Promise<Uint8Array> {
  const link = await h.api("GET", `/v2/retrieval-requests/${id}/documents/${documentId}/download`);
  expect(link.status).toBe(200);
  expect(link.body.download_url.startsWith(`${h.server.storageUrl}/`)).toBe(true);
  const response = await fetch(link.body.download_url);
  expect(response.status).toBe(200);
  return new Uint8Array(await response.arrayBuffer());
}

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A webhook receiver on 127.0.0.1 that keeps what it got. It takes its time
 * (`delayMs`) before keeping and answering a delivery, so that only a flush
 * that waits for the attempt in flight sees it.
 */
async function startReceiver(
  delayMs: number,
): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      setTimeout(() => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
        res.writeHead(200).end("ok");
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks/medrecords`, received, server };
}

// ------------------------------------------------------------ the endpoints

describe("GET /__mock", () => {
  const h = useServer();

  it("answers the server's addresses, its time and the list of control endpoints", async () => {
    const answer = await send(h.server.controlUrl, "GET");
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      base_url: h.server.url,
      storage_url: h.server.storageUrl,
      now: START,
      endpoints: [...CONTROL_ENDPOINTS],
    });
  });

  it("an unknown control path or method is 404 not_found pointing at GET /__mock", async () => {
    for (const [method, path] of [
      ["GET", "/nothing-here"],
      ["DELETE", "/clock"],
      ["POST", ""],
      ["GET", "/retrieval-requests/rr_1/records"],
    ] as const) {
      const answer = await h.control(method, path);
      const message = expectError(answer, 404, "not_found");
      expect(message).toContain(`${method} /__mock${path}`);
      expect(message).toContain("GET /__mock");
    }
  });
});

describe("POST /__mock/api-keys", () => {
  const h = useServer();
  const KEY = /^medrecords_sk_live_[0-9A-Za-z]{32}$/;

  it("without a body, or without scopes, answers 201 with a new key holding every scope", async () => {
    for (const body of [undefined, {}]) {
      const answer = await h.control("POST", "/api-keys", body);
      expect(answer.status).toBe(201);
      expect(answer.body).toEqual({ api_key: expect.stringMatching(KEY), scopes: [...SCOPES] });
      const key = answer.body.api_key as string;
      expect(key).not.toBe(h.key);
      const created = await h.api(
        "POST",
        "/v2/cases",
        { title: "Keyed v. Acme", client_name: "Jane Doe" },
        key,
      );
      expect(created.status).toBe(201);
      expect((await h.api("GET", "/v2/webhooks", undefined, key)).status).toBe(200);
    }
  });

  it("with scopes, answers a key limited to them: 403 insufficient_scope outside", async () => {
    const answer = await h.control("POST", "/api-keys", { scopes: ["cases:read"] });
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({ api_key: expect.stringMatching(KEY), scopes: ["cases:read"] });
    const key = answer.body.api_key as string;

    expect((await h.api("GET", "/v2/cases", undefined, key)).status).toBe(200);
    const write = await h.api(
      "POST",
      "/v2/cases",
      { title: "Scoped v. Acme", client_name: "Jane Doe" },
      key,
    );
    expect(expectError(write, 403, "insufficient_scope")).toContain("cases:write");
    expectError(
      await h.api("GET", "/v2/retrieval-requests", undefined, key),
      403,
      "insufficient_scope",
    );
  });

  it("an unknown scope or property is 400 validation_error", async () => {
    const unknownScope = await h.control("POST", "/api-keys", { scopes: ["cases:delete"] });
    expect(expectError(unknownScope, 400, "validation_error")).toContain("scopes");
    expectError(
      await h.control("POST", "/api-keys", { scope: ["cases:read"] }),
      400,
      "validation_error",
    );
    expectError(await h.controlRaw("POST", "/api-keys", "{scopes:"), 400, "validation_error");
  });

  it("a key no one created is 401 on /v2", async () => {
    const answer = await h.api(
      "GET",
      "/v2/cases",
      undefined,
      `medrecords_sk_live_${"x".repeat(32)}`,
    );
    expectError(answer, 401, "invalid_api_key");
  });
});

describe("the clock: GET /__mock/clock, POST /__mock/clock/advance and /set", () => {
  const h = useServer();
  const t0 = Date.parse(START);
  const at = (ms: number) => ({ now: new Date(ms).toISOString() });

  it("GET answers { now }, the time the API stamps its answers with", async () => {
    const answer = await h.control("GET", "/clock");
    expect(answer).toMatchObject({ status: 200, body: { now: START } });
    const cases = await h.api("GET", "/v2/cases");
    expect(cases.headers.get("date")).toBe(new Date(START).toUTCString());
  });

  it('advances by "15m" and by milliseconds, running the upload expiry that fell due', async () => {
    const caseId = await createCase(h);
    const signed = await h.api("POST", `/v2/cases/${caseId}/sign-upload`, {
      file_name: "intake.pdf",
      file_type: "application/pdf",
    });
    expect(signed.status).toBe(200);
    const put = () =>
      fetch(signed.body.upload_url, {
        method: "PUT",
        headers: { "content-type": "application/pdf" },
        body: new TextEncoder().encode(PDF),
      });

    const before = Date.parse((await h.control("GET", "/clock")).body.now);
    const fifteen = await h.control("POST", "/clock/advance", { by: "15m" });
    expect(fifteen).toMatchObject({ status: 200, body: at(before + 15 * 60_000) });
    // The presigned address takes bytes for 15 minutes, boundary included...
    expect((await put()).status).toBe(200);

    const oneMs = await h.control("POST", "/clock/advance", { by: 1 });
    expect(oneMs).toMatchObject({ status: 200, body: at(before + 15 * 60_000 + 1) });
    // ...and not one millisecond more.
    const late = await put();
    expect(late.status).toBe(403);
    expect(await late.json()).toMatchObject({ error: { code: "upload_url_expired" } });
  });

  it("set jumps to an ISO time or epoch milliseconds, which new objects are stamped with", async () => {
    const iso = await h.control("POST", "/clock/set", { now: "2026-07-01T00:00:00Z" });
    expect(iso).toEqual({
      status: 200,
      headers: expect.any(Headers),
      body: { now: "2026-07-01T00:00:00.000Z", attempted: 0, succeeded: 0, failed: [] },
    });
    const created = await h.api("POST", "/v2/cases", { title: "July", client_name: "Jane Doe" });
    expect(created.body.created_at).toBe("2026-07-01T00:00:00.000Z");

    const ms = await h.control("POST", "/clock/set", { now: t0 });
    expect(ms).toMatchObject({ status: 200, body: { now: START } });
    expect((await h.control("GET", "/clock")).body).toEqual({ now: START });
  });

  it("a bad duration or date is 400 validation_error and leaves the clock alone", async () => {
    const before = (await h.control("GET", "/clock")).body;
    const soon = await h.control("POST", "/clock/advance", { by: "soon" });
    expect(expectError(soon, 400, "validation_error")).toMatch(/"15m"/);
    expectError(await h.control("POST", "/clock/advance", { by: -5 }), 400, "validation_error");
    expectError(await h.control("POST", "/clock/advance", {}), 400, "validation_error");
    expectError(
      await h.control("POST", "/clock/advance", { by: "1m", extra: true }),
      400,
      "validation_error",
    );
    expectError(
      await h.control("POST", "/clock/set", { now: "yesterday" }),
      400,
      "validation_error",
    );
    expectError(await h.control("POST", "/clock/set", { now: true }), 400, "validation_error");
    expect((await h.control("GET", "/clock")).body).toEqual(before);
  });

  it("an absurd advance or set is 400 before anything moves: the clock, scheduled work and the API stay as they were", async () => {
    const before = (await h.control("GET", "/clock")).body as { now: string };
    const caseId = await createCase(h);
    const signed = await h.api("POST", `/v2/cases/${caseId}/sign-upload`, {
      file_name: "intake.pdf",
      file_type: "application/pdf",
    });
    for (const [path, body] of [
      ["/clock/advance", { by: 1e300 }],
      ["/clock/advance", { by: "1e300ms" }],
      ["/clock/advance", { by: Number.MAX_SAFE_INTEGER }],
      ["/clock/advance", { by: "3000000d" }],
      ["/clock/set", { now: 1e300 }],
      ["/clock/set", { now: 8.64e15 }],
      ["/clock/set", { now: "+010000-01-01T00:00:00.000Z" }],
      ["/clock/set", { now: -62167219200001 }],
    ] as const) {
      expectError(await h.control("POST", path, body), 400, "validation_error");
      expect((await h.control("GET", "/clock")).body, `${path} ${JSON.stringify(body)}`).toEqual(
        before,
      );
    }
    // The upload expiry 15 minutes on did not run, and the API still answers.
    const put = await fetch(signed.body.upload_url, {
      method: "PUT",
      headers: { "content-type": "application/pdf" },
      body: new TextEncoder().encode(PDF),
    });
    expect(put.status).toBe(200);
    expect((await h.api("GET", "/v2/cases")).status).toBe(200);
  });

  it("the clock reaches the last instant of year 9999 and not one millisecond more", async () => {
    const last = "9999-12-31T23:59:59.999Z";
    expect(await h.control("POST", "/clock/set", { now: last })).toMatchObject({
      status: 200,
      body: { now: last },
    });
    expectError(await h.control("POST", "/clock/advance", { by: 1 }), 400, "validation_error");
    expect((await h.control("GET", "/clock")).body).toEqual({ now: last });
    expect((await h.api("GET", "/v2/cases")).status).toBe(200);
    await h.control("POST", "/clock/set", { now: START });
  });

  it("malformed JSON is 400 validation_error naming the body", async () => {
    for (const path of ["/clock/advance", "/clock/set"]) {
      const message = expectError(
        await h.controlRaw("POST", path, '{"by": "15m"'),
        400,
        "validation_error",
      );
      expect(message).toBe("body: expected a JSON document.");
    }
    // An empty body is not JSON either, where a body is required.
    expectError(await h.controlRaw("POST", "/clock/advance", ""), 400, "validation_error");
  });

  it("takes bodies up to the API's limit and answers 413 one byte over it", async () => {
    const json = '{"by": "1s"}';
    const padded = (size: number) => `${json}${" ".repeat(size - json.length)}`;
    expect((await h.controlRaw("POST", "/clock/advance", padded(MAX_BODY_BYTES))).status).toBe(200);
    expectError(
      await h.controlRaw("POST", "/clock/advance", padded(MAX_BODY_BYTES + 1)),
      413,
      "payload_too_large",
    );
  });
});

describe("the provider's side of a retrieval request", () => {
  const h = useServer({ allowPrivateWebhookUrls: true });
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let secret: string;

  beforeAll(async () => {
    receiver = await startReceiver(150);
    const hook = await h.api("POST", "/v2/webhooks", {
      name: "local receiver",
      url: receiver.url,
      events: [STATUS_CHANGED, ACTION_REQUIRED, DOCUMENTS_AVAILABLE],
    });
    expect(hook.status).toBe(201);
    secret = hook.body.secret;
  });
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        receiver.server.close(() => resolve());
        receiver.server.closeAllConnections();
      }),
  );

  /** Deliveries the receiver got about one retrieval request, verified with the webhook's secret. */
  async function deliveredAbout(id: string, received = receiver.received): Promise<Json[]> {
    const events: Json[] = [];
    for (const delivery of received) {
      // This machine's clock: the mock signs with it, whatever its own clock says.
      const event = await verifyWebhook({
        payload: delivery.body,
        headers: delivery.headers,
        secret,
      });
      if ((event.data as { retrieval_request_id?: string }).retrieval_request_id === id) {
        events.push(event);
      }
    }
    return events;
  }

  it("POST .../status answers the moved request, emits status_changed, delivered after POST /__mock/deliveries/flush", async () => {
    const rr = await createRetrieval(h);
    const moved = await h.control("POST", `/retrieval-requests/${rr.id}/status`, {
      status: "processing",
      stage: "provider_processing",
    });
    // What the receiver holds once the flush answered, before anything else had time to arrive.
    const flushed = await h.control("POST", "/deliveries/flush");
    const received = [...receiver.received];
    expect(flushed).toMatchObject({ status: 200, body: { flushed: true } });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({
      id: rr.id,
      status: "processing",
      stage: "provider_processing",
      action_required_reason: null,
    });
    const read = await h.api("GET", `/v2/retrieval-requests/${rr.id}`);
    expect(read.body).toEqual(moved.body);

    const logged = await eventsOf(h, rr.id);
    expect(logged.map((e) => e.type)).toEqual([STATUS_CHANGED]);
    expect(logged[0].data).toMatchObject({
      retrieval_request_id: rr.id,
      case_id: rr.case_id,
      public_updated_at: moved.body.public_updated_at,
    });

    const delivered = await deliveredAbout(rr.id, received);
    expect(delivered.map((e) => e.id)).toEqual(logged.map((e) => e.id));
    // The log's entry also carries the new public state; the delivery has the event's data.
    expect(logged[0].data).toMatchObject({ status: "processing", stage: "provider_processing" });
    expect(delivered[0]).toMatchObject({
      type: STATUS_CHANGED,
      data: {
        retrieval_request_id: rr.id,
        case_id: rr.case_id,
        public_updated_at: moved.body.public_updated_at,
      },
    });
  });

  it("POST .../status with a value outside the spec is 400 and changes nothing", async () => {
    const rr = await createRetrieval(h);
    const bad = await h.control("POST", `/retrieval-requests/${rr.id}/status`, {
      status: "teleported",
      stage: "provider_processing",
    });
    expect(expectError(bad, 400, "validation_error")).toContain("status");
    expectError(
      await h.control("POST", `/retrieval-requests/${rr.id}/status`, {
        status: "processing",
        stage: "request_sent",
        action_required_reason: "other",
      }),
      400,
      "validation_error",
    );
    expectError(
      await h.controlRaw("POST", `/retrieval-requests/${rr.id}/status`, "status=processing"),
      400,
      "validation_error",
    );
    expect((await h.api("GET", `/v2/retrieval-requests/${rr.id}`)).body.status).toBe("pending");
    expect(await eventsOf(h, rr.id)).toEqual([]);
  });

  it("POST .../action-requests opens one (201), GET lists it with the firm's answer; a second open one is 409", async () => {
    const rr = await createRetrieval(h);
    const opened = await h.control("POST", `/retrieval-requests/${rr.id}/action-requests`, {
      message: "Please upload a signed HIPAA authorization.",
      reason: "missing_hipaa_authorization",
    });
    expect(opened.status).toBe(201);
    expect(opened.body).toEqual({
      id: expect.any(String),
      message: "Please upload a signed HIPAA authorization.",
      reason: "missing_hipaa_authorization",
      requires_pdf: true,
      requires_attachment: true,
      opened_at: expect.any(String),
    });
    const read = await h.api("GET", `/v2/retrieval-requests/${rr.id}`);
    expect(read.body).toMatchObject({
      status: "action_required",
      action_required_reason: "missing_hipaa_authorization",
      pending_action_request: { id: opened.body.id, requires_pdf: true },
    });
    expect((await eventsOf(h, rr.id)).map((e) => e.type)).toEqual([
      STATUS_CHANGED,
      ACTION_REQUIRED,
    ]);

    const second = await h.control("POST", `/retrieval-requests/${rr.id}/action-requests`, {
      message: "And the invoice approval.",
      reason: "payment_approval_required",
    });
    expect(expectError(second, 409, "conflict")).toContain(opened.body.id);

    const listed = await h.control("GET", `/retrieval-requests/${rr.id}/action-requests`);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      results: [{ ...opened.body, opening: 1, status: "open", responses: [] }],
    });

    // The firm answers through /v2; the control API shows what arrived.
    const answered = await h.api("POST", `/v2/retrieval-requests/${rr.id}/action-response`, {
      message: "Signed authorization attached.",
      attachment: { upload_id: await uploadPdf(h, { fileName: "signed.pdf", caseId: rr.case_id }) },
    });
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    const after = await h.control("GET", `/retrieval-requests/${rr.id}/action-requests`);
    expect(after.body.results).toHaveLength(1);
    expect(after.body.results[0]).toMatchObject({
      id: opened.body.id,
      status: "responded",
      responses: [
        {
          message: "Signed authorization attached.",
          attachment: { file_name: "signed.pdf" },
        },
      ],
    });

    await h.control("POST", "/deliveries/flush");
    expect((await deliveredAbout(rr.id)).map((e) => e.type)).toEqual(
      expect.arrayContaining([STATUS_CHANGED, ACTION_REQUIRED]),
    );
  });

  it("POST .../action-requests refuses a bad body with 400", async () => {
    const rr = await createRetrieval(h);
    for (const body of [
      { message: "", reason: "other" },
      { message: "Why?", reason: "bored" },
      { message: "Sign it.", reason: "missing_hipaa_authorization", requires_pdf: false },
    ]) {
      expectError(
        await h.control("POST", `/retrieval-requests/${rr.id}/action-requests`, body),
        400,
        "validation_error",
      );
    }
    expect((await h.control("GET", `/retrieval-requests/${rr.id}/action-requests`)).body).toEqual({
      results: [],
    });
  });

  it("POST .../records releases text (content) and binary (content_base64) files whose bytes download back", async () => {
    const rr = await createRetrieval(h);
    const binary = Uint8Array.from({ length: 512 }, (_, i) => (i * 37 + 255) % 256);
    const text = "Progress note: patient seen on 2026-02-01. Ünïcödé ✓";
    const released = await h.control("POST", `/retrieval-requests/${rr.id}/records`, {
      files: [
        { file_name: "note.txt", file_type: "text/plain", content: text },
        {
          file_name: "scan.bin",
          file_type: "application/octet-stream",
          content_base64: Buffer.from(binary).toString("base64"),
        },
      ],
    });
    expect(released.status).toBe(201);
    expect(released.body).toEqual({ document_ids: [expect.any(String), expect.any(String)] });
    const [noteId, scanId] = released.body.document_ids as [string, string];

    const listed = await h.api("GET", `/v2/retrieval-requests/${rr.id}/documents`);
    expect(listed.status).toBe(200);
    expect(listed.body.results).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          id: noteId,
          kind: "record",
          file_name: "note.txt",
          file_type: "text/plain",
          file_size: new TextEncoder().encode(text).byteLength,
          ready: true,
        }),
        expect.objectContaining({
          id: scanId,
          kind: "record",
          file_name: "scan.bin",
          file_size: 512,
          ready: true,
        }),
      ]),
    );
    expect(new TextDecoder().decode(await downloadRetrievalDocument(h, rr.id, noteId))).toBe(text);
    expect(await downloadRetrievalDocument(h, rr.id, scanId)).toEqual(binary);

    const logged = await eventsOf(h, rr.id);
    expect(logged.map((e) => e.type)).toEqual([DOCUMENTS_AVAILABLE]);
    expect(logged[0].data.document_ids).toEqual([noteId, scanId]);
    expect(logged[0].data.invoice_ids).toBeUndefined();
  });

  it("POST .../records needs exactly one of content and content_base64, valid base64, and a file", async () => {
    const rr = await createRetrieval(h);
    const file = { file_name: "a.txt", file_type: "text/plain" };
    for (const files of [
      [{ ...file, content: "x", content_base64: "eA==" }],
      [file],
      [{ ...file, content_base64: "not base64!" }],
      [],
    ]) {
      expectError(
        await h.control("POST", `/retrieval-requests/${rr.id}/records`, { files }),
        400,
        "validation_error",
      );
    }
    expect((await h.api("GET", `/v2/retrieval-requests/${rr.id}/documents`)).body.results).toEqual(
      [],
    );
  });

  it("POST .../invoices lists an invoice (ready: false); POST .../ready makes it downloadable with invoice_ids", async () => {
    const rr = await createRetrieval(h);
    const listed = await h.control("POST", `/retrieval-requests/${rr.id}/invoices`, {
      file_name: "invoice.pdf",
      amount: 42.5,
    });
    expect(listed.status).toBe(201);
    expect(listed.body).toEqual({ document_id: expect.any(String) });
    const invoiceId = listed.body.document_id as string;

    const documents = await h.api("GET", `/v2/retrieval-requests/${rr.id}/documents`);
    expect(documents.body.results).toEqual([
      expect.objectContaining({ id: invoiceId, kind: "invoice", ready: false }),
    ]);
    expect(await eventsOf(h, rr.id)).toEqual([]);

    const unknown = await h.control("POST", `/retrieval-requests/${rr.id}/invoices/rdoc_x/ready`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: "not_found" });

    const ready = await h.control(
      "POST",
      `/retrieval-requests/${rr.id}/invoices/${invoiceId}/ready`,
    );
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({
      id: invoiceId,
      kind: "invoice",
      file_name: "invoice.pdf",
      file_type: "application/pdf",
      ready: true,
    });
    const logged = await eventsOf(h, rr.id);
    expect(logged.map((e) => e.type)).toEqual([DOCUMENTS_AVAILABLE]);
    expect(logged[0].data).toMatchObject({ document_ids: [invoiceId], invoice_ids: [invoiceId] });
    const bytes = await downloadRetrievalDocument(h, rr.id, invoiceId);
    expect(new TextDecoder().decode(bytes)).toMatch(/^%PDF-/);
    expect((await h.api("GET", `/v2/retrieval-requests/${rr.id}`)).body.costs).toMatchObject({
      invoice_total: 42.5,
    });
  });

  it("an invoice with content and ready: true is downloadable at once", async () => {
    const rr = await createRetrieval(h);
    const listed = await h.control("POST", `/retrieval-requests/${rr.id}/invoices`, {
      file_name: "invoice.txt",
      file_type: "text/plain",
      content: "Invoice #7: $12.00",
      ready: true,
      amount: 12,
      records_fee: 10,
    });
    expect(listed.status).toBe(201);
    const bytes = await downloadRetrievalDocument(h, rr.id, listed.body.document_id);
    expect(new TextDecoder().decode(bytes)).toBe("Invoice #7: $12.00");
    expect((await eventsOf(h, rr.id)).map((e) => e.data.invoice_ids)).toEqual([
      [listed.body.document_id],
    ]);
  });

  it("POST .../complete answers the completed request; a completed request then refuses moves with 409", async () => {
    const rr = await createRetrieval(h);
    const completed = await h.control("POST", `/retrieval-requests/${rr.id}/complete`);
    expect(completed.status).toBe(200);
    expect(completed.body).toMatchObject({ id: rr.id, status: "completed", stage: "completed" });
    expect((await eventsOf(h, rr.id)).map((e) => e.type)).toEqual([STATUS_CHANGED]);

    for (const [path, body] of [
      ["cancel", undefined],
      ["complete", undefined],
      ["status", { status: "processing", stage: "provider_processing" }],
      ["action-requests", { message: "Too late?", reason: "other" }],
    ] as const) {
      const refused = await h.control("POST", `/retrieval-requests/${rr.id}/${path}`, body);
      expect(expectError(refused, 409, "conflict"), path).toMatch(/completed/);
    }
    expect((await h.api("GET", `/v2/retrieval-requests/${rr.id}`)).body.status).toBe("completed");
    expect(await eventsOf(h, rr.id)).toHaveLength(1);
  });

  it("POST .../cancel answers the cancelled request and withdraws an open action request", async () => {
    const rr = await createRetrieval(h);
    const opened = await h.control("POST", `/retrieval-requests/${rr.id}/action-requests`, {
      message: "Please approve the copy fee.",
      reason: "payment_approval_required",
    });
    expect(opened.status).toBe(201);
    const cancelled = await h.control("POST", `/retrieval-requests/${rr.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({
      id: rr.id,
      status: "cancelled",
      stage: "cancelled",
      pending_action_request: null,
    });
    const listed = await h.control("GET", `/retrieval-requests/${rr.id}/action-requests`);
    expect(listed.body.results).toEqual([
      expect.objectContaining({ id: opened.body.id, status: "withdrawn" }),
    ]);
    expectError(await h.control("POST", `/retrieval-requests/${rr.id}/complete`), 409, "conflict");
  });

  it("an unknown retrieval request is 404 not_found on every endpoint", async () => {
    const missing = "rr_does_not_exist";
    const calls: [string, string, unknown][] = [
      ["POST", "status", { status: "processing", stage: "request_sent" }],
      ["POST", "action-requests", { message: "Hello?", reason: "other" }],
      ["GET", "action-requests", undefined],
      ["POST", "records", { files: [{ file_name: "a", file_type: "text/plain", content: "a" }] }],
      ["POST", "invoices", { file_name: "invoice.pdf" }],
      ["POST", "invoices/rdoc_1/ready", undefined],
      ["POST", "complete", undefined],
      ["POST", "cancel", undefined],
    ];
    for (const [method, path, body] of calls) {
      const answer = await h.control(method, `/retrieval-requests/${missing}/${path}`, body);
      expect(expectError(answer, 404, "not_found"), path).toMatch(/retrieval request/i);
    }
  });
});

describe("GET /__mock/deliveries/inbox", () => {
  const h = useServer({ delivery: "inbox" });

  it('with delivery "inbox", records each signed delivery instead of POSTing it, and reset empties it', async () => {
    const hook = await h.api("POST", "/v2/webhooks", {
      name: "inbox",
      url: "https://hooks.example.test/medrecords",
      events: [STATUS_CHANGED],
    });
    expect(hook.status).toBe(201);
    expect(await h.control("GET", "/deliveries/inbox")).toMatchObject({
      status: 200,
      body: { results: [] },
    });

    const rr = await createRetrieval(h);
    const moved = await h.control("POST", `/retrieval-requests/${rr.id}/status`, {
      status: "processing",
      stage: "request_sent",
    });
    expect(moved.status).toBe(200);
    expect((await h.control("POST", "/deliveries/flush")).status).toBe(200);

    const inbox = await h.control("GET", "/deliveries/inbox");
    expect(inbox.status).toBe(200);
    expect(inbox.body.results).toHaveLength(1);
    const [delivery] = inbox.body.results;
    const [logged] = await eventsOf(h, rr.id);
    expect(delivery).toEqual({
      url: "https://hooks.example.test/medrecords",
      headers: expect.objectContaining({ "content-type": "application/json" }),
      body: expect.any(String),
      webhookId: hook.body.id,
      eventId: logged.id,
      attempt: 1,
    });
    // The raw body verifies, byte for byte, with the webhook's secret, on this machine's clock.
    const event = await verifyWebhook({
      payload: delivery.body,
      headers: delivery.headers,
      secret: hook.body.secret,
    });
    expect(event).toMatchObject({
      id: logged.id,
      type: STATUS_CHANGED,
      data: { retrieval_request_id: rr.id },
    });

    expect((await h.control("POST", "/reset")).status).toBe(204);
    expect((await h.control("GET", "/deliveries/inbox")).body).toEqual({ results: [] });
  });
});

describe("GET, PUT, DELETE /__mock/faults", () => {
  const h = useServer();
  afterAll(() => h.server.faults.clear());

  const DEFAULTS = {
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
  };

  it("GET answers the active configuration with its seed; none by default", async () => {
    const answer = await h.control("GET", "/faults");
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ...DEFAULTS, seed: expect.any(Number) });
  });

  it("PUT replaces the configuration and answers it; GET reads it back", async () => {
    const put = await h.control("PUT", "/faults", { errorRate: 0.3, seed: 42 });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ ...DEFAULTS, errorRate: 0.3, seed: 42 });
    expect((await h.control("GET", "/faults")).body).toEqual(put.body);

    // A whole replacement: what is left out goes back to its default.
    const next = await h.control("PUT", "/faults", { reorder: true, seed: 7 });
    expect(next.body).toEqual({
      ...DEFAULTS,
      reorder: { window: 10, maxHoldMs: 100 },
      seed: 7,
    });
  });

  it("faults apply to the API, never to /__mock", async () => {
    await h.control("PUT", "/faults", { errorRate: 1, errorStatuses: [502] });
    const failed = await h.api("GET", "/v2/cases");
    expectError(failed, 502, "bad_gateway");
    expect((await h.control("GET", "/clock")).status).toBe(200);

    await h.control("PUT", "/faults", { rateLimitBurst: 2, retryAfterSeconds: 3 });
    const limited = await h.api("GET", "/v2/cases");
    expectError(limited, 429, "rate_limited");
    expect(limited.headers.get("retry-after")).toBe("3");
    // GET reports what is left of the burst.
    expect((await h.control("GET", "/faults")).body.rateLimitBurst).toBe(1);
  });

  it("a bad option is 400 validation_error and leaves the old configuration in place", async () => {
    const active = await h.control("PUT", "/faults", { latencyMs: 1, seed: 99 });
    expect(active.status).toBe(200);
    const errorRate = await h.control("PUT", "/faults", { errorRate: 2 });
    expect(expectError(errorRate, 400, "validation_error")).toContain("errorRate");
    expectError(await h.control("PUT", "/faults", { errorrate: 0.5 }), 400, "validation_error");
    expectError(
      await h.control("PUT", "/faults", { errorStatuses: [418] }),
      400,
      "validation_error",
    );
    expectError(await h.controlRaw("PUT", "/faults", "{latencyMs: 5}"), 400, "validation_error");
    expect((await h.control("GET", "/faults")).body).toEqual(active.body);
  });

  it("DELETE clears every fault and answers the cleared configuration", async () => {
    await h.control("PUT", "/faults", { errorRate: 1, seed: 5 });
    const cleared = await h.control("DELETE", "/faults");
    expect(cleared.status).toBe(200);
    expect(cleared.body).toEqual({ ...DEFAULTS, seed: expect.any(Number) });
    expect((await h.control("GET", "/faults")).body).toEqual(cleared.body);
    expect((await h.api("GET", "/v2/cases")).status).toBe(200);
  });
});

describe("POST /__mock/reset", () => {
  const h = useServer();

  it("answers 204 and empties every resource; the key, the clock and the faults stay", async () => {
    const caseId = await createCase(h, "Before v. Reset");
    const rr = await createRetrieval(h);
    await h.control("POST", `/retrieval-requests/${rr.id}/status`, {
      status: "processing",
      stage: "request_sent",
    });
    const hook = await h.api("POST", "/v2/webhooks", {
      name: "gone after reset",
      url: "https://hooks.example.test/reset",
      events: [STATUS_CHANGED],
    });
    expect(hook.status).toBe(201);
    await h.control("POST", "/clock/advance", { by: "2h" });
    const faults = await h.control("PUT", "/faults", { latencyMs: 1, seed: 3 });
    const clock = (await h.control("GET", "/clock")).body;

    const reset = await fetch(`${h.server.controlUrl}/reset`, { method: "POST" });
    expect(reset.status).toBe(204);
    expect(await reset.text()).toBe("");
    // (Counted for the endpoint list.)
    expect((await h.control("POST", "/reset")).status).toBe(204);

    // The same key still works, on empty lists.
    const cases = await h.api("GET", "/v2/cases");
    expect(cases.status).toBe(200);
    expect(cases.body.results).toEqual([]);
    expectError(await h.api("GET", `/v2/cases/${caseId}`), 404, "not_found");
    expect((await h.api("GET", "/v2/retrieval-requests")).body.results).toEqual([]);
    expect((await h.api("GET", "/v2/webhooks")).body).toEqual([]);
    expect((await h.api("GET", "/v2/events")).body.results).toEqual([]);
    expectError(await h.control("POST", `/retrieval-requests/${rr.id}/complete`), 404, "not_found");

    expect((await h.control("GET", "/clock")).body).toEqual(clock);
    expect((await h.control("GET", "/faults")).body).toEqual(faults.body);
    await h.control("DELETE", "/faults");
  });
});

describe("POST /__mock/seed/cases, POST /__mock/seed/retrieval-requests", () => {
  const h = useServer();

  it("answers 201 with the seeded resources as the API renders them, without events", async () => {
    const seededCase = await h.control("POST", "/seed/cases", { client_name: "Quill Nobody" });
    expect(seededCase.status).toBe(201);
    expect((await h.api("GET", `/v2/cases/${seededCase.body.id}`)).body).toEqual(seededCase.body);
    const rr = await h.control("POST", "/seed/retrieval-requests", {
      case_id: seededCase.body.id,
      status: "action_required",
      action_required_reason: "missing_hipaa_authorization",
      pending_action_request: { message: "Please sign" },
    });
    expect(rr.status).toBe(201);
    expect(rr.body.pending_action_request).toMatchObject({ requires_pdf: true });
    expect((await h.api("GET", `/v2/retrieval-requests/${rr.body.id}`)).body).toEqual(rr.body);
    expect((await h.api("GET", "/v2/events")).body.results).toEqual([]);
  });

  it("emits the history's events with ?emit=true", async () => {
    const rr = await h.control("POST", "/seed/retrieval-requests?emit=true", {
      status: "processing",
      records: 1,
    });
    const events = (await h.api("GET", `/v2/events?object_id=${rr.body.id}`)).body.results;
    expect(events.map((e: Json) => e.type).sort()).toEqual([DOCUMENTS_AVAILABLE, STATUS_CHANGED]);
  });

  it("answers 400 validation_error for an impossible state or a bad emit, naming the field", async () => {
    const message = expectError(
      await h.control("POST", "/seed/retrieval-requests", { status: "action_required" }),
      400,
      "validation_error",
    );
    expect(message).toMatch(/action_required_reason: status action_required needs a reason/);
    expectError(
      await h.control("POST", "/seed/retrieval-requests?emit=yes", { status: "pending" }),
      400,
      "validation_error",
    );
  });
});

it("the OpenAPI document lists no /__mock/ path: the control API is the mock's, not the service's", () => {
  expect(Object.keys(openApiDocument().paths).filter((path) => path.startsWith("/__mock"))).toEqual(
    [],
  );
});

describe("/__mock/snapshots", () => {
  const h = useServer();

  it("saves state, clock and keys by id, restores them any number of times, and deletes them", async () => {
    const seeded = await h.control("POST", "/seed/cases", {});
    const taken = await h.control("POST", "/snapshots");
    expect(taken.status).toBe(201);
    expect(taken.body).toEqual({ id: expect.stringMatching(/^snap_\d+$/), now: START });
    const later = (await h.control("POST", "/api-keys")).body.api_key;
    await h.control("POST", "/seed/cases", {});
    await h.control("POST", "/clock/advance", { by: "1h" });

    for (let i = 0; i < 2; i++) {
      const restored = await h.control("POST", `/snapshots/${taken.body.id}/restore`);
      expect(restored.body).toEqual({ now: START });
      const cases = (await h.api("GET", "/v2/cases")).body.results;
      expect(cases.map((c: Json) => c.id)).toEqual([seeded.body.id]);
      expectError(await h.api("GET", "/v2/cases", undefined, later), 401, "invalid_api_key");
      await h.control("POST", "/seed/cases", {});
    }
    expect((await h.control("DELETE", `/snapshots/${taken.body.id}`)).status).toBe(204);
    expectError(await h.control("POST", `/snapshots/${taken.body.id}/restore`), 404, "not_found");
  });
});

describe("GET, DELETE /__mock/requests", () => {
  const h = useServer();

  it("lists the API requests received, without control calls, and forgets them", async () => {
    await h.api("GET", "/v2/cases");
    const listed = await h.control("GET", "/requests");
    expect(listed.body.results).toEqual([
      expect.objectContaining({
        method: "GET",
        path: "/v2/cases",
        pathTemplate: "/v2/cases",
        status: 200,
      }),
    ]);
    expect((await h.control("DELETE", "/requests")).status).toBe(204);
    expect((await h.control("GET", "/requests")).body.results).toEqual([]);
  });
});

describe("the inspector's endpoints: GET /__mock/ui, GET /__mock/state, POST .../redeliver", () => {
  const h = useServer({ allowPrivateWebhookUrls: true });

  it("GET /__mock/ui serves the page and its files from this origin only, under a Content-Security-Policy", async () => {
    const page = await h.control("GET", "/ui");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("content-security-policy")).toMatch(/^default-src 'self';/);
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    for (const heading of ["Retrieval requests", "Events", "Deliveries", "Requests", "Clock"]) {
      expect(page.body).toContain(`>${heading}</h2>`);
    }
    // Every address in the page is a path on this origin.
    const addresses = [...(page.body as string).matchAll(/(?:src|href)="([^"]*)"/g)].map(
      (m) => m[1],
    );
    expect(addresses.length).toBeGreaterThan(0);
    for (const address of addresses) expect(address).toMatch(/^(\/__mock\/ui|#)/);
    const files = {
      "/ui/inspector.js": "text/javascript; charset=utf-8",
      "/ui/inspector.css": "text/css; charset=utf-8",
      "/ui/favicon.svg": "image/svg+xml",
    };
    for (const [path, type] of Object.entries(files)) {
      const file = await h.control("GET", path);
      expect({ path, status: file.status, type: file.headers.get("content-type") }).toEqual({
        path,
        status: 200,
        type,
      });
    }
    expect((await h.control("GET", "/ui/other.js")).status).toBe(404);
  });

  it("GET /__mock/state answers the clock, requests with timelines, events, attempts and the journal, without a secret, key or body", async () => {
    const receiver = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(503).end("RECEIVER-ANSWER"));
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const hook = await h.api("POST", "/v2/webhooks", {
      name: "state receiver",
      url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
      events: [STATUS_CHANGED],
    });
    const rr = await createRetrieval(h);
    await h.control("POST", `/retrieval-requests/${rr.id}/action-requests`, {
      reason: "other",
      message: "Confirm the dates (fictional)",
    });
    await h.control("POST", `/retrieval-requests/${rr.id}/records`, {
      files: [{ file_name: "chart.pdf", file_type: "application/pdf", content: PDF }],
    });
    await h.control("POST", "/deliveries/flush");
    receiver.close();
    receiver.closeAllConnections();

    const state = await h.control("GET", "/state");
    expect(state.status).toBe(200);
    expect(state.body.clock).toEqual({ now: h.server.clock.now().toISOString(), mode: "manual" });
    const request = state.body.retrievalRequests.find((r: Json) => r.id === rr.id);
    expect(request).toMatchObject({
      status: "action_required",
      facility: "Harbor Clinic",
      final: false,
      actionRequestOpen: true,
    });
    expect(request.timeline.map((entry: Json) => [entry.kind, entry.text])).toEqual([
      ["created", "at Harbor Clinic"],
      ["status", "action_required (intake): other"],
      ["action request", "other: Confirm the dates (fictional) [open]"],
      ["record", `chart.pdf (${PDF.length} bytes)`],
    ]);
    expect(state.body.events.map((e: Json) => e.type)).toEqual([
      DOCUMENTS_AVAILABLE,
      ACTION_REQUIRED,
      STATUS_CHANGED,
    ]);
    expect(state.body.events[0]).toMatchObject({ object_id: rr.id, request_id: null });
    const webhook = state.body.webhooks.find((w: Json) => w.id === hook.body.id);
    expect(webhook.attempts).toEqual([
      expect.objectContaining({
        attempt: 1,
        event_type: STATUS_CHANGED,
        success: false,
        status_code: 503,
        duration_ms: expect.any(Number),
        error: "The endpoint answered HTTP 503",
      }),
    ]);
    expect(state.body.requests[0]).toEqual({
      at: expect.any(String),
      method: "POST",
      path_template: "/v2/retrieval-requests",
      status: 201,
      request_id: expect.stringMatching(/^req_/),
    });
    const text = JSON.stringify(state.body);
    for (const secret of [h.key, hook.body.secret, "RECEIVER-ANSWER"]) {
      expect(text).not.toContain(secret);
    }
    // Paths with ids are left out: the journal entry shows the template only.
    expect(text).not.toContain(`/v2/retrieval-requests/${rr.id}`);
  });

  it("GET /__mock/state is sent as the inspector's files are: nosniff, and never cached", async () => {
    const state = await h.control("GET", "/state");
    expect(state.status).toBe(200);
    expect(state.headers.get("content-type")).toMatch(/^application\/json/);
    expect(state.headers.get("x-content-type-options")).toBe("nosniff");
    expect(state.headers.get("cache-control")).toBe("no-store");
  });

  it("GET /__mock/state carries the newest 200 retrieval requests, events and journal entries, and says when there are more", async () => {
    const server = await startMockServer({ now: START });
    try {
      const state = async () => (await send(`${server.controlUrl}/state`, "GET")).body;
      const seeded = [server.seed.retrievalRequest({ status: "processing" }).id];
      for (let i = 0; i < 200; i++) {
        server.retrievalRequests.setStatus(seeded[0] as string, {
          status: "processing",
          stage: "provider_processing",
        });
      }
      while (seeded.length < 200)
        seeded.push(server.seed.retrievalRequest({ status: "pending" }).id);
      const key = server.apiKeys.create();
      for (let i = 0; i < 200; i++) await send(`${server.url}/v2/cases`, "GET", { key });
      const at200 = await state();
      expect(at200.more).toEqual({ retrievalRequests: false, events: false, requests: false });
      expect([at200.retrievalRequests.length, at200.events.length, at200.requests.length]).toEqual([
        200, 200, 200,
      ]);

      server.retrievalRequests.setStatus(seeded[0] as string, {
        status: "processing",
        stage: "records_received",
      });
      seeded.push(server.seed.retrievalRequest({ status: "pending" }).id);
      await send(`${server.url}/v2/case`, "GET", { key });
      const at201 = await state();
      expect(at201.more).toEqual({ retrievalRequests: true, events: true, requests: true });
      expect([at201.retrievalRequests.length, at201.events.length, at201.requests.length]).toEqual([
        200, 200, 200,
      ]);
      // Newest first: the one added last leads, the oldest is left out.
      expect(at201.retrievalRequests[0].id).toBe(seeded.at(-1));
      expect(at201.retrievalRequests.map((r: Json) => r.id)).not.toContain(seeded[0]);
      expect(at201.events[0].data.stage).toBe("records_received");
      expect(at201.requests[0]).toMatchObject({ path_template: null, status: 404 });
    } finally {
      await server.close();
    }
  });

  it("POST .../redeliver sends the event once more, as the API's redelivery; an unknown delivery is 404", async () => {
    const receiver = await startReceiver(0);
    const hook = await h.api("POST", "/v2/webhooks", {
      name: "redelivery receiver",
      url: receiver.url,
      events: [STATUS_CHANGED],
    });
    const rr = await createRetrieval(h);
    await h.control("POST", `/retrieval-requests/${rr.id}/complete`);
    await h.control("POST", "/deliveries/flush");
    const [first] = (await h.api("GET", `/v2/webhooks/${hook.body.id}/deliveries`)).body.results;
    const path = `/webhooks/${hook.body.id}/deliveries/${first.id}/redeliver`;
    const again = await h.control("POST", path);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      event_id: first.event_id,
      is_redelivery: true,
      success: true,
    });
    const listed = (await h.api("GET", `/v2/webhooks/${hook.body.id}/deliveries`)).body.results;
    expect(listed.map((d: Json) => d.id)).toEqual([again.body.id, first.id]);
    expect(receiver.received.map((r) => JSON.parse(r.body).id)).toEqual([
      first.event_id,
      first.event_id,
    ]);
    expectError(
      await h.control("POST", `/webhooks/${hook.body.id}/deliveries/whdel_none/redeliver`),
      404,
      "not_found",
    );
    receiver.server.close();
    receiver.server.closeAllConnections();
  });
});

// Last in the file, so it runs after every test above (and is skipped with them under -t).
it("every endpoint of CONTROL_ENDPOINTS answered 2xx in a test above", () => {
  expect(CONTROL_ENDPOINTS.filter((entry) => !answered.has(entry))).toEqual([]);
});
