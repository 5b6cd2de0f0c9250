/** Retrieval requests on the reference server, over plain fetch: create, read, poll, documents. */
import { describe, expect, it } from "vitest";
import type { Case } from "../../src/schemas/cases.js";
import type { ListEnvelope } from "../../src/schemas/common.js";
import type { DownloadResponse } from "../../src/schemas/documents.js";
import type {
  RetrievalDocument,
  RetrievalRequest,
  RetrievalRequestList,
} from "../../src/schemas/retrieval-requests.js";
import { bytesOf, createApi, createCase, expectError, setup } from "./helpers.js";
import { caseUpload, createRetrieval, retrievalUpload } from "./retrieval-helpers.js";

describe("POST /v2/retrieval-requests", () => {
  it("creates a request with an inline case, facility and requestor, from retrieval-level uploads", async () => {
    const { mock, api } = setup();
    const auth = await retrievalUpload(mock, api);
    const extra = await retrievalUpload(mock, api, { file_name: "letter.pdf" });
    const response = await api.post<RetrievalRequest>("/v2/retrieval-requests", {
      case: { title: "Doe v. Acme", client_name: "Jane Doe" },
      facility: {
        name: "Harbor Clinic",
        address: "1 Pier St, Bay City, CA 94000",
        fax: "555-0199",
      },
      requestor: { name: "Ann Counsel", email: "ann@firm.example", organization: "Firm LLP" },
      auth_form: auth,
      attachments: [extra],
      record_types: ["medical_records", "billing_records"],
      date_from: "2025-01-01",
      date_to: "2025-12-31",
      notes: "Rush",
      external_id: "matter-42",
    });
    expect(response.status).toBe(201);
    const created = response.body;
    expect(created).toMatchObject({
      status: "pending",
      stage: "intake",
      action_required_reason: null,
      pending_action_request: null,
      external_id: "matter-42",
      costs: { records_fee: null, invoice_total: null, currency: "USD" },
      documents: [],
      facility: { name: "Harbor Clinic", phone: null, fax: "555-0199" },
    });
    expect(created.id).toMatch(/^ret_[0-9a-f]{24}$/);
    expect(created.public_updated_at).toBe(created.created_at);
    const c = await api.get<Case>(`/v2/cases/${created.case_id}`);
    expect(c.body.title).toBe("Doe v. Acme");
    // The inline facility joined the directory.
    const found = await api.get<ListEnvelope<{ id: string }>>("/v2/facilities?query=harbor%20pier");
    expect(found.body.results.map((f) => f.id)).toEqual([created.facility.id]);
    await expect(api.get(`/v2/retrieval-requests/${created.id}`)).resolves.toMatchObject({
      status: 200,
      body: created,
    });
  });

  it("takes case-level uploads of the referenced case", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const response = await api.post("/v2/retrieval-requests", {
      case_id: c.id,
      facility_id: "fac_st_annes",
      requestor: { name: "Ann", email: "ann@firm.example" },
      auth_form: await caseUpload(mock, api, c.id),
    });
    expect(response.status).toBe(201);
  });

  it("refuses a case-level upload of another case, or any case-level upload with an inline case", async () => {
    const { mock, api } = setup();
    const mine = await createCase(api);
    const other = await createCase(api);
    const foreign = await caseUpload(mock, api, other.id);
    const base = {
      facility_id: "fac_st_annes",
      requestor: { name: "Ann", email: "ann@firm.example" },
    };
    expect(
      expectError(
        await api.post("/v2/retrieval-requests", { ...base, case_id: mine.id, auth_form: foreign }),
        400,
        "upload_not_found",
      ),
    ).toMatch(/^auth_form: /);
    const inline = await api.post("/v2/retrieval-requests", {
      ...base,
      case: { title: "New", client_name: "Jane" },
      auth_form: await retrievalUpload(mock, api),
      attachments: [foreign],
    });
    expect(expectError(inline, 400, "upload_not_found")).toMatch(/^attachments\[0\]: /);
  });

  it("checks every upload before taking any: a refused request creates nothing and consumes nothing", async () => {
    const { mock, api } = setup();
    const auth = await retrievalUpload(mock, api);
    const body = {
      case: { title: "New", client_name: "Jane" },
      facility_id: "fac_st_annes",
      requestor: { name: "Ann", email: "ann@firm.example" },
      auth_form: auth,
      attachments: ["00000000-0000-4000-8000-000000000000"],
    };
    expectError(await api.post("/v2/retrieval-requests", body), 400, "upload_not_found");
    expect((await api.get<ListEnvelope<Case>>("/v2/cases")).body.results).toEqual([]);
    expect((await api.get<ListEnvelope<unknown>>("/v2/requestors")).body.results).toEqual([]);
    const { attachments: _, ...retry } = body;
    expect((await api.post("/v2/retrieval-requests", retry)).status).toBe(201);
    // Now it is used.
    expectError(await api.post("/v2/retrieval-requests", retry), 400, "upload_consumed");
  });

  it("answers expired and incomplete uploads with the document codes", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const base = {
      case_id: c.id,
      facility_id: "fac_st_annes",
      requestor: { name: "Ann", email: "ann@firm.example" },
    };
    const signed = await api.post<{ upload_id: string }>("/v2/retrieval-requests/sign-upload", {
      file_name: "a.pdf",
      file_type: "application/pdf",
    });
    expectError(
      await api.post("/v2/retrieval-requests", { ...base, auth_form: signed.body.upload_id }),
      400,
      "upload_incomplete",
    );
    const old = await retrievalUpload(mock, api);
    mock.clock.advance("1h");
    expect((await api.post("/v2/retrieval-requests", { ...base, auth_form: old })).status).toBe(
      201,
    );
    const late = await retrievalUpload(mock, api);
    mock.clock.advance(3_600_001);
    expectError(
      await api.post("/v2/retrieval-requests", { ...base, auth_form: late }),
      400,
      "upload_expired",
    );
  });

  it("needs exactly one of each id/inline pair, dates in order and each upload once", async () => {
    const { api } = setup();
    const refused = await api.post("/v2/retrieval-requests", {
      case_id: "case_x",
      case: { title: "T", client_name: "C" },
      requestor_id: "r",
      auth_form: "u1",
      attachments: ["u1"],
      date_from: "2025-02-01",
      date_to: "2025-01-31",
    });
    const message = expectError(refused, 400, "validation_error");
    expect(message).toContain("case: Give exactly one of case_id or case");
    expect(message).toContain("facility_id: Give exactly one of facility_id or facility");
    expect(message).toContain("date_to: Must not be before date_from");
    expect(message).toContain("attachments[0]: Each upload_id may be used once");
    expectError(
      await api.post("/v2/retrieval-requests", {
        case_id: "c",
        facility_id: "f",
        requestor_id: "r",
        auth_form: "u",
        surprise: 1,
      }),
      400,
      "validation_error",
    );
  });

  it("answers 404 for a referenced case, facility or requestor that does not exist", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const base = {
      case_id: c.id,
      facility_id: "fac_st_annes",
      requestor: { name: "Ann", email: "ann@firm.example" },
      auth_form: await retrievalUpload(mock, api),
    };
    expectError(
      await api.post("/v2/retrieval-requests", { ...base, case_id: "case_missing" }),
      404,
      "not_found",
    );
    expectError(
      await api.post("/v2/retrieval-requests", { ...base, facility_id: "fac_missing" }),
      404,
      "not_found",
    );
    const { requestor: _, ...byId } = base;
    expectError(
      await api.post("/v2/retrieval-requests", { ...byId, requestor_id: "rqtr_missing" }),
      404,
      "not_found",
    );
    // Nothing was consumed by the refusals.
    expect((await api.post("/v2/retrieval-requests", base)).status).toBe(201);
  });
});

