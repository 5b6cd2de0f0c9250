import { describe, expect, it } from "vitest";
import { SEED_RECORDS_MAX } from "../../src/mock/controls/seed.js";
import { openApiDocument } from "../../src/openapi/document.js";
import { RETRIEVAL_STATUSES } from "../../src/schemas/retrieval-requests.js";
import { createOpenApiValidator } from "../helpers/openapi-validator.js";
import { setup } from "./helpers.js";
import { caseUpload, EVENT_ID, eventsOf, PDF } from "./retrieval-helpers.js";

const validator = createOpenApiValidator(openApiDocument());

const HIPAA = {
  status: "action_required",
  action_required_reason: "missing_hipaa_authorization",
  pending_action_request: { message: "Please sign the HIPAA authorization" },
} as const;

function expectValid(method: string, url: string, body: unknown) {
  expect(validator.validateResponse({ method, url, status: 200, body })).toEqual([]);
}

describe("mock.seed.case", () => {
  it("stores a case with fictional defaults, rendered as GET /v2/cases/{id} renders it", async () => {
    const { mock, api } = setup();
    const seeded = mock.seed.case();
    expect(seeded).toMatchObject({ title: "Seeded v. Placeholder", status: "active" });
    expectValid("GET", `/v2/cases/${seeded.id}`, seeded);
    const read = await api.get(`/v2/cases/${seeded.id}`);
    expect(read.body).toEqual(seeded);
  });

  it("takes any field of case creation, and the archived status creation refuses", () => {
    const { mock } = setup();
    const seeded = mock.seed.case({ client_name: "Quill Nobody", status: "archived" });
    expect(seeded).toMatchObject({ client_name: "Quill Nobody", status: "archived" });
  });

  it("refuses an invalid field with a TypeError naming it", () => {
    const { mock } = setup();
    expect(() => mock.seed.case({ client_email: "not an email" })).toThrow(
      /mock\.seed\.case: client_email: /,
    );
    expect(() => mock.seed.case({ bogus: 1 } as never)).toThrow(TypeError);
  });
});

