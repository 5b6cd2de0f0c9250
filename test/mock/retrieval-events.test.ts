/**
 * The control API (`mock.retrievalRequests`) and the events it emits: types,
 * data, deterministic `rr-` ids, the log-only status fields, and delivery.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { MockService } from "../../src/mock/index.js";
import { Event, SUBSCRIBABLE_EVENT_TYPES, WebhookEvent } from "../../src/schemas/events.js";
import type { RetrievalRequest } from "../../src/schemas/retrieval-requests.js";
import { eventLogForTesting } from "../helpers/mock-internals.js";
import { type Api, START, setup } from "./helpers.js";
import { createRetrieval, EVENT_ID, eventsOf } from "./retrieval-helpers.js";

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

/** A scripted provider-side life of one request; returns what a test compares. */
async function life(mock: MockService, api: Api) {
  const r = await createRetrieval(mock, api);
  const control = mock.retrievalRequests;
  control.setStatus(r.id, { status: "processing", stage: "request_sent" });
  mock.clock.advance("1h");
  const ar = control.openActionRequest(r.id, {
    message: "The authorization is missing.",
    reason: "missing_hipaa_authorization",
  });
  control.setStatus(r.id, { status: "processing", stage: "provider_processing" }); // withdraws it
  const reopened = control.openActionRequest(r.id, {
    message: "Still missing.",
    reason: "missing_hipaa_authorization",
  });
  control.setStatus(r.id, { status: "processing", stage: "records_received" });
  const records = control.releaseRecords(r.id, [
    { file_name: "b.pdf", file_type: "application/pdf", content: "%PDF-b" },
    { file_name: "a.pdf", file_type: "application/pdf", content: "%PDF-a" },
  ]);
  const invoice = control.addInvoice(r.id, { file_name: "invoice.pdf" });
  control.markInvoiceReady(r.id, invoice);
  const readyInvoice = control.addInvoice(r.id, { file_name: "late.pdf", ready: true });
  control.complete(r.id);
  return { r, ar, reopened, records, invoice, readyInvoice };
}