describe("scopes of retrieval requests", () => {
  const inlineBody = (auth: string) => ({
    case: { title: "Doe", client_name: "Jane" },
    facility_id: "fac_st_annes",
    requestor: { name: "Ann", email: "ann@firm.example" },
    auth_form: auth,
  });

  it("an inline case also needs cases:write, an inline requestor requestors:write", async () => {
    const { mock, api } = setup();
    const auth = await retrievalUpload(mock, api);
    const noCases = mock.apiKeys.create({ scopes: ["retrievals:write", "requestors:write"] });
    const message = expectError(
      await api.post("/v2/retrieval-requests", inlineBody(auth), { key: noCases }),
      403,
      "insufficient_scope",
    );
    expect(message).toContain("cases:write");
    const noRequestors = mock.apiKeys.create({ scopes: ["retrievals:write", "cases:write"] });
    expect(
      expectError(
        await api.post("/v2/retrieval-requests", inlineBody(auth), { key: noRequestors }),
        403,
        "insufficient_scope",
      ),
    ).toContain("requestors:write");
    // Scope comes before validation: an invalid inline case still gets 403.
    expectError(
      await api.post(
        "/v2/retrieval-requests",
        { ...inlineBody(auth), case: { title: "" } },
        { key: noCases },
      ),
      403,
      "insufficient_scope",
    );
    const enough = mock.apiKeys.create({
      scopes: ["retrievals:write", "cases:write", "requestors:write"],
    });
    const created = await api.post("/v2/retrieval-requests", inlineBody(auth), { key: enough });
    expect(created.status).toBe(201);
  });

  it("by id, retrievals:write alone is enough; reading needs retrievals:read", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const requestor = await api.post<{ id: string }>("/v2/requestors", {
      name: "Ann",
      email: "ann@firm.example",
    });
    const writer = createApi(mock, mock.apiKeys.create({ scopes: ["retrievals:write"] }));
    const created = await writer.post<RetrievalRequest>("/v2/retrieval-requests", {
      case_id: c.id,
      facility_id: "fac_st_annes",
      requestor_id: requestor.body.id,
      auth_form: await retrievalUpload(mock, writer),
    });
    expect(created.status).toBe(201);
    for (const path of [
      "/v2/retrieval-requests",
      `/v2/retrieval-requests/${created.body.id}`,
      `/v2/retrieval-requests/${created.body.id}/documents`,
      "/v2/facilities?query=mercy",
    ]) {
      expect(expectError(await writer.get(path), 403, "insufficient_scope")).toContain(
        "retrievals:read",
      );
    }
    const reader = createApi(mock, mock.apiKeys.create({ scopes: ["retrievals:read"] }));
    expect(
      expectError(
        await reader.post(`/v2/retrieval-requests/${created.body.id}/action-response`, {
          message: "x",
        }),
        403,
        "insufficient_scope",
      ),
    ).toContain("retrievals:write");
  });
});

