/**
 * The client reads the contract (src/contract): every operation is reachable
 * through a resource method, which sends the operation's method to its path,
 * names it by its path template in hooks and logs, and retries a 503 only
 * when the operation is idempotent.
 */
import { describe, expect, it } from "vitest";
import { OPERATIONS, type Operation } from "../../src/contract/index.js";
import { MedRecords } from "../../src/index.js";
import { VALID_BODIES } from "../fuzz/arbitraries.js";
import { API_KEY, apiError, BASE_URL, json, scriptedFetch } from "../helpers/scripted-fetch.js";

const ID = "x_1";

/** Each operation through the resource method that calls it; `body` is a valid body for it. */
const CALLS: Record<string, (mr: MedRecords, body: never) => PromiseLike<unknown>> = {
  createCase: (mr, body) => mr.cases.create(body),
  listCases: (mr) => mr.cases.list(),
  getCase: (mr) => mr.cases.retrieve(ID),
  updateCase: (mr, body) => mr.cases.update(ID, body),
  signCaseUpload: (mr, body) => mr.cases.signUpload(ID, body),
  signRetrievalUpload: (mr, body) => mr.retrievalRequests.signUpload(body),
  createDocument: (mr, body) => mr.cases.createDocument(ID, body),
  listDocuments: (mr) => mr.documents.list(),
  getDocument: (mr) => mr.documents.retrieve(ID),
  updateDocument: (mr, body) => mr.documents.update(ID, body),
  downloadDocument: (mr) => mr.documents.download(ID),
  createWebhook: (mr, body) => mr.webhooks.create(body),
  listWebhooks: (mr) => mr.webhooks.list(),
  getWebhook: (mr) => mr.webhooks.retrieve(ID),
  updateWebhook: (mr, body) => mr.webhooks.update(ID, body),
  deleteWebhook: (mr) => mr.webhooks.delete(ID),
  testWebhook: (mr) => mr.webhooks.test(ID),
  listWebhookDeliveries: (mr) => mr.webhooks.listDeliveries(ID),
  redeliverWebhookDelivery: (mr) => mr.webhooks.redeliver(ID, ID),
  createRetrievalRequest: (mr, body) => mr.retrievalRequests.create(body),
  listRetrievalRequests: (mr) => mr.retrievalRequests.list(),
  getRetrievalRequest: (mr) => mr.retrievalRequests.retrieve(ID),
  listRetrievalDocuments: (mr) => mr.retrievalRequests.listDocuments(ID),
  downloadRetrievalDocument: (mr) => mr.retrievalRequests.downloadDocument(ID, ID),
  respondToActionRequest: (mr, body) => mr.retrievalRequests.respondToAction(ID, body),
  searchFacilities: (mr) => mr.facilities.search({ query: "mercy" }),
  createRequestor: (mr, body) => mr.requestors.create(body),
  listRequestors: (mr) => mr.requestors.list(),
  getRequestor: (mr) => mr.requestors.retrieve(ID),
  updateRequestor: (mr, body) => mr.requestors.update(ID, body),
  listEvents: (mr) => mr.events.list(),
  getEvent: (mr) => mr.events.retrieve(ID),
};

const validBody = (op: Operation) =>
  VALID_BODIES[`${op.method} ${op.path.replace(/\{(\w+)\}/g, ":$1")}`]?.[0] as never;

/** Calls `op` through its resource method against a 503 (Retry-After: 0), then a page. */
async function callThrough503(op: Operation) {
  const attempts: string[] = [];
  const { fetch, seen } = scriptedFetch(
    [apiError(503, "service_unavailable", "down", { "retry-after": "0" })],
    op.status === 204
      ? new Response(null, { status: 204 })
      : json(op.status, { results: [], next: null, previous: null }),
  );
  const mr = new MedRecords({
    apiKey: API_KEY,
    baseUrl: BASE_URL,
    fetch,
    maxRetries: 1,
    hooks: { onRequest: (info) => attempts.push(`${info.method} ${info.path} #${info.attempt}`) },
  });
  const call = CALLS[op.operationId];
  if (call === undefined) throw new Error(`no client call for ${op.operationId}`);
  await Promise.resolve(call(mr, validBody(op))).then(
    () => undefined,
    () => undefined,
  );
  return { attempts, seen };
}

describe("the client calls the contract's operations", () => {
  it("has a resource method for every operation of the contract, and none more", () => {
    expect(Object.keys(CALLS).sort()).toEqual(OPERATIONS.map((op) => op.operationId).sort());
  });

  it.each(OPERATIONS.map((op) => [`${op.operationId} (${op.method} ${op.path})`, op] as const))(
    "%s: sends the operation's method to its path, named by its template, retrying a 503 only when idempotent",
    async (_, op) => {
      const { attempts, seen } = await callThrough503(op);
      const once = `${op.method} ${op.path}`;
      expect(attempts).toEqual(op.idempotent ? [`${once} #1`, `${once} #2`] : [`${once} #1`]);
      expect(seen[0]?.method).toBe(op.method);
      expect(new URL(seen[0]!.url).pathname).toBe(op.path.replace(/\{\w+\}/g, ID));
    },
  );
});
