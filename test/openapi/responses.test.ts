/**
 * Real answers of the reference server, checked against the OpenAPI
 * document: every call below goes through `mock.fetch` and its response must
 * match the operation's documented status and schema.
 */
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { createMockService, type MockService } from "../../src/mock/index.js";
import { openApiDocument } from "../../src/openapi/document.js";
import type { Case } from "../../src/schemas/cases.js";
import { SUBSCRIBABLE_EVENT_TYPES } from "../../src/schemas/events.js";
import type { RetrievalRequest } from "../../src/schemas/retrieval-requests.js";
import type { WebhookCreateResponse, WebhookDelivery } from "../../src/schemas/webhooks.js";
import { createOpenApiValidator } from "../helpers/openapi-validator.js";
import {
  type Api,
  type CallOptions,
  createApi,
  createCase,
  START,
  uploadDocument,
} from "../mock/helpers.js";
import { createRetrieval } from "../mock/retrieval-helpers.js";

const validator = createOpenApiValidator(openApiDocument());

let mock: MockService;
let api: Api;
/** "METHOD template" of every operation whose answer was checked. */
const covered = new Set<string>();

/** The helpers' Api, with every answer validated against the document. */
function checkedApi(service: MockService, key: string): Api {
  const raw = createApi(service, key);
  const call: Api["call"] = async (method, path, options) => {
    const response = await raw.call(method, path, options);
    const problems = validator.validateResponse({
      method,
      url: path,
      status: response.status,
      body: response.body,
    });
    expect(problems, `${method} ${path} → ${response.status}`).toEqual([]);
    covered.add(validator.operationOf(method, path) ?? `${method} ${path}`);
    return response as never;
  };
  return {
    call,
    get: (path: string, options?: CallOptions) => call("GET", path, options),
    post: (path: string, body?: unknown, options?: CallOptions) =>
      call("POST", path, { ...options, body }),
    patch: (path: string, body?: unknown, options?: CallOptions) =>
      call("PATCH", path, { ...options, body }),
  } as Api;
}

beforeEach(() => {
  mock = createMockService({ now: START, delivery: "inbox" });
  api = checkedApi(mock, mock.apiKeys.create());
});

afterAll(() => {
  // Runs only when the whole file ran: then every documented operation answered at least once.
  if (covered.size === 0) return;
  const documented = Object.entries(openApiDocument().paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
  );
  expect(documented.filter((operation) => !covered.has(operation))).toEqual([]);
});