describe("GET /v2/retrieval-requests", () => {
  it("lists newest created first, filtered by case and status", async () => {
    const { mock, api } = setup();
    const a = await createRetrieval(mock, api);
    const b = await createRetrieval(mock, api);
    mock.retrievalRequests.setStatus(a.id, { status: "processing", stage: "request_sent" });
    const all = await api.get<RetrievalRequestList>("/v2/retrieval-requests");
    expect(all.body.results.map((r) => r.id)).toEqual([b.id, a.id]);
    const byCase = await api.get<RetrievalRequestList>(
      `/v2/retrieval-requests?case_id=${a.case_id}`,
    );
    expect(byCase.body.results.map((r) => r.id)).toEqual([a.id]);
    const byStatus = await api.get<RetrievalRequestList>("/v2/retrieval-requests?status=pending");
    expect(byStatus.body.results.map((r) => r.id)).toEqual([b.id]);
    expectError(await api.get("/v2/retrieval-requests?status=lost"), 400, "validation_error");
    expectError(
      await api.get("/v2/retrieval-requests?updated_since=yesterday"),
      400,
      "validation_error",
    );
  });

  it("with updated_since: changed after it, oldest change first, and the next since to store", async () => {
    const { mock, api } = setup();
    const a = await createRetrieval(mock, api);
    const b = await createRetrieval(mock, api);
    const c = await createRetrieval(mock, api);
    const since = c.public_updated_at;
    mock.clock.advance("1m");
    mock.retrievalRequests.setStatus(b.id, { status: "processing", stage: "request_sent" });
    mock.retrievalRequests.setStatus(a.id, { status: "processing", stage: "request_sent" });
    // Same mock instant: still strictly increasing.
    mock.retrievalRequests.setStatus(b.id, { status: "processing", stage: "provider_processing" });

    const changed = await api.get<RetrievalRequestList>(
      `/v2/retrieval-requests?updated_since=${encodeURIComponent(since)}`,
    );
    expect(changed.body.results.map((r) => r.id)).toEqual([a.id, b.id]);
    const [first, second] = changed.body.results;
    expect(Date.parse(second!.public_updated_at)).toBeGreaterThan(
      Date.parse(first!.public_updated_at),
    );
    expect(changed.body.next_public_updated_since).toBe(second!.public_updated_at);

    const again = await api.get<RetrievalRequestList>(
      `/v2/retrieval-requests?updated_since=${encodeURIComponent(changed.body.next_public_updated_since!)}`,
    );
    expect(again.body.results).toEqual([]);
    expect(again.body.next_public_updated_since).toBe(changed.body.next_public_updated_since);

    // Pages of the poll keep the order and end with the greatest value.
    const page1 = await api.get<RetrievalRequestList>(
      "/v2/retrieval-requests?updated_since=2000-01-01T00:00:00Z&limit=2",
    );
    expect(page1.body.results.map((r) => r.id)).toEqual([c.id, a.id]);
    expect(page1.body.next_public_updated_since).toBe(page1.body.results[1]!.public_updated_at);
    const page2 = await api.get<RetrievalRequestList>(page1.body.next!);
    expect(page2.body.results.map((r) => r.id)).toEqual([b.id]);
    expect(page2.body.next).toBeNull();
    // Without updated_since and without results there is no value to hand back.
    const none = await api.get<RetrievalRequestList>("/v2/retrieval-requests?case_id=case_none");
    expect(none.body.next_public_updated_since).toBeNull();
  });

  it("with external_id: only the requests whose external_id is exactly the one given", async () => {
    const { mock, api } = setup();
    const a = await createRetrieval(mock, api, { external_id: "rr-1" });
    await createRetrieval(mock, api, { external_id: "rr-10" });
    await createRetrieval(mock, api);
    const matching = await api.get<RetrievalRequestList>("/v2/retrieval-requests?external_id=rr-1");
    expect(matching.body.results.map((r) => r.id)).toEqual([a.id]);
    const withCase = await api.get<RetrievalRequestList>(
      `/v2/retrieval-requests?external_id=rr-1&case_id=${a.case_id}&status=cancelled`,
    );
    expect(withCase.body.results).toEqual([]);
  });

  it("404 for an unknown request", async () => {
    const { api } = setup();
    expectError(await api.get("/v2/retrieval-requests/ret_missing"), 404, "not_found");
    expectError(await api.get("/v2/retrieval-requests/ret_missing/documents"), 404, "not_found");
  });
});

