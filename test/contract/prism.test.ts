/**
 * The contract run: Stoplight Prism in proxy mode, given the generated
 * OpenAPI document, in front of the reference server over real HTTP. Every
 * operation of the contract (src/contract) is called through it, with valid
 * requests (through the SDK where it can send them) and invalid ones (raw
 * fetch). Prism reports what it finds in each answer's `sl-violations`
 * header; the run asserts:
 *
 * - no response violation in any exchange: every answer matches the document;
 * - no request violation for a valid request;
 * - for an invalid request, Prism reports a request violation AND the server
 *   answers 4xx: the document and the server agree on what is invalid.
 *
 * The reference server is `startMockServer` in this process rather than the
 * `medrecords mock` CLI: the same HTTP adapter, and the script can open an
 * action request or release records directly, without a control-API round
 * trip or a bundle step. Presigned upload addresses point at the mock's
 * storage origin, not through Prism: they are not part of the document.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATIONS } from "../../src/contract/index.js";
import { MedRecords } from "../../src/index.js";
import { MOCK_FACILITIES, type MockServer, startMockServer } from "../../src/mock/index.js";
import { openApiDocument } from "../../src/openapi/document.js";
import { ACTION_RESPONSE_MESSAGE_MAX } from "../../src/schemas/retrieval-requests.js";

const root = resolve(import.meta.dirname, "../..");
const PRISM = join(root, "node_modules/.bin/prism");

/** "METHOD path" of an operation, as the contract and the document write it. */
type OperationKey = string;

interface Violation {
  location: string[];
  severity: string;
  code?: string | number;
  message: string;
}

interface Exchange {
  operation: OperationKey;
  kind: "valid" | "invalid";
  /** What the request is, for failure messages. */
  what: string;
  status: number;
  request: Violation[];
  response: Violation[];
  /** Set when the server's side of this expectation waits on another change. */
  awaiting?: string;
}

const ROUTES = OPERATIONS.map(({ method, path }) => ({
  key: `${method} ${path}`,
  method,
  regex: new RegExp(`^${path.replace(/\{\w+\}/g, "[^/]+")}$`),
}));

function operationOf(method: string, url: string): OperationKey {
  const path = new URL(url).pathname;
  const found = ROUTES.find((route) => route.method === method && route.regex.test(path));
  if (found === undefined) throw new Error(`no route for ${method} ${path}`);
  return found.key;
}

let mock: MockServer;
let prism: ChildProcess | undefined;
let prismOutput = "";
let prismUrl: string;
let apiKey: string;
let tmp: string;
const exchanges: Exchange[] = [];

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/** Waits until Prism answers on its port, at most `ms`; fails with its output otherwise. */
async function waitForPrism(ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (prism?.exitCode !== null) break;
    const ok = await fetch(`${prismUrl}/v2/openapi.json`).then(
      () => true,
      () => false,
    );
    if (ok) return;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`Prism did not start listening:\n${prismOutput}`);
}

function violationsOf(response: Response): { request: Violation[]; response: Violation[] } {
  const header = response.headers.get("sl-violations");
  const all = header === null ? [] : (JSON.parse(header) as Violation[]);
  return {
    request: all.filter((v) => v.location[0] === "request"),
    response: all.filter((v) => v.location[0] === "response"),
  };
}

let kind: Exchange["kind"] = "valid";
let what = "";

/** A fetch that records each exchange through Prism with its violations. */
const recordingFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const method = request.method;
  const url = request.url;
  const response = await fetch(request);
  if (url.startsWith(prismUrl)) {
    exchanges.push({
      operation: operationOf(method, url),
      kind,
      what: what || `${method} ${new URL(url).pathname}`,
      status: response.status,
      ...violationsOf(response),
    });
  }
  return response;
};

/** The SDK, pointed at Prism. */
const client = () =>
  new MedRecords({
    apiKey,
    baseUrl: prismUrl,
    fetch: recordingFetch,
    maxRetries: 0,
    validateResponses: true,
  });

interface RawRequest {
  method: string;
  path: string;
  /** A JSON value, or a string sent as is. */
  body?: unknown;
  contentType?: string;
  /** Send no Authorization header. */
  anonymous?: boolean;
  why: string;
  /**
   * The server does not refuse this yet: its expectation (4xx, and a
   * response that matches the document) waits on another change.
   */
  awaiting?: string;
}

