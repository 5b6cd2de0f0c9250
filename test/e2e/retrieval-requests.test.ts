/**
 * Retrieval requests through the client, with `validateResponses: true`,
 * against the reference server inside MSW: the whole life of a request with
 * its events, the action-response rules at their boundaries, the scope
 * combinations, and the incremental poll.
 */
import { beforeEach, describe, expect, it } from "vitest";
import {
  BadRequestError,
  ConflictError,
  MedRecords,
  PermissionError,
  type RetrievalRequest,
  ValidationError,
} from "../../src/index.js";
import type { MockServiceCore } from "../../src/mock/index.js";
import { SUBSCRIBABLE_EVENT_TYPES, WebhookEvent } from "../../src/schemas/events.js";
import { eventLogForTesting } from "../helpers/mock-internals.js";
import { presignedPut, useReferenceServers } from "./transport.js";

const NOW = "2026-06-15T12:00:00.000Z";
const PDF = "%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n% signed HIPAA authorization\n%%EOF\n";
const EVENT_ID = /^rr-[0-9a-f]{64}$/;

const newMock = (name: string) => ({
  now: NOW,
  baseUrl: `https://${name}.medrecords.test`,
  storageUrl: `https://${name}-storage.medrecords.test`,
  delivery: "inbox" as const,
  lookupHost: async () => ["93.184.215.14"],
});

// Two services used by one test only, with one idSeed: the same calls give them the same ids.
const {
  services: { mock, twin, seeded },
} = await useReferenceServers({
  mock: newMock("api"),
  twin: { ...newMock("twin"), idSeed: "e2e-twins" },
  seeded: { ...newMock("seeded"), idSeed: "e2e-twins" },
});
let sent: string[] = [];

function clientFor(service: MockServiceCore, key = service.apiKeys.create()) {
  return new MedRecords({
    apiKey: key,
    baseUrl: service.baseUrl,
    validateResponses: true,
    maxRetries: 0,
    hooks: { onRequest: (info) => sent.push(`${info.method} ${info.path}`) },
  });
}
const mr = clientFor(mock);

beforeEach(() => {
  mock.reset();
  twin.reset();
  seeded.reset();
  mock.clock.set(NOW);
  twin.clock.set(NOW);
  seeded.clock.set(NOW);
  sent = [];
});

const pdfFile = (name = "authorization.pdf") => new File([PDF], name, { type: "application/pdf" });

async function bytesAt(url: string): Promise<string> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return response.text();
}

/** A request on an inline case at an inline facility, with an auth form from `uploadFile`. */
async function createRequest(client: MedRecords, fields: Partial<Record<string, unknown>> = {}) {
  const auth_form = await client.retrievalRequests.uploadFile({ file: pdfFile() });
  return client.retrievalRequests.create({
    case: { title: "Doe v. Acme", client_name: "Jane Doe", date_of_injury: "2026-01-02" },
    facility: { name: "Harbor Clinic", address: "1 Pier St, Bay City, CA 94000" },
    requestor: { name: "Ann Counsel", email: "ann@firm.example" },
    auth_form,
    record_types: ["medical_records"],
    ...fields,
  });
}

/**
 * The whole life of a request, as the firm's app and the provider (the
 * control API) would drive it. Returns what the determinism check compares.
 */