describe("mock.seed.retrievalRequest", () => {
  it("puts a request in action_required with an open HIPAA action request, without an event", async () => {
    const { mock, api } = setup();
    const seeded = mock.seed.retrievalRequest(HIPAA);
    expect(seeded).toMatchObject({
      status: "action_required",
      stage: "provider_processing",
      action_required_reason: "missing_hipaa_authorization",
      pending_action_request: {
        message: "Please sign the HIPAA authorization",
        reason: "missing_hipaa_authorization",
        requires_attachment: true,
        requires_pdf: true,
        opened_at: seeded.public_updated_at,
      },
    });
    expectValid("GET", `/v2/retrieval-requests/${seeded.id}`, seeded);
    expect((await api.get(`/v2/retrieval-requests/${seeded.id}`)).body).toEqual(seeded);
    expect(eventsOf(mock, seeded.id)).toEqual([]);
  });

  it("leaves a seeded action request answerable through the API like one the provider opened", async () => {
    const { mock, api } = setup();
    const seeded = mock.seed.retrievalRequest(HIPAA);
    const upload = await caseUpload(mock, api, seeded.case_id as string, { content: PDF });
    const answer = await api.post(`/v2/retrieval-requests/${seeded.id}/action-response`, {
      message: "Signed form attached",
      attachment: { upload_id: upload },
    });
    expect(answer.status).toBe(200);
    const after = await api.get<{ status: string; pending_action_request: unknown }>(
      `/v2/retrieval-requests/${seeded.id}`,
    );
    expect(after.body).toMatchObject({ status: "processing", pending_action_request: null });
  });

  it("lists records and invoices; costs, readiness and every status validate against openapi.json", () => {
    const { mock } = setup();
    const seeded = mock.seed.retrievalRequest({
      status: "completed",
      records: 2,
      invoices: [{ ready: true, amount: 12.5, records_fee: 10 }, { ready: false }],
    });
    expect(seeded.documents.map((d) => [d.kind, d.file_name, d.ready])).toEqual([
      ["record", "record-1.pdf", true],
      ["record", "record-2.pdf", true],
      ["invoice", "invoice-1.pdf", true],
      ["invoice", "invoice-2.pdf", false],
    ]);
    expect(seeded.costs).toEqual({ records_fee: 10, invoice_total: 12.5, currency: "USD" });
    for (const status of RETRIEVAL_STATUSES) {
      const reason = status === "action_required" ? "other" : null;
      const other = mock.seed.retrievalRequest({ status, action_required_reason: reason });
      expectValid("GET", `/v2/retrieval-requests/${other.id}`, other);
    }
  });

  it("uses an existing case when case_id is given, and refuses an unknown one before storing anything", async () => {
    const { mock, api } = setup();
    const c = mock.seed.case();
    expect(mock.seed.retrievalRequest({ case_id: c.id, status: "pending" }).case_id).toBe(c.id);
    expect(() =>
      mock.seed.retrievalRequest({ case_id: "case_missing", status: "pending" }),
    ).toThrow(/case_id: no case case_missing/);
    const cases = await api.get<{ results: unknown[] }>("/v2/cases");
    const requests = await api.get<{ results: unknown[] }>("/v2/retrieval-requests");
    expect([cases.body.results.length, requests.body.results.length]).toEqual([1, 1]);
  });

  it("emits the events of the history it stands for with { emit: true }", () => {
    const { mock } = setup();
    const seeded = mock.seed.retrievalRequest(
      { ...HIPAA, records: 1, invoices: [{ ready: true }, { ready: false }] },
      { emit: true },
    );
    const events = eventsOf(mock, seeded.id);
    expect(events.map((e) => e.type)).toEqual([
      "retrieval_request.status_changed",
      "retrieval_request.action_required",
      "retrieval_request.documents_available",
      "retrieval_request.documents_available",
    ]);
    for (const event of events) expect(event.id).toMatch(EVENT_ID);
    const [, , records, invoices] = events;
    expect(records?.data).toMatchObject({ document_ids: [seeded.documents[0]?.id] });
    expect(invoices?.data).toMatchObject({ invoice_ids: [seeded.documents[1]?.id] });
  });

  it("emits nothing for a seeded pending request, as creation emits nothing", () => {
    const { mock } = setup();
    const seeded = mock.seed.retrievalRequest({ status: "pending" }, { emit: true });
    expect(eventsOf(mock, seeded.id)).toEqual([]);
  });

  it.each([
    [
      { status: "action_required" },
      /action_required_reason: status action_required needs a reason/,
    ],
    [
      { status: "processing", action_required_reason: "other" },
      /action_required_reason: only status action_required has a reason/,
    ],
    [
      { status: "processing", pending_action_request: { message: "x" } },
      /pending_action_request: only status action_required/,
    ],
    [
      { status: "completed", stage: "quality_review" },
      /stage: status completed goes with stage completed/,
    ],
    [
      { status: "processing", stage: "cancelled" },
      /stage: stage cancelled goes with status cancelled/,
    ],
    [
      { ...HIPAA, pending_action_request: { message: "x", requires_pdf: false } },
      /requires_pdf: A missing HIPAA authorization must be answered with a signed PDF/,
    ],
    [
      {
        status: "action_required",
        action_required_reason: "other",
        pending_action_request: { message: " " },
      },
      /message: /,
    ],
    [{ status: "shipped" }, /status: /],
    [{ status: "pending", records: -1 }, /records: /],
  ])("refuses %j with a clear TypeError", (input, message) => {
    const { mock } = setup();
    expect(() => mock.seed.retrievalRequest(input as never)).toThrow(TypeError);
    expect(() => mock.seed.retrievalRequest(input as never)).toThrow(message);
  });

  it(`takes up to ${SEED_RECORDS_MAX} records and refuses one more`, () => {
    const { mock } = setup();
    const seeded = mock.seed.retrievalRequest({ status: "processing", records: SEED_RECORDS_MAX });
    expect(seeded.documents).toHaveLength(SEED_RECORDS_MAX);
    expect(() =>
      mock.seed.retrievalRequest({ status: "processing", records: SEED_RECORDS_MAX + 1 }),
    ).toThrow(/records: /);
  });

  it("refuses an unknown option", () => {
    const { mock } = setup();
    expect(() =>
      mock.seed.retrievalRequest({ status: "pending" }, { emitt: true } as never),
    ).toThrow(TypeError);
  });
});