/** Sends a request through Prism as is, past the SDK's own validation (and normalization). */
async function sendRaw(raw: RawRequest, as: Exchange["kind"] = "invalid"): Promise<number> {
  const headers: Record<string, string> = {};
  if (!raw.anonymous) headers.authorization = `Bearer ${apiKey}`;
  let body: string | undefined;
  if (raw.body !== undefined) {
    body = typeof raw.body === "string" ? raw.body : JSON.stringify(raw.body);
    headers["content-type"] = raw.contentType ?? "application/json";
  }
  kind = as;
  what = `${raw.method} ${raw.path}: ${raw.why}`;
  try {
    const response = await recordingFetch(`${prismUrl}${raw.path}`, {
      method: raw.method,
      headers,
      body,
    });
    await response.arrayBuffer();
    const last = exchanges.at(-1);
    if (last !== undefined && raw.awaiting !== undefined) last.awaiting = raw.awaiting;
    return response.status;
  } finally {
    kind = "valid";
    what = "";
  }
}

/** Runs an SDK call that must be answered with `status` (an error status rejects). */
async function expectStatus(status: number, call: () => PromiseLike<unknown>): Promise<void> {
  await Promise.resolve(call()).then(
    () => undefined,
    () => undefined,
  );
  expect(exchanges.at(-1)?.status).toBe(status);
}

async function putBytes(uploadUrl: string, type: string, content: string): Promise<void> {
  const put = await fetch(uploadUrl, {
    method: "PUT",
    headers: { "content-type": type },
    body: content,
  });
  expect(put.status).toBe(200);
}

beforeAll(async () => {
  mock = await startMockServer({ delivery: "inbox" });
  apiKey = mock.apiKeys.create();
  tmp = await mkdtemp(join(tmpdir(), "medrecords-contract-"));
  const document = join(tmp, "openapi.json");
  await writeFile(document, JSON.stringify(openApiDocument()));
  const port = await freePort();
  prismUrl = `http://127.0.0.1:${port}`;
  prism = spawn(
    process.execPath,
    [
      PRISM,
      "proxy",
      document,
      mock.url,
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "--errors=false",
      "--verboseLevel",
      "error",
    ],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } },
  );
  prism.stdout?.on("data", (chunk: Buffer) => {
    prismOutput += chunk.toString();
  });
  prism.stderr?.on("data", (chunk: Buffer) => {
    prismOutput += chunk.toString();
  });
  await waitForPrism(20_000);
}, 30_000);

afterAll(async () => {
  if (prism !== undefined && prism.exitCode === null) {
    const exited = new Promise((done) => prism?.once("exit", done));
    prism.kill("SIGTERM");
    await exited;
  }
  await mock?.close();
  if (tmp !== undefined) await rm(tmp, { recursive: true, force: true });
});

