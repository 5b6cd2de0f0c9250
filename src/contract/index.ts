/**
 * The API contract: every operation, declared once (src/contract/*). The
 * client, the reference server and the OpenAPI document read it. Internal:
 * not exported from any of the package's entry points.
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

/**
 * Every operation, in the order the reference server matches them and the
 * OpenAPI document lists them.
 */
export const OPERATIONS: readonly Operation[] = [
  cases.create,
  cases.list,
  cases.retrieve,
  cases.update,
  uploads.signCase,
  uploads.signRetrieval,
  documents.create,
  documents.list,
  documents.retrieve,
  documents.update,
  documents.download,
  webhooks.create,
  webhooks.list,
  webhooks.retrieve,
  webhooks.update,
  webhooks.delete,
  webhooks.test,
  webhooks.listDeliveries,
  webhooks.redeliver,
  retrievalRequests.create,
  retrievalRequests.list,
  retrievalRequests.retrieve,
  retrievalRequests.listDocuments,
  retrievalRequests.downloadDocument,
  retrievalRequests.respondToActionRequest,
  facilities.search,
  requestors.create,
  requestors.list,
  requestors.retrieve,
  requestors.update,
  events.list,
  events.retrieve,
];