async function wholeLife(service: MockServiceCore, client: MedRecords) {
  const hook = await client.webhooks.create({
    name: "records",
    url: "https://hooks.example.test/medrecords",
    events: [...SUBSCRIBABLE_EVENT_TYPES],
  });
  expect(hook.secret).toMatch(/^whsec_/);

  // 1. Create, with an inline case and facility and the auth form uploaded at retrieval level.
  const created = await createRequest(client);
  expect(created).toMatchObject({
    status: "pending",
    stage: "intake",
    pending_action_request: null,
    facility: { name: "Harbor Clinic" },
  });
  const caseId = created.case_id!;
  await expect(client.cases.retrieve(caseId)).resolves.toMatchObject({ title: "Doe v. Acme" });
  const id = created.id;

  // 2. The provider starts processing.
  service.retrievalRequests.setStatus(id, { status: "processing", stage: "request_sent" });
  expect((await client.retrievalRequests.retrieve(id)).status).toBe("processing");

  // 3. It needs a HIPAA authorization, as a signed PDF.
  const ar = service.retrievalRequests.openActionRequest(id, {
    message: "The HIPAA authorization is missing. Please upload a signed copy.",
    reason: "missing_hipaa_authorization",
    requires_pdf: true,
  });
  const waiting = await client.retrievalRequests.retrieve(id);
  expect(waiting).toMatchObject({
    status: "action_required",
    action_required_reason: "missing_hipaa_authorization",
    pending_action_request: { id: ar.id, requires_pdf: true, requires_attachment: true },
  });

  // 4. An answer without the attachment is rejected and the request stays open.
  const rejected = await client.retrievalRequests
    .respondToAction(id, { message: "Sending it shortly." })
    .catch((e: unknown) => e);
  expect(rejected).toBeInstanceOf(BadRequestError);
  expect(rejected).toMatchObject({ status: 400, code: "action_response_rejected" });
  expect((rejected as BadRequestError).serviceMessage).toMatch(/signed PDF/);
  expect((await client.retrievalRequests.retrieve(id)).pending_action_request?.id).toBe(ar.id);

  // 5. The signed PDF, uploaded under the case with cases.signUpload + PUT, is accepted.
  const signed = await client.cases.signUpload(caseId, {
    file_name: "hipaa-signed.pdf",
    file_type: "application/pdf",
  });
  const put = await presignedPut(signed.upload_url, PDF, "application/pdf");
  expect(put.status).toBe(200);
  const { data: answer, requestId: answerRequestId } = await client.retrievalRequests
    .respondToAction(id, {
      message: "  Signed authorization attached.  ",
      requester_email: "paralegal@firm.example",
      attachment: { upload_id: signed.upload_id },
    })
    .withResponse();
  expect(answer).toMatchObject({ id: ar.id, retrieval_request_id: id, status: "responded" });
  const answered = await client.retrievalRequests.retrieve(id);
  expect(answered).toMatchObject({ status: "processing", pending_action_request: null });
  expect(answered.public_updated_at).toBe(answer.responded_at);
  expect(service.retrievalRequests.actionRequests(id)[0]?.responses[0]).toMatchObject({
    message: "Signed authorization attached.",
    responder: "paralegal@firm.example",
    attachment: { upload_id: signed.upload_id, file_name: "hipaa-signed.pdf" },
  });

  // 6. Records are released: listed, downloaded, byte for byte.
  service.clock.advance("2d");
  const recordIds = service.retrievalRequests.releaseRecords(id, [
    { file_name: "chart.pdf", file_type: "application/pdf", content: "%PDF-1.4 chart" },
    { file_name: "xray.png", file_type: "image/png", content: new Uint8Array([137, 80, 78, 71]) },
  ]);
  const docs = await client.retrievalRequests.listDocuments(id);
  expect(docs.results.map((d) => d.id).sort()).toEqual([...recordIds].sort());
  const chart = await client.retrievalRequests.documentDownloadUrl(id, recordIds[0]!);
  expect(chart.expires_in).toBe(3600);
  expect(await bytesAt(chart.download_url)).toBe("%PDF-1.4 chart");
  // `downloadDocument`, the deprecated name of `documentDownloadUrl`, still works.
  const xray = await client.retrievalRequests.downloadDocument(id, recordIds[1]!);
  expect(new Uint8Array(await (await fetch(xray.download_url)).arrayBuffer())).toEqual(
    new Uint8Array([137, 80, 78, 71]),
  );

  // 7. An invoice is listed before it can be downloaded, then made ready.
  const invoiceId = service.retrievalRequests.addInvoice(id, {
    file_name: "invoice-1001.pdf",
    amount: 48.5,
    records_fee: 35,
    content: "%PDF-1.4 invoice",
  });
  const listed = await client.retrievalRequests.listDocuments(id);
  expect(listed.results.find((d) => d.id === invoiceId)).toMatchObject({
    kind: "invoice",
    ready: false,
  });
  const refused = await client.retrievalRequests
    .documentDownloadUrl(id, invoiceId)
    .catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(ConflictError);
  expect(refused).toMatchObject({ status: 409, code: "document_not_ready" });
  service.retrievalRequests.markInvoiceReady(id, invoiceId);
  const invoice = await client.retrievalRequests.documentDownloadUrl(id, invoiceId);
  expect(await bytesAt(invoice.download_url)).toBe("%PDF-1.4 invoice");
  expect((await client.retrievalRequests.retrieve(id)).costs).toEqual({
    records_fee: 35,
    invoice_total: 48.5,
    currency: "USD",
  });

  // 8. Completed.
  service.retrievalRequests.complete(id);
  const done = await client.retrievalRequests.retrieve(id);
  expect(done).toMatchObject({ status: "completed", stage: "completed" });

  await service.deliveries.flush();
  return { id, caseId, ar, recordIds, invoiceId, answerRequestId, done };
}