describe("the OpenAPI document and the reference server, through Prism's proxy", () => {
  it("agree on every operation, for valid and invalid requests", async () => {
    const mr = client();
    const hex = (n: number) => "x".repeat(n);

    // ---------------------------------------------------------------- valid, through the SDK
    const kase = await mr.cases.create({
      title: "Doe v. Acme",
      client_name: "Jane Doe",
      client_email: "jane@example.com",
    });
    // RFC 5322 characters in the local part: valid by the document's email pattern and the server.
    await mr.cases.update(kase.id, { client_email: "a&b@firm.example" });
    await mr.requestors.create({ name: "Ops", email: "x/y=z@firm.example" });
    await mr.cases.list({ limit: 1 });
    await mr.cases.retrieve(kase.id);
    await mr.cases.update(kase.id, { description: "Rear-end collision" });
    const caseUpload = await mr.cases.signUpload(kase.id, {
      file_name: "intake.pdf",
      file_type: "application/pdf",
    });
    await putBytes(caseUpload.upload_url, "application/pdf", "%PDF-1.7 intake");
    const document = await mr.cases.createDocument(kase.id, {
      upload_id: caseUpload.upload_id,
      path: "/intake",
    });
    await mr.documents.list({ case_id: kase.id, archived: false });
    await mr.documents.retrieve(document.id);
    await mr.documents.update(document.id, { archived: true });
    await mr.documents.download(document.id);

    const facility = MOCK_FACILITIES[0]!;
    await mr.facilities.search({ query: facility.name });
    const requestor = await mr.requestors.create({ name: "Pat Lee", email: "pat@firm.example" });
    await mr.requestors.list();
    await mr.requestors.retrieve(requestor.id);
    await mr.requestors.update(requestor.id, { phone: "+1-555-0100" });

    const authForm = async () => {
      const upload = await mr.retrievalRequests.signUpload({
        file_name: "hipaa.pdf",
        file_type: "application/pdf",
      });
      await putBytes(upload.upload_url, "application/pdf", "%PDF-1.7 hipaa");
      return upload.upload_id;
    };
    const retrieval = await mr.retrievalRequests.create({
      case_id: kase.id,
      facility_id: facility.id,
      requestor_id: requestor.id,
      auth_form: await authForm(),
    });
    // The combination rules: an inline case and an inline requestor.
    await mr.retrievalRequests.create({
      case: { title: "Roe v. Beta", client_name: "Sam Roe" },
      facility: { name: "Harbor Clinic", address: "1 Harbor Rd" },
      requestor: { name: "Alex Kim", email: "alex@firm.example" },
      auth_form: await authForm(),
    });
    await mr.retrievalRequests.list({ case_id: kase.id });
    await mr.retrievalRequests.retrieve(retrieval.id);

    mock.retrievalRequests.openActionRequest(retrieval.id, {
      message: "Please confirm the dates of care.",
      reason: "additional_information_needed",
    });
    await mr.retrievalRequests.respondToAction(retrieval.id, {
      message: "The dates of care are 2025-01-01 to 2025-03-01.",
      requester_email: "paralegal@firm.example",
    });
    // The longest message after trimming, with surrounding spaces: valid though longer than the
    // bound raw. Sent raw: the SDK trims before sending.
    mock.retrievalRequests.openActionRequest(retrieval.id, {
      message: "Anything else?",
      reason: "other",
    });
    const longest = {
      method: "POST",
      path: `/v2/retrieval-requests/${retrieval.id}/action-response`,
      body: { message: `  ${hex(ACTION_RESPONSE_MESSAGE_MAX)}  ` },
      why: "the longest message, between spaces",
    };
    expect(await sendRaw(longest, "valid")).toBe(200);
    const [recordId] = mock.retrievalRequests.releaseRecords(retrieval.id, [
      { file_name: "chart.pdf", file_type: "application/pdf", content: "%PDF-1.4 chart" },
    ]);
    await mr.retrievalRequests.listDocuments(retrieval.id, { limit: 10 });
    await mr.retrievalRequests.downloadDocument(retrieval.id, recordId!);

    const webhook = await mr.webhooks.create({
      name: "Records",
      url: "https://hooks.example.test/records",
      events: ["retrieval_request.status_changed"],
    });
    await mr.webhooks.list();
    await mr.webhooks.retrieve(webhook.id);
    await mr.webhooks.update(webhook.id, { description: "status changes" });
    await mr.webhooks.test(webhook.id);
    // A second test within 10 seconds: 429 rate_limited with Retry-After, as documented.
    await expectStatus(429, () => mr.webhooks.test(webhook.id));
    const deliveries = await mr.webhooks.listDeliveries(webhook.id);
    await mr.webhooks.redeliver(webhook.id, deliveries.results[0]!.id);

    const events = await mr.events.list({ type: ["retrieval_request.action_required"] });
    await mr.events.retrieve(events.results[0]!.id);

    // A general rate limit (the mock's fault injection): 429 with Retry-After on any operation.
    mock.faults.set({ rateLimitBurst: 1 });
    await expectStatus(429, () => mr.cases.retrieve(kase.id));
    mock.faults.clear();
    await mr.webhooks.delete(webhook.id);

    // ---------------------------------------------------------------- invalid, raw
    const rr = `/v2/retrieval-requests/${retrieval.id}`;
    const other = await mr.webhooks.create({
      name: "Other",
      url: "https://hooks.example.test/other",
      events: ["retrieval_request.action_required"],
    });
    const live = `/v2/webhooks/${other.id}`;
    const invalid: RawRequest[] = [
      { method: "POST", path: "/v2/cases", body: { title: "" }, why: "client_name missing" },
      {
        method: "POST",
        path: "/v2/cases",
        body: JSON.stringify({ title: "t", client_name: "c" }),
        contentType: "text/plain",
        why: "a JSON body sent as text/plain",
      },
      { method: "GET", path: "/v2/cases?limit=0", why: "limit below 1" },
      // Not `limit=0x10`: Prism reads a query integer with Number(), so it takes hexadecimal.
      { method: "GET", path: "/v2/cases?limit=1.5", why: "limit not an integer" },
      {
        method: "PATCH",
        path: `/v2/cases/${kase.id}`,
        body: { client_email: "a b@firm.example" },
        why: "client_email with a space",
      },
      {
        method: "PATCH",
        path: `/v2/cases/${kase.id}`,
        body: { status: "bogus" },
        why: "status not in the enum",
      },
      {
        method: "POST",
        path: `/v2/cases/${kase.id}/sign-upload`,
        body: { file_name: "a.pdf" },
        why: "file_type missing",
      },
      {
        method: "POST",
        path: `/v2/cases/${kase.id}/documents`,
        body: {},
        why: "upload_id missing",
      },
      { method: "GET", path: "/v2/documents?archived=maybe", why: "archived not true/false" },
      {
        method: "PATCH",
        path: `/v2/documents/${document.id}`,
        body: { archived: "yes" },
        why: "archived not a boolean",
      },
      {
        method: "POST",
        path: "/v2/retrieval-requests/sign-upload",
        body: { file_name: hex(501), file_type: "application/pdf" },
        why: "file_name over 500 characters",
      },
      {
        method: "POST",
        path: "/v2/retrieval-requests",
        body: { auth_form: "u" },
        why: "no case, facility or requestor",
      },
      { method: "GET", path: "/v2/retrieval-requests?status=bogus", why: "status not in the enum" },
      { method: "GET", path: `${rr}/documents?limit=101`, why: "limit over 100" },
      { method: "POST", path: `${rr}/action-response`, body: {}, why: "message missing" },
      {
        method: "POST",
        path: `${rr}/action-response`,
        body: { message: " \t " },
        why: "message blank after trimming",
      },
      { method: "GET", path: "/v2/facilities", why: "query missing" },
      {
        method: "POST",
        path: "/v2/requestors",
        body: { name: "n", email: "not-an-email" },
        why: "email not an email",
      },
      { method: "GET", path: "/v2/requestors?limit=abc", why: "limit not an integer" },
      {
        method: "PATCH",
        path: `/v2/requestors/${requestor.id}`,
        body: { email: 5 },
        why: "email not a string",
      },
      {
        method: "POST",
        path: "/v2/webhooks",
        body: { name: "n", url: "https://hooks.example.test/h", events: [] },
        why: "no events",
      },
      {
        method: "POST",
        path: "/v2/webhooks",
        body: {
          name: "n2",
          url: "https://hööks.example.test/h",
          events: ["retrieval_request.status_changed"],
        },
        why: "url not an ASCII URI",
      },
      {
        method: "POST",
        path: "/v2/webhooks",
        body: {
          name: "n3",
          url: "mailto:ops@firm.example",
          events: ["retrieval_request.status_changed"],
        },
        why: "url not http or https",
      },
      {
        method: "PATCH",
        path: live,
        body: { url: "https://u:p@hooks.example.test/h" },
        why: "url with user info",
      },
      { method: "PATCH", path: live, body: {}, why: "no property" },
      { method: "DELETE", path: live, body: { force: true }, why: "a body it does not take" },
      { method: "POST", path: `${live}/test`, body: { x: 1 }, why: "a body it does not take" },
      { method: "GET", path: `${live}/deliveries?limit=0`, why: "limit below 1" },
      {
        method: "POST",
        path: `${live}/deliveries/${deliveries.results[0]!.id}/redeliver`,
        body: { x: 1 },
        why: "a body it does not take",
      },
      { method: "GET", path: "/v2/events?limit=0", why: "limit below 1" },
    ];
    // Every operation of the contract without an API key: 401, and a request violation to Prism.
    for (const op of OPERATIONS) {
      const path = op.path.replace(/\{(\w+)\}/g, "x_$1");
      invalid.push({ method: op.method, path, anonymous: true, why: "no API key" });
    }
    for (const raw of invalid) await sendRaw(raw);

    // ---------------------------------------------------------------- the verdict
    const show = (list: Exchange[]) =>
      list.map(({ what, status, request, response }) => ({ what, status, request, response }));
    // Every answer matches the document.
    expect(
      show(exchanges.filter((e) => e.response.length > 0 && e.awaiting === undefined)),
      "response violations",
    ).toEqual([]);
    // Valid requests are valid to the document.
    expect(
      show(exchanges.filter((e) => e.kind === "valid" && e.request.length > 0)),
      "request violations of valid requests",
    ).toEqual([]);
    const refused = exchanges.filter((e) => e.kind === "invalid");
    expect(refused).toHaveLength(invalid.length);
    // Invalid requests: Prism reports them...
    expect(
      show(refused.filter((e) => e.request.length === 0)),
      "invalid requests Prism accepts",
    ).toEqual([]);
    // ...and the server refuses them.
    expect(
      show(refused.filter((e) => (e.status < 400 || e.status >= 500) && e.awaiting === undefined)),
      "invalid requests the server accepts",
    ).toEqual([]);

    // Every operation of the contract was exercised both ways (the invalid way at least without a
    // key): a new operation fails here until a valid exchange is scripted.
    const missing = (k: Exchange["kind"]) =>
      ROUTES.map(({ key }) => key).filter(
        (key) => !exchanges.some((e) => e.operation === key && e.kind === k),
      );
    expect(missing("valid"), "operations without a valid request").toEqual([]);
    expect(missing("invalid"), "operations without an invalid request").toEqual([]);
  }, 60_000);
});