describe("events of the control API", () => {
  it("each change emits its event with the spec's data and a deterministic rr- id", async () => {
    const { mock, api } = setup();
    const { r, ar, reopened, records, invoice, readyInvoice } = await life(mock, api);
    expect(reopened.id).toBe(ar.id);
    const events = eventsOf(mock, r.id);
    expect(events.map((e) => e.type.replace("retrieval_request.", ""))).toEqual([
      "status_changed", // processing / request_sent
      "status_changed", // action_required
      "action_required",
      "status_changed", // withdrawn by setStatus
      "status_changed", // reopened
      "action_required",
      "status_changed", // records_received
      "documents_available", // records
      "documents_available", // invoice made ready (its listing emitted nothing)
      "documents_available", // invoice added ready
      "status_changed", // completed
    ]);
    for (const event of events) {
      expect(event.id).toMatch(EVENT_ID);
      expect(event.request_id).toBeNull();
      expect(event.api_version).toBe("v2");
      expect(() => Event.parse(event)).not.toThrow();
      expect(event.created_at).toBe(event.data.public_updated_at);
      expect(event.data.case_id).toBe(r.case_id);
    }
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    const times = events.map((e) => Date.parse(e.data.public_updated_at as string));
    for (let i = 1; i < times.length; i++) {
      // Events of one change share its instant; different changes never do.
      expect(times[i]).toBeGreaterThanOrEqual(times[i - 1]!);
    }

    const [s1, s2, a1, , , a2, , docs, inv, inv2, done] = events;
    expect(s1!.data).toMatchObject({
      status: "processing",
      stage: "request_sent",
      action_required_reason: null,
    });
    expect(s2!.data).toMatchObject({
      status: "action_required",
      action_required_reason: "missing_hipaa_authorization",
    });
    expect(s1!.id).toBe(
      `rr-${sha(`retrieval_request.status_changed\n${r.id}\n${s1!.data.public_updated_at}`)}`,
    );
    expect(a1!.data).toEqual({
      retrieval_request_id: r.id,
      case_id: r.case_id,
      public_updated_at: s2!.data.public_updated_at,
      action_request_id: ar.id,
    });
    // A reopening is a later occurrence: same action request, new event id.
    expect(a1!.id).toBe(`rr-${sha(`retrieval_request.action_required\n${r.id}\n${ar.id}\n1`)}`);
    expect(a2!.id).toBe(`rr-${sha(`retrieval_request.action_required\n${r.id}\n${ar.id}\n2`)}`);
    expect(docs!.data.document_ids).toEqual(records);
    expect(docs!.data).not.toHaveProperty("invoice_ids");
    expect(docs!.id).toBe(
      `rr-${sha(`retrieval_request.documents_available\n${r.id}\n${[...records].sort().join(",")}`)}`,
    );
    expect(inv!.data).toMatchObject({ document_ids: [invoice], invoice_ids: [invoice] });
    expect(inv2!.data).toMatchObject({ document_ids: [readyInvoice], invoice_ids: [readyInvoice] });
    expect(done!.data).toMatchObject({ status: "completed", stage: "completed" });

    const final = (await api.get<RetrievalRequest>(`/v2/retrieval-requests/${r.id}`)).body;
    expect(final.public_updated_at).toBe(done!.data.public_updated_at);
    expect(final.pending_action_request).toBeNull();
    expect(mock.retrievalRequests.actionRequests(r.id)).toMatchObject([
      { id: ar.id, opening: 2, status: "withdrawn", responses: [] },
    ]);
  });

  it("an identical second run on a fresh mock with the same idSeed gives the same ids", async () => {
    const run = async () => {
      const { mock, api } = setup({ idSeed: "second-run" });
      const result = await life(mock, api);
      return {
        request: result.r.id,
        events: eventLogForTesting(mock).map((e) => [e.id, e.type, e.created_at]),
      };
    };
    const first = await run();
    const second = await run();
    expect(second).toEqual(first);
    expect(first.events.length).toBeGreaterThan(5);
  });

  it("listing an invoice that is not ready is a public change without an event", async () => {
    const { mock, api } = setup();
    const r = await createRetrieval(mock, api);
    const before = eventsOf(mock, r.id).length;
    mock.retrievalRequests.addInvoice(r.id, { file_name: "i.pdf", amount: 10 });
    const after = (await api.get<RetrievalRequest>(`/v2/retrieval-requests/${r.id}`)).body;
    expect(Date.parse(after.public_updated_at)).toBeGreaterThan(Date.parse(r.public_updated_at));
    expect(eventsOf(mock, r.id)).toHaveLength(before);
    expect(after.costs.invoice_total).toBe(10);
  });

  it("setStatus with the same status and stage is a new visible update with a new event", async () => {
    const { mock, api } = setup();
    const r = await createRetrieval(mock, api);
    mock.retrievalRequests.setStatus(r.id, { status: "processing", stage: "request_sent" });
    mock.retrievalRequests.setStatus(r.id, { status: "processing", stage: "request_sent" });
    const [a, b] = eventsOf(mock, r.id);
    expect(a!.id).not.toBe(b!.id);
    expect(Date.parse(b!.data.public_updated_at as string)).toBeGreaterThan(
      Date.parse(a!.data.public_updated_at as string),
    );
  });

  it("delivers the body data (without the log-only fields) under the same ids", async () => {
    const { mock, api } = setup({ delivery: "inbox", lookupHost: async () => ["93.184.215.14"] });
    const hook = await api.post("/v2/webhooks", {
      name: "all",
      url: "https://hooks.example.test/h",
      events: [...SUBSCRIBABLE_EVENT_TYPES],
    });
    expect(hook.status).toBe(201);
    const r = await createRetrieval(mock, api);
    mock.retrievalRequests.setStatus(r.id, { status: "processing", stage: "request_sent" });
    mock.retrievalRequests.openActionRequest(r.id, { message: "?", reason: "other" });
    mock.retrievalRequests.releaseRecords(r.id, [
      { file_name: "a.pdf", file_type: "application/pdf", content: "%PDF-a" },
    ]);
    await mock.deliveries.flush();
    const bodies = mock.deliveries.inbox.map((d) => WebhookEvent.parse(JSON.parse(d.body)));
    const log = eventsOf(mock, r.id);
    expect(bodies.map((b) => b.id)).toEqual(log.map((e) => e.id));
    for (const d of mock.deliveries.inbox) {
      expect(d.headers["x-webhook-event-id"]).toBe(d.eventId);
    }
    const statusBody = bodies[0]!;
    expect(Object.keys(statusBody.data).sort()).toEqual([
      "case_id",
      "public_updated_at",
      "retrieval_request_id",
    ]);
  });
});