describe("the whole life of a retrieval request", () => {
  it("create, process, action request rejected then answered, records, invoice, completed, with every event", async () => {
    const { id, caseId, ar, recordIds, invoiceId, answerRequestId, done } = await wholeLife(
      mock,
      mr,
    );

    const log = eventLogForTesting(mock);
    expect(log.map((e) => e.type)).toEqual([
      "retrieval_request.status_changed", // processing / request_sent
      "retrieval_request.status_changed", // action_required
      "retrieval_request.action_required",
      "retrieval_request.status_changed", // answered: processing
      "retrieval_request.documents_available", // records
      "retrieval_request.documents_available", // invoice ready
      "retrieval_request.status_changed", // completed
    ]);
    for (const event of log) {
      expect(event.id).toMatch(EVENT_ID);
      expect(event.data).toMatchObject({ retrieval_request_id: id, case_id: caseId });
      expect(event.created_at).toBe(event.data.public_updated_at);
    }
    expect(new Set(log.map((e) => e.id)).size).toBe(log.length);
    const [processing, actionStatus, action, answered, records, invoice, completed] = log;
    expect(processing!.data).toMatchObject({
      status: "processing",
      stage: "request_sent",
      action_required_reason: null,
    });
    expect(actionStatus!.data).toMatchObject({
      status: "action_required",
      action_required_reason: "missing_hipaa_authorization",
    });
    expect(action!.data).toEqual({
      retrieval_request_id: id,
      case_id: caseId,
      public_updated_at: actionStatus!.data.public_updated_at,
      action_request_id: ar.id,
    });
    // Only the answer came through the API: its event carries that call's request id.
    expect(log.map((e) => e.request_id)).toEqual([
      null,
      null,
      null,
      answerRequestId,
      null,
      null,
      null,
    ]);
    expect(answered!.data).toMatchObject({ status: "processing", action_required_reason: null });
    expect(records!.data).toEqual({
      retrieval_request_id: id,
      case_id: caseId,
      public_updated_at: records!.data.public_updated_at,
      document_ids: recordIds,
    });
    expect(invoice!.data).toMatchObject({ document_ids: [invoiceId], invoice_ids: [invoiceId] });
    expect(completed!.data).toMatchObject({
      status: "completed",
      stage: "completed",
      public_updated_at: done.public_updated_at,
    });

    // The subscribed webhook got each event once, same id, body data without the log-only fields.
    const delivered = mock.deliveries.inbox.map((d) => WebhookEvent.parse(JSON.parse(d.body)));
    expect(delivered.map((e) => e.id)).toEqual(log.map((e) => e.id));
    expect(delivered[0]!.data).toEqual({
      retrieval_request_id: id,
      case_id: caseId,
      public_updated_at: processing!.data.public_updated_at,
    });
  });

  it("an identical run on a fresh mock with the same idSeed and clock start gives the same event ids", async () => {
    const first = await wholeLife(twin, clientFor(twin));
    const second = await wholeLife(seeded, clientFor(seeded));
    expect(second.id).toBe(first.id);
    const ids = (service: MockServiceCore) =>
      eventLogForTesting(service).map((e) => [e.type, e.id]);
    expect(ids(seeded)).toEqual(ids(twin));
    expect(ids(twin)).toHaveLength(7);
    // Without the seed, the same run shares no id with them.
    const other = await wholeLife(mock, mr);
    expect(other.id).not.toBe(first.id);
    const unseeded = new Set(ids(mock).map(([, id]) => id));
    expect(ids(twin).filter(([, id]) => unseeded.has(id))).toEqual([]);
  });
});

