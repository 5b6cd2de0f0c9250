/**
 * Every id that goes into a path template, for every method: "" and the dot
 * segments "." and ".." are refused before sending (a URL parser resolves a
 * dot segment away, so `cases.retrieve("..")` would call `GET /v2/`), and
 * every other value is sent, percent-encoded, in its own segment.
 */
import { describe, expect, it } from "vitest";
import { OPERATIONS, pathParamNames } from "../../src/contract/index.js";
import { MedRecords, ValidationError } from "../../src/index.js";
import { API_KEY, BASE_URL, json, scriptedFetch } from "../helpers/scripted-fetch.js";

const file = () => ({
  file: new Uint8Array([1]),
  file_name: "a.pdf",
  file_type: "application/pdf",
});

interface Row {
  /** The path template the id fills, as the contract declares it. */
  template: string;
  /** The placeholder under test; any other placeholder gets `OTHER`. */
  param: string;
  call: (mr: MedRecords, id: string) => PromiseLike<unknown>;
}

const OTHER = "x_1";

const rows: Record<string, Row> = {
  "cases.retrieve": {
    template: "/v2/cases/{case_id}",
    param: "case_id",
    call: (mr, id) => mr.cases.retrieve(id),
  },
  "cases.update": {
    template: "/v2/cases/{case_id}",
    param: "case_id",
    call: (mr, id) => mr.cases.update(id, { title: "t" }),
  },
  "cases.signUpload": {
    template: "/v2/cases/{case_id}/sign-upload",
    param: "case_id",
    call: (mr, id) => mr.cases.signUpload(id, { file_name: "a.pdf", file_type: "application/pdf" }),
  },
  "cases.createDocument": {
    template: "/v2/cases/{case_id}/documents",
    param: "case_id",
    call: (mr, id) => mr.cases.createDocument(id, { upload_id: "up_1" }),
  },
  "cases.uploadDocument": {
    template: "/v2/cases/{case_id}/sign-upload",
    param: "case_id",
    call: (mr, id) => mr.cases.uploadDocument(id, file()),
  },
  "documents.retrieve": {
    template: "/v2/documents/{document_id}",
    param: "document_id",
    call: (mr, id) => mr.documents.retrieve(id),
  },
  "documents.update": {
    template: "/v2/documents/{document_id}",
    param: "document_id",
    call: (mr, id) => mr.documents.update(id, { archived: true }),
  },
  "documents.download": {
    template: "/v2/documents/{document_id}/download",
    param: "document_id",
    call: (mr, id) => mr.documents.download(id),
  },
  "events.retrieve": {
    template: "/v2/events/{id}",
    param: "id",
    call: (mr, id) => mr.events.retrieve(id),
  },
  "requestors.retrieve": {
    template: "/v2/requestors/{id}",
    param: "id",
    call: (mr, id) => mr.requestors.retrieve(id),
  },
  "requestors.update": {
    template: "/v2/requestors/{id}",
    param: "id",
    call: (mr, id) => mr.requestors.update(id, { phone: null }),
  },
  "retrievalRequests.retrieve": {
    template: "/v2/retrieval-requests/{retrieval_request_id}",
    param: "retrieval_request_id",
    call: (mr, id) => mr.retrievalRequests.retrieve(id),
  },
  "retrievalRequests.listDocuments": {
    template: "/v2/retrieval-requests/{retrieval_request_id}/documents",
    param: "retrieval_request_id",
    call: (mr, id) => mr.retrievalRequests.listDocuments(id),
  },
  "retrievalRequests.downloadDocument (request id)": {
    template: "/v2/retrieval-requests/{retrieval_request_id}/documents/{document_id}/download",
    param: "retrieval_request_id",
    call: (mr, id) => mr.retrievalRequests.downloadDocument(id, OTHER),
  },
  "retrievalRequests.downloadDocument (document id)": {
    template: "/v2/retrieval-requests/{retrieval_request_id}/documents/{document_id}/download",
    param: "document_id",
    call: (mr, id) => mr.retrievalRequests.downloadDocument(OTHER, id),
  },
  "retrievalRequests.respondToAction": {
    template: "/v2/retrieval-requests/{retrieval_request_id}/action-response",
    param: "retrieval_request_id",
    call: (mr, id) => mr.retrievalRequests.respondToAction(id, { message: "Signed form attached" }),
  },
  "retrievalRequests.uploadFile({ case_id })": {
    template: "/v2/cases/{case_id}/sign-upload",
    param: "case_id",
    call: (mr, id) => mr.retrievalRequests.uploadFile({ ...file(), case_id: id }),
  },
  "webhooks.retrieve": {
    template: "/v2/webhooks/{id}",
    param: "id",
    call: (mr, id) => mr.webhooks.retrieve(id),
  },
  "webhooks.update": {
    template: "/v2/webhooks/{id}",
    param: "id",
    call: (mr, id) => mr.webhooks.update(id, { is_enabled: true }),
  },
  "webhooks.delete": {
    template: "/v2/webhooks/{id}",
    param: "id",
    call: (mr, id) => mr.webhooks.delete(id),
  },
  "webhooks.test": {
    template: "/v2/webhooks/{id}/test",
    param: "id",
    call: (mr, id) => mr.webhooks.test(id),
  },
  "webhooks.listDeliveries": {
    template: "/v2/webhooks/{id}/deliveries",
    param: "id",
    call: (mr, id) => mr.webhooks.listDeliveries(id),
  },
  "webhooks.redeliver (webhook id)": {
    template: "/v2/webhooks/{id}/deliveries/{delivery_id}/redeliver",
    param: "id",
    call: (mr, id) => mr.webhooks.redeliver(id, OTHER),
  },
  "webhooks.redeliver (delivery id)": {
    template: "/v2/webhooks/{id}/deliveries/{delivery_id}/redeliver",
    param: "delivery_id",
    call: (mr, id) => mr.webhooks.redeliver(OTHER, id),
  },
};