describe("control API misuse", () => {
  it("refuses bad arguments with a TypeError naming the field", async () => {
    const { mock, api } = setup();
    const r = await createRetrieval(mock, api);
    const control = mock.retrievalRequests;
    expect(() => control.setStatus(r.id, { status: "lost" as never, stage: "intake" })).toThrow(
      /setStatus: status/,
    );
    expect(() =>
      control.setStatus(r.id, {
        status: "processing",
        stage: "intake",
        action_required_reason: "other",
      }),
    ).toThrow(TypeError);
    expect(() =>
      control.openActionRequest(r.id, {
        message: "x",
        reason: "missing_hipaa_authorization",
        requires_pdf: false,
      }),
    ).toThrow(/requires_pdf: A missing HIPAA authorization must be answered with a signed PDF/);
    expect(() =>
      control.openActionRequest(r.id, {
        message: "x",
        reason: "other",
        requires_pdf: true,
        requires_attachment: false,
      }),
    ).toThrow(/requires_attachment/);
    expect(() => control.releaseRecords(r.id, [])).toThrow(TypeError);
    expect(() => control.addInvoice(r.id, { file_name: "i.pdf", amount: -1 })).toThrow(TypeError);
    // Nothing changed.
    expect(eventsOf(mock, r.id)).toEqual([]);
  });

  it("refuses moves the request cannot make", async () => {
    const { mock, api } = setup();
    const r = await createRetrieval(mock, api);
    const control = mock.retrievalRequests;
    expect(() => control.complete("ret_missing")).toThrow(/does not exist/);
    const ar = control.openActionRequest(r.id, { message: "?", reason: "other" });
    expect(ar).toMatchObject({ requires_attachment: false, requires_pdf: false });
    expect(() => control.openActionRequest(r.id, { message: "?", reason: "other" })).toThrow(
      /already has an open action request/,
    );
    expect(() => control.markInvoiceReady(r.id, "rdoc_missing")).toThrow(/no invoice/);
    control.cancel(r.id);
    expect(() => control.setStatus(r.id, { status: "processing", stage: "intake" })).toThrow(
      /cancelled: a final state/,
    );
    expect(() => control.complete(r.id)).toThrow(/final state/);
    expect(() => control.openActionRequest(r.id, { message: "?", reason: "other" })).toThrow(
      /final state/,
    );
    // Documents may still arrive after a final state (a late invoice).
    expect(control.addInvoice(r.id, { file_name: "late.pdf", ready: true })).toMatch(/^rdoc_/);
  });

  it("clock start matters: a different start gives different status ids", async () => {
    const a = setup({ idSeed: "same" });
    const b = setup({ idSeed: "same", now: new Date(Date.parse(START) + 1000) });
    const ra = await createRetrieval(a.mock, a.api);
    const rb = await createRetrieval(b.mock, b.api);
    expect(ra.id).toBe(rb.id);
    a.mock.retrievalRequests.setStatus(ra.id, { status: "processing", stage: "request_sent" });
    b.mock.retrievalRequests.setStatus(rb.id, { status: "processing", stage: "request_sent" });
    expect(eventsOf(a.mock, ra.id)[0]!.id).not.toBe(eventsOf(b.mock, rb.id)[0]!.id);
  });
});