describe("respondToAction at every rule's boundary", () => {
  async function open(fields: { requires_attachment?: boolean } = {}) {
    const created = await createRequest(mr);
    mock.retrievalRequests.openActionRequest(created.id, {
      message: "Please confirm the provider's name.",
      reason: "additional_information_needed",
      ...fields,
    });
    return created;
  }

  it("10000 characters pass; 10001 and whitespace-only fail before sending", async () => {
    const r = await open();
    sent = [];
    for (const message of ["x".repeat(10_001), "   \n\t"]) {
      const error = await mr.retrievalRequests
        .respondToAction(r.id, { message })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues[0]?.path).toBe("message");
      expect((error as ValidationError).requestId).toBeUndefined();
    }
    expect(sent).toEqual([]);
    const answer = await mr.retrievalRequests.respondToAction(r.id, {
      message: "x".repeat(10_000),
    });
    expect(answer.status).toBe("responded");
    expect(sent).toEqual(["POST /v2/retrieval-requests/{retrieval_request_id}/action-response"]);
  });

  it('"  x  " is stored trimmed, and the key identity is the responder without requester_email', async () => {
    const r = await open();
    await mr.retrievalRequests.respondToAction(r.id, { message: "  x  " });
    const [recorded] = mock.retrievalRequests.actionRequests(r.id);
    expect(recorded?.responses[0]).toMatchObject({ message: "x", requester_email: null });
    expect(recorded?.responses[0]?.responder).toMatch(/^key_/);
  });

  it("answering when nothing is open fails; the retry after a rejection succeeds; requester_email is recorded", async () => {
    const r = await createRequest(mr);
    const nothing = await mr.retrievalRequests
      .respondToAction(r.id, { message: "hello" })
      .catch((e: unknown) => e);
    expect(nothing).toMatchObject({ status: 400, code: "action_response_rejected" });
    expect((nothing as BadRequestError).serviceMessage).toMatch(/no open action request/);

    mock.retrievalRequests.openActionRequest(r.id, {
      message: "Upload the intake form.",
      reason: "additional_information_needed",
      requires_attachment: true,
    });
    const first = await mr.retrievalRequests
      .respondToAction(r.id, { message: "done" })
      .catch((e: unknown) => e);
    expect(first).toMatchObject({ code: "action_response_rejected" });
    expect((await mr.retrievalRequests.retrieve(r.id)).status).toBe("action_required");
    const upload_id = await mr.retrievalRequests.uploadFile({
      file: new Blob(["intake"], { type: "text/plain" }),
      file_name: "intake.txt",
      case_id: r.case_id!,
    });
    const retry = await mr.retrievalRequests.respondToAction(r.id, {
      message: "done",
      requester_email: "paralegal@firm.example",
      attachment: { upload_id },
    });
    expect(retry.status).toBe("responded");
    expect(mock.retrievalRequests.actionRequests(r.id)[0]?.responses[0]?.responder).toBe(
      "paralegal@firm.example",
    );
  });

  it("a retrieval-level upload is no answer attachment (rule 4)", async () => {
    const r = await open({ requires_attachment: true });
    const upload_id = await mr.retrievalRequests.uploadFile({ file: pdfFile() });
    const error = await mr.retrievalRequests
      .respondToAction(r.id, { message: "here", attachment: { upload_id } })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "action_response_rejected" });
    expect((error as BadRequestError).serviceMessage).toMatch(/upload_not_found/);
  });
});

describe("scope combinations through the client", () => {
  it("an inline case without cases:write is a PermissionError naming cases:write", async () => {
    const limited = clientFor(
      mock,
      mock.apiKeys.create({ scopes: ["retrievals:write", "requestors:write"] }),
    );
    const error = await createRequest(limited).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionError);
    expect(error).toMatchObject({
      status: 403,
      code: "insufficient_scope",
      requiredScope: "cases:write",
    });
  });

  it("an inline requestor without requestors:write is a PermissionError naming requestors:write", async () => {
    const limited = clientFor(
      mock,
      mock.apiKeys.create({ scopes: ["retrievals:write", "cases:write"] }),
    );
    const error = await createRequest(limited).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionError);
    expect(error).toMatchObject({ requiredScope: "requestors:write" });
    // By id, the requestor needs no requestors:write.
    const profile = await mr.requestors.create({ name: "Ann", email: "ann@firm.example" });
    const created = await createRequest(limited, {
      requestor: undefined,
      requestor_id: profile.id,
    });
    expect(created.status).toBe("pending");
  });
});