describe("documents of a retrieval request", () => {
  it("records download at once; an invoice is listed not ready and refused with 409 until ready", async () => {
    const { mock, api } = setup();
    const r = await createRetrieval(mock, api);
    const [recordId] = mock.retrievalRequests.releaseRecords(r.id, [
      { file_name: "chart.pdf", file_type: "application/pdf", content: "%PDF-1.4 chart" },
    ]);
    const invoiceId = mock.retrievalRequests.addInvoice(r.id, {
      file_name: "invoice.pdf",
      amount: 42.1,
      records_fee: 30.05,
    });
    const listed = await api.get<ListEnvelope<RetrievalDocument>>(
      `/v2/retrieval-requests/${r.id}/documents`,
    );
    expect(listed.body.results.map((d) => [d.id, d.kind, d.ready])).toEqual([
      [invoiceId, "invoice", false],
      [recordId, "record", true],
    ]);
    const body = (await api.get<RetrievalRequest>(`/v2/retrieval-requests/${r.id}`)).body;
    expect(body.documents.map((d) => d.id)).toEqual([recordId, invoiceId]);
    expect(body.costs).toEqual({ records_fee: 30.05, invoice_total: 42.1, currency: "USD" });

    const record = await api.get<DownloadResponse>(
      `/v2/retrieval-requests/${r.id}/documents/${recordId}/download`,
    );
    expect(record.body.expires_in).toBe(3600);
    const bytes = await mock.fetch(record.body.download_url);
    expect(await bytes.text()).toBe("%PDF-1.4 chart");

    const refused = expectError(
      await api.get(`/v2/retrieval-requests/${r.id}/documents/${invoiceId}/download`),
      409,
      "document_not_ready",
    );
    expect(refused).toMatch(/documents_available/);
    mock.retrievalRequests.markInvoiceReady(r.id, invoiceId);
    const invoice = await api.get<DownloadResponse>(
      `/v2/retrieval-requests/${r.id}/documents/${invoiceId}/download`,
    );
    expect(invoice.status).toBe(200);
    expect((await mock.fetch(invoice.body.download_url)).status).toBe(200);
    expectError(
      await api.get(`/v2/retrieval-requests/${r.id}/documents/rdoc_missing/download`),
      404,
      "not_found",
    );
  });

  it("a download address expires after 3600 s", async () => {
    const { mock, api } = setup();
    const r = await createRetrieval(mock, api);
    const [id] = mock.retrievalRequests.releaseRecords(r.id, [
      { file_name: "a.txt", file_type: "text/plain", content: bytesOf("abc") },
    ]);
    const link = await api.get<DownloadResponse>(
      `/v2/retrieval-requests/${r.id}/documents/${id}/download`,
    );
    mock.clock.advance("3600s");
    expect((await mock.fetch(link.body.download_url)).status).toBe(200);
    mock.clock.advance(1);
    expect((await mock.fetch(link.body.download_url)).status).toBe(403);
  });
});