describe("responses of the reference server match the document", () => {
  it("cases and documents: create, read, update, list envelopes, uploads, downloads", async () => {
    const kase = await createCase(api, { client_email: "jane@example.com", status: "pending" });
    expect((await api.get(`/v2/cases/${kase.id}`)).status).toBe(200);
    expect((await api.patch(`/v2/cases/${kase.id}`, { description: null })).status).toBe(200);
    await createCase(api);
    const page = await api.get<{ next: string | null }>("/v2/cases?limit=1");
    expect(page.body.next).toMatch(/^https:/);
    expect((await api.get(page.body.next!)).status).toBe(200);

    const document = await uploadDocument(mock, api, kase.id, { path: "intake" });
    expect((await api.get(`/v2/documents?case_id=${kase.id}&archived=false`)).status).toBe(200);
    expect((await api.get(`/v2/documents/${document.id}`)).status).toBe(200);
    expect((await api.patch(`/v2/documents/${document.id}`, { archived: true })).status).toBe(200);
    expect((await api.get(`/v2/documents/${document.id}/download`)).status).toBe(200);
  });

  it("errors: 400 validation_error, 401, 403, 404, 409 and 429 in the error shape", async () => {
    const invalid = await api.post("/v2/cases", { title: "" });
    expect(invalid).toMatchObject({ status: 400, body: { error: { code: "validation_error" } } });
    expect((await api.post("/v2/cases", { title: "t", client_name: "c", extra: 1 })).status).toBe(
      400,
    );
    expect((await api.get("/v2/cases?bogus=1")).status).toBe(400);
    expect((await api.call("POST", "/v2/cases", { raw: "{" })).status).toBe(400);

    expect((await api.get("/v2/cases", { key: null })).status).toBe(401);
    const unknownKey = await api.get("/v2/cases", { key: "medrecords_sk_live_unknown" });
    expect(unknownKey).toMatchObject({ status: 401, body: { error: { code: "invalid_api_key" } } });

    const readOnly = mock.apiKeys.create({ scopes: ["cases:read"] });
    const forbidden = await api.post(
      "/v2/cases",
      { title: "t", client_name: "c" },
      { key: readOnly },
    );
    expect(forbidden).toMatchObject({
      status: 403,
      body: { error: { code: "insufficient_scope" } },
    });

    const missing = await api.get("/v2/cases/case_missing");
    expect(missing).toMatchObject({ status: 404, body: { error: { code: "not_found" } } });

    const hook = { name: "Records", url: "https://hooks.example.test/a", events: ["webhook.test"] };
    expect((await api.post("/v2/webhooks", hook)).status).toBe(400);
    const tooLong = await api.post("/v2/webhooks", { ...hook, name: "n".repeat(101) });
    expect(tooLong).toMatchObject({ status: 400, body: { error: { code: "invalid_request" } } });
    hook.events = ["retrieval_request.status_changed"];
    const created = await api.post<WebhookCreateResponse>("/v2/webhooks", hook);
    expect(created.status).toBe(201);
    expect(await api.post("/v2/webhooks", hook)).toMatchObject({
      status: 409,
      body: { error: { code: "conflict" } },
    });
    expect((await api.post(`/v2/webhooks/${created.body.id}/test`)).status).toBe(200);
    expect(await api.post(`/v2/webhooks/${created.body.id}/test`)).toMatchObject({
      status: 429,
      body: { error: { code: "rate_limited" } },
    });
  });

  it("webhooks: the bare-array list, update, deliveries, redelivery, 204 on delete", async () => {
    const created = await api.post<WebhookCreateResponse>("/v2/webhooks", {
      name: "Records",
      url: "https://hooks.example.test/medrecords",
      events: ["retrieval_request.status_changed"],
      description: null,
    });
    const id = created.body.id;
    const list = await api.get<unknown[]>("/v2/webhooks");
    expect(list.body).toHaveLength(1);
    expect((await api.get(`/v2/webhooks/${id}`)).status).toBe(200);
    expect((await api.patch(`/v2/webhooks/${id}`, { is_enabled: false })).status).toBe(200);
    expect((await api.patch(`/v2/webhooks/${id}`, { is_enabled: true })).status).toBe(200);
    expect((await api.post(`/v2/webhooks/${id}/test`)).status).toBe(200);
    const deliveries = await api.get<{ results: WebhookDelivery[] }>(
      `/v2/webhooks/${id}/deliveries`,
    );
    const delivery = deliveries.body.results[0]!;
    const redelivered = await api.post(`/v2/webhooks/${id}/deliveries/${delivery.id}/redeliver`);
    expect(redelivered.status).toBe(200);
    const deleted = await api.call("DELETE", `/v2/webhooks/${id}`);
    expect(deleted).toMatchObject({ status: 204, body: undefined });
  });

  it("retrieval requests, facilities, requestors and the event log; every delivery too", async () => {
    await api.post("/v2/webhooks", {
      name: "Everything",
      url: "https://hooks.example.test/all",
      events: [...SUBSCRIBABLE_EVENT_TYPES],
    });
    const hooks = await api.get<{ id: string }[]>("/v2/webhooks");
    expect((await api.post(`/v2/webhooks/${hooks.body[0]!.id}/test`)).status).toBe(200);

    expect((await api.get("/v2/facilities?query=mercy")).status).toBe(200);
    const requestor = await api.post<{ id: string }>("/v2/requestors", {
      name: "Ann Counsel",
      email: "ann@firm.example",
    });
    expect(requestor.status).toBe(201);
    expect((await api.get("/v2/requestors")).status).toBe(200);
    expect((await api.get(`/v2/requestors/${requestor.body.id}`)).status).toBe(200);
    expect((await api.patch(`/v2/requestors/${requestor.body.id}`, { phone: null })).status).toBe(
      200,
    );

    const request = await createRetrieval(mock, api);
    const rr = request.id;
    const control = mock.retrievalRequests;
    control.setStatus(rr, { status: "processing", stage: "request_sent" });
    const [recordId] = control.releaseRecords(rr, [
      { file_name: "chart.pdf", file_type: "application/pdf", content: "%PDF-1.7" },
    ]);
    const invoiceId = control.addInvoice(rr, { file_name: "invoice.pdf", amount: 25 });
    const notReady = await api.get(`/v2/retrieval-requests/${rr}/documents/${invoiceId}/download`);
    expect(notReady).toMatchObject({
      status: 409,
      body: { error: { code: "document_not_ready" } },
    });
    control.markInvoiceReady(rr, invoiceId);
    control.openActionRequest(rr, {
      message: "Which dates?",
      reason: "additional_information_needed",
    });

    const read = await api.get<RetrievalRequest>(`/v2/retrieval-requests/${rr}`);
    expect(read.body.pending_action_request).not.toBeNull();
    const poll = await api.get<{ next_public_updated_since: string | null }>(
      `/v2/retrieval-requests?updated_since=${encodeURIComponent(START)}&limit=5`,
    );
    expect(poll.body.next_public_updated_since).not.toBeNull();
    expect((await api.get(`/v2/retrieval-requests/${rr}/documents`)).status).toBe(200);
    expect(
      (await api.get(`/v2/retrieval-requests/${rr}/documents/${recordId}/download`)).status,
    ).toBe(200);
    const answer = await api.post(`/v2/retrieval-requests/${rr}/action-response`, {
      message: "  2019 to 2024  ",
    });
    expect(answer.status).toBe(200);
    const again = await api.post(`/v2/retrieval-requests/${rr}/action-response`, {
      message: "again",
    });
    expect(again).toMatchObject({
      status: 400,
      body: { error: { code: "action_response_rejected" } },
    });

    const events = await api.get<{ results: { id: string; type: string }[] }>("/v2/events");
    const types = new Set(events.body.results.map((event) => event.type));
    expect(types).toEqual(new Set([...SUBSCRIBABLE_EVENT_TYPES]));
    const oneEvent = events.body.results[0]!;
    expect((await api.get(`/v2/events/${oneEvent.id}`)).status).toBe(200);
    const filtered = `/v2/events?type=retrieval_request.status_changed,webhook.disabled&created_after=${encodeURIComponent(START)}`;
    expect((await api.get(filtered)).status).toBe(200);

    await mock.deliveries.flush();
    const delivered = new Set<string>();
    for (const delivery of mock.deliveries.inbox) {
      const body = JSON.parse(delivery.body) as { type: string };
      delivered.add(body.type);
      expect(validator.validateDelivery({ headers: delivery.headers, body }), body.type).toEqual(
        [],
      );
    }
    expect(delivered).toEqual(new Set([...types, "webhook.test"]));
  });
});