describe("changes({ since })", () => {
  const ids = (requests: RetrievalRequest[]) => requests.map((r) => r.id);

  async function collect(since?: string | null, limit?: number) {
    const changes = mr.retrievalRequests.changes({ since, limit });
    const seen: RetrievalRequest[] = [];
    for await (const request of changes) seen.push(request);
    return { seen, nextSince: changes.nextSince };
  }

  it("returns each changed request once and a next since that returns nothing until another change", async () => {
    const a = await createRequest(mr);
    const b = await createRequest(mr);
    const c = await createRequest(mr);

    const first = await collect(undefined, 2); // two pages
    expect(ids(first.seen)).toEqual([a.id, b.id, c.id]);
    expect(first.nextSince).toBe(c.public_updated_at);

    const quiet = await collect(first.nextSince);
    expect(quiet.seen).toEqual([]);
    expect(quiet.nextSince).toBe(first.nextSince);

    mock.clock.advance("5m");
    mock.retrievalRequests.setStatus(b.id, { status: "processing", stage: "request_sent" });
    mock.retrievalRequests.setStatus(a.id, { status: "processing", stage: "request_sent" });
    mock.retrievalRequests.setStatus(b.id, { status: "processing", stage: "provider_processing" });
    const next = await collect(quiet.nextSince, 1);
    expect(ids(next.seen)).toEqual([a.id, b.id]);
    expect(next.seen[1]?.stage).toBe("provider_processing");
    expect(next.nextSince).toBe(next.seen[1]?.public_updated_at);
    expect((await collect(next.nextSince)).seen).toEqual([]);
  });

  it("pages() hands each page with the since to store; a loop that stops early resumes at-least-once", async () => {
    const a = await createRequest(mr);
    const b = await createRequest(mr);
    const pages = [];
    for await (const page of mr.retrievalRequests.changes({ limit: 1 }).pages()) pages.push(page);
    expect(pages.map((p) => ids(p.requests))).toEqual([[a.id], [b.id]]);
    expect(pages.map((p) => p.nextSince)).toEqual([a.public_updated_at, b.public_updated_at]);

    const changes = mr.retrievalRequests.changes({});
    for await (const request of changes) {
      expect(request.id).toBe(a.id);
      break; // the loop never asked for the next one
    }
    const resumed = await collect(changes.nextSince);
    expect(ids(resumed.seen)).toEqual([a.id, b.id]);
  });

  it("list() accepts the poll envelope and refuses a bad since before sending", async () => {
    const a = await createRequest(mr);
    const page = await mr.retrievalRequests.list({ updated_since: "2026-01-01T00:00:00Z" });
    expect(ids(page.results)).toEqual([a.id]);
    sent = [];
    await expect(
      mr.retrievalRequests.changes({ since: "yesterday" }).pages().next(),
    ).rejects.toBeInstanceOf(ValidationError);
    expect(sent).toEqual([]);
  });
});

describe("facilities and requestors through the client", () => {
  it("searches the directory and uses a facility by id", async () => {
    const found = await mr.facilities.search({ query: "mercy" });
    expect(found.results).toEqual([
      expect.objectContaining({ id: "fac_mercy_general", name: "Mercy General Hospital" }),
    ]);
    const all = [];
    for await (const f of mr.facilities.search({ query: "a", limit: 4 })) all.push(f.name);
    expect(all.length).toBeGreaterThan(4);
    const created = await createRequest(mr, {
      facility: undefined,
      facility_id: found.results[0]!.id,
    });
    expect(created.facility.id).toBe("fac_mercy_general");
  });

  it("creates, retrieves, updates and lists requestors", async () => {
    const created = await mr.requestors.create({
      name: "Ann Counsel",
      email: "ann@firm.example",
      organization: "Firm LLP",
    });
    const updated = await mr.requestors.update(created.id, {
      phone: "555-0100",
      organization: null,
    });
    expect(updated).toMatchObject({
      phone: "555-0100",
      organization: null,
      email: "ann@firm.example",
    });
    await expect(mr.requestors.retrieve(created.id)).resolves.toEqual(updated);
    const page = await mr.requestors.list();
    expect(page.results.map((r) => r.id)).toEqual([created.id]);
    await expect(mr.requestors.create({ name: "", email: "x" })).rejects.toBeInstanceOf(
      ValidationError,
    );
  });
});