describe("facilities and requestors", () => {
  it("searches the seeded directory by every word, A to Z, paginated", async () => {
    const { api } = setup();
    const springfield = await api.get<ListEnvelope<{ id: string; name: string }>>(
      "/v2/facilities?query=SPRINGFIELD",
    );
    expect(springfield.body.results.map((f) => f.id)).toEqual([
      "fac_mercy_general",
      "fac_riverside_imaging",
    ]);
    const both = await api.get<ListEnvelope<{ id: string }>>(
      "/v2/facilities?query=springfield%20ma",
    );
    expect(both.body.results.map((f) => f.id)).toEqual(["fac_riverside_imaging"]);
    const paged = await api.get<ListEnvelope<{ name: string }>>("/v2/facilities?query=a&limit=3");
    expect(paged.body.results.map((f) => f.name)).toEqual([
      "Bayview Chiropractic",
      "Cedar Valley Physical Therapy",
      "Greenfield Community Hospital",
    ]);
    expect(paged.body.next).not.toBeNull();
    expectError(await api.get("/v2/facilities"), 400, "validation_error");
    expectError(await api.get("/v2/facilities?query=%20%20"), 400, "validation_error");
  });

  it("creates, reads, updates and lists requestors with their scopes", async () => {
    const { mock, api } = setup();
    const created = await api.post<{ id: string; updated_at: string }>("/v2/requestors", {
      name: "Ann Counsel",
      email: "ann@firm.example",
      phone: "555-0100",
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ organization: null, phone: "555-0100" });
    mock.clock.advance("1m");
    const updated = await api.patch<{ updated_at: string }>(`/v2/requestors/${created.body.id}`, {
      organization: "Firm LLP",
      phone: null,
    });
    expect(updated.body).toMatchObject({
      organization: "Firm LLP",
      phone: null,
      name: "Ann Counsel",
    });
    expect(Date.parse(updated.body.updated_at)).toBeGreaterThan(
      Date.parse(created.body.updated_at),
    );
    await expect(api.get(`/v2/requestors/${created.body.id}`)).resolves.toMatchObject({
      body: updated.body,
    });
    const list = await api.get<ListEnvelope<{ id: string }>>("/v2/requestors");
    expect(list.body.results.map((r) => r.id)).toEqual([created.body.id]);
    expectError(
      await api.post("/v2/requestors", { name: "A", email: "nope" }),
      400,
      "validation_error",
    );
    expectError(await api.get("/v2/requestors/rqtr_missing"), 404, "not_found");

    const reader = mock.apiKeys.create({ scopes: ["requestors:read"] });
    expect(
      expectError(
        await api.post("/v2/requestors", { name: "B", email: "b@firm.example" }, { key: reader }),
        403,
        "insufficient_scope",
      ),
    ).toContain("requestors:write");
    const writer = mock.apiKeys.create({ scopes: ["requestors:write"] });
    expect(
      expectError(await api.get("/v2/requestors", { key: writer }), 403, "insufficient_scope"),
    ).toContain("requestors:read");
  });

  it("reset() empties requests and requestors and restores the directory", async () => {
    const { mock, api } = setup();
    const r = await createRetrieval(mock, api, {
      facility_id: undefined,
      facility: { name: "Temp Clinic", address: "9 Elm" },
    });
    mock.reset();
    expectError(await api.get(`/v2/retrieval-requests/${r.id}`), 404, "not_found");
    const temp = await api.get<ListEnvelope<unknown>>("/v2/facilities?query=temp%20clinic");
    expect(temp.body.results).toEqual([]);
    const mercy = await api.get<ListEnvelope<unknown>>("/v2/facilities?query=mercy");
    expect(mercy.body.results).toHaveLength(1);
  });
});