describe("the validator is not vacuous", () => {
  const kase: Case = {
    id: "case_1",
    case_number: "C-000001",
    title: "Doe v. Acme",
    client_name: "Jane Doe",
    case_category: "personal_injury",
    status: "active",
    created_at: START,
    updated_at: START,
  };
  const check = (method: string, url: string, status: number, body: unknown) =>
    validator.validateResponse({ method, url, status, body });

  it("accepts a right body and refuses wrong ones", () => {
    expect(check("GET", "https://api.medrecords.test/v2/cases/case_1", 200, kase)).toEqual([]);
    const { title: _title, ...untitled } = kase;
    expect(check("GET", "/v2/cases/case_1", 200, untitled).join()).toMatch(/title/);
    expect(check("GET", "/v2/cases/case_1", 200, { ...kase, surprise: 1 }).join()).toMatch(
      /additional properties/,
    );
    expect(check("GET", "/v2/cases/case_1", 200, { ...kase, created_at: "yesterday" })).not.toEqual(
      [],
    );
    expect(check("GET", "/v2/cases", 200, [kase]).join()).toMatch(/must be object/);
    expect(check("GET", "/v2/cases/case_1", 404, { error: { code: "not_found" } })).not.toEqual([]);
  });

  it("refuses an undocumented status, path or method, and a body where none is documented", () => {
    expect(check("GET", "/v2/cases/case_1", 418, {})).toEqual([
      "GET /v2/cases/{case_id} 418: undocumented status",
    ]);
    expect(check("POST", "/v2/cases", 200, kase)).toEqual([
      "POST /v2/cases 200: undocumented status",
    ]);
    // Any operation may answer 5xx with the error body, and nothing else.
    const failing = { error: { code: "service_unavailable", message: "Try again." } };
    expect(check("POST", "/v2/cases", 503, failing)).toEqual([]);
    expect(check("POST", "/v2/cases", 503, kase)).not.toEqual([]);
    expect(check("GET", "/v2/nowhere", 200, {})).toEqual([
      "no path in the document matches /v2/nowhere",
    ]);
    expect(check("PUT", "/v2/cases/case_1", 200, kase)).toEqual([
      "PUT /v2/cases/{case_id} is not in the document",
    ]);
    expect(check("DELETE", "/v2/webhooks/wh_1", 204, { id: "wh_1" })).toEqual([
      "DELETE /v2/webhooks/{id} 204: documented without a body, got one",
    ]);
    expect(check("GET", "/v2/cases/case_1", 200, undefined)).toEqual([
      "GET /v2/cases/{case_id} 200: documented with a body, got none",
    ]);
  });

  it("refuses a delivery without its signature headers or with a wrong body", () => {
    const body = {
      id: "evt_test_0b7e2a44-5a0e-4c55-9d0a-3f1c2b8e9d10",
      type: "webhook.test",
      created_at: START,
      data: { webhook_id: "wh_1" },
    };
    expect(validator.validateDelivery({ headers: {}, body }).join()).toMatch(
      /X-Service-Signature-V1 is missing/,
    );
    const headers = {
      "x-webhook-event-id": body.id,
      "x-webhook-event-type": body.type,
      "x-service-timestamp": "1772359200",
      "x-service-signature-v1": `v1=${"0".repeat(64)}`,
    };
    expect(validator.validateDelivery({ headers, body })).toEqual([]);
    expect(validator.validateDelivery({ headers, body: { ...body, data: {} } })).not.toEqual([]);
  });
});