function client() {
  const { fetch, seen } = scriptedFetch([], () => json(200, {}));
  return { mr: new MedRecords({ apiKey: API_KEY, baseUrl: BASE_URL, fetch, maxRetries: 0 }), seen };
}

const table = Object.entries(rows);

describe("ids in a path template", () => {
  it("the table covers every placeholder of every path template of the contract", () => {
    const inContract = OPERATIONS.flatMap((op) =>
      pathParamNames(op.path).map((param) => `${op.path} ${param}`),
    );
    const covered = new Set(table.map(([, row]) => `${row.template} ${row.param}`));
    expect(inContract.filter((p) => !covered.has(p))).toEqual([]);
    expect(inContract.length).toBeGreaterThan(0);
  });

  describe.each(table)("%s", (_, row) => {
    it.each(["", ".", ".."])(
      "refuses %j with a ValidationError naming the parameter, sending nothing",
      async (id) => {
        const { mr, seen } = client();
        const error = await Promise.resolve(row.call(mr, id)).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).issues.map((i) => i.path)).toEqual([row.param]);
        expect((error as ValidationError).message).toContain(`${row.template} (not sent)`);
        expect(seen).toHaveLength(0);
      },
    );

    it.each(["...", ".a", "a..", "../a"])(
      "sends %j percent-encoded in its own segment",
      async (id) => {
        const { mr, seen } = client();
        // The answer ({}) is not what the method wants (an upload goes on to the PUT); only the request matters.
        await Promise.resolve(row.call(mr, id)).then(
          () => undefined,
          () => undefined,
        );
        const expected = row.template.replace(/\{(\w+)\}/g, (_, name: string) =>
          encodeURIComponent(name === row.param ? id : OTHER),
        );
        expect(seen.length).toBeGreaterThanOrEqual(1);
        expect(new URL(seen[0]!.url).pathname).toBe(expected);
      },
    );
  });
});
