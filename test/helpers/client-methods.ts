/**
 * The client method the tests call each operation through. Every row is
 * fixed by the compiler: `ClientMethods` (src/client-methods.ts) allows, for
 * each operationId, only the methods that name that operation in their
 * return type, so a missing row or one naming another method fails `tsc`.
 * The package derives the join from the methods; this is its run-time copy
 * for the tests, which need the names as strings.
 */
import type { ClientMethods } from "../../src/client-methods.js";

/** Each operation of the contract and the client method that calls it. */
export const CLIENT_METHODS = {
  createCase: "cases.create",
  listCases: "cases.list",
  getCase: "cases.retrieve",
  updateCase: "cases.update",
  signCaseUpload: "cases.signUpload",
  signRetrievalUpload: "retrievalRequests.signUpload",
  createDocument: "cases.createDocument",
  listDocuments: "documents.list",
  getDocument: "documents.retrieve",
  updateDocument: "documents.update",
  downloadDocument: "documents.download",
  createWebhook: "webhooks.create",
  listWebhooks: "webhooks.list",
  getWebhook: "webhooks.retrieve",
  updateWebhook: "webhooks.update",
  deleteWebhook: "webhooks.delete",
  testWebhook: "webhooks.test",
  listWebhookDeliveries: "webhooks.listDeliveries",
  redeliverWebhookDelivery: "webhooks.redeliver",
  createRetrievalRequest: "retrievalRequests.create",
  listRetrievalRequests: "retrievalRequests.list",
  getRetrievalRequest: "retrievalRequests.retrieve",
  listRetrievalDocuments: "retrievalRequests.listDocuments",
  downloadRetrievalDocument: "retrievalRequests.downloadDocument",
  respondToActionRequest: "retrievalRequests.respondToAction",
  searchFacilities: "facilities.search",
  createRequestor: "requestors.create",
  listRequestors: "requestors.list",
  getRequestor: "requestors.retrieve",
  updateRequestor: "requestors.update",
  listEvents: "events.list",
  getEvent: "events.retrieve",
} as const satisfies ClientMethods;
