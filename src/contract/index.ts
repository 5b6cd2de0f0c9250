/**
 * The API contract: every operation, declared once (src/contract/*), and
 * gathered in one record keyed by operationId. The client, the reference
 * server and the OpenAPI document read it; the server's handlers
 * (src/mock/handlers) and the client's method table (src/client-methods.ts)
 * are typed over its keys, so an operation left out of either fails `tsc`,
 * naming it. Internal: not exported from any of the package's entry points.
 */
import * as cases from "./cases.js";
import * as documents from "./documents.js";
import * as events from "./events.js";
import * as facilities from "./facilities.js";
import type { Operation } from "./operation.js";
import * as requestors from "./requestors.js";
import * as retrievalRequests from "./retrieval-requests.js";
import * as uploads from "./uploads.js";
import * as webhooks from "./webhooks.js";

export * from "./operation.js";
export { cases, documents, events, facilities, requestors, retrievalRequests, uploads, webhooks };

/** A record of operations whose every key is its operation's `operationId`. */
export type KeyedByOperationId<C> = {
  readonly [K in keyof C]: Operation & { readonly operationId: K };
};

/**
 * Every operation, keyed by its operationId, in the order the reference
 * server matches them and the OpenAPI document lists them.
 */
export const CONTRACT = {
  createCase: cases.create,
  listCases: cases.list,
  getCase: cases.retrieve,
  updateCase: cases.update,
  signCaseUpload: uploads.signCase,
  signRetrievalUpload: uploads.signRetrieval,
  createDocument: documents.create,
  listDocuments: documents.list,
  getDocument: documents.retrieve,
  updateDocument: documents.update,
  downloadDocument: documents.download,
  createWebhook: webhooks.create,
  listWebhooks: webhooks.list,
  getWebhook: webhooks.retrieve,
  updateWebhook: webhooks.update,
  deleteWebhook: webhooks.delete,
  testWebhook: webhooks.test,
  listWebhookDeliveries: webhooks.listDeliveries,
  redeliverWebhookDelivery: webhooks.redeliver,
  createRetrievalRequest: retrievalRequests.create,
  listRetrievalRequests: retrievalRequests.list,
  getRetrievalRequest: retrievalRequests.retrieve,
  listRetrievalDocuments: retrievalRequests.listDocuments,
  downloadRetrievalDocument: retrievalRequests.downloadDocument,
  respondToActionRequest: retrievalRequests.respondToActionRequest,
  searchFacilities: facilities.search,
  createRequestor: requestors.create,
  listRequestors: requestors.list,
  getRequestor: requestors.retrieve,
  updateRequestor: requestors.update,
  listEvents: events.list,
  getEvent: events.retrieve,
} as const;

/** The contract's record type. */
export type Contract = typeof CONTRACT;

/** The operationId of an operation of the contract: the contract's keys. */
export type OperationId = keyof Contract;

/** Every operation, in the contract's order. A key that is not its operation's operationId fails here. */
export const OPERATIONS: readonly Operation[] = Object.values(
  CONTRACT satisfies KeyedByOperationId<Contract>,
);

/** The operationIds, in the contract's order. */
export const OPERATION_IDS = Object.keys(CONTRACT) as OperationId[];
