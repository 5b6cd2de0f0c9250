/** Retrieval requests: obtaining records from a provider, and answering its action requests. */
import { ListEnvelope } from "../schemas/common.js";
import { DownloadResponse } from "../schemas/documents.js";
import {
  ACTION_RESPONSE_MESSAGE_MAX,
  ActionRequestAnswer,
  ActionResponse,
  RetrievalDocument,
  RetrievalDocumentListParams,
  RetrievalRequest,
  RetrievalRequestCreate,
  RetrievalRequestList,
  RetrievalRequestListParams,
} from "../schemas/retrieval-requests.js";
import { uploadErrors } from "./errors.js";
import { defineOperation } from "./operation.js";

export const RetrievalDocumentList = ListEnvelope(RetrievalDocument);

export const create = defineOperation({
  operationId: "createRetrievalRequest",
  method: "POST",
  path: "/v2/retrieval-requests",
  summary: "Create a retrieval request",
  tag: "Retrieval requests",
  body: RetrievalRequestCreate,
  status: 201,
  response: RetrievalRequest,
  scope: "retrievals:write",
  scopeWhen: {
    "cases:write": "with an inline `case`",
    "requestors:write": "with an inline `requestor`",
  },
  scopeRules: [
    { scope: "cases:write", when: "body-has", property: "case", checked: "before-validation" },
    {
      scope: "requestors:write",
      when: "body-has",
      property: "requestor",
      checked: "before-validation",
    },
  ],
  errors: {
    400: `${uploadErrors} The message names the field, e.g. \`attachments[1]: ...\`.`,
    404: "`not_found`: the referenced case, facility or requestor does not exist.",
  },
} as const);

export const list = defineOperation({
  operationId: "listRetrievalRequests",
  method: "GET",
  path: "/v2/retrieval-requests",
  summary: "List retrieval requests, or poll for changes",
  tag: "Retrieval requests",
  description:
    "Newest created first; with `updated_since`, the requests changed after it, oldest change first. Resume a poll from `next_public_updated_since`.",
  query: RetrievalRequestListParams,
  parameters: {
    case_id: "Only the requests of this case.",
    status: "Only the requests in this status.",
    updated_since:
      "Only the requests whose `public_updated_at` is after this instant, oldest change first.",
    external_id: "Only the requests whose `external_id` is exactly this.",
  },
  status: 200,
  response: RetrievalRequestList,
  list: true,
  scope: "retrievals:read",
} as const);

export const retrieve = defineOperation({
  operationId: "getRetrievalRequest",
  method: "GET",
  path: "/v2/retrieval-requests/{retrieval_request_id}",
  summary: "Read a retrieval request",
  tag: "Retrieval requests",
  status: 200,
  response: RetrievalRequest,
  scope: "retrievals:read",
} as const);

export const listDocuments = defineOperation({
  operationId: "listRetrievalDocuments",
  method: "GET",
  path: "/v2/retrieval-requests/{retrieval_request_id}/documents",
  summary: "List the records and invoices of a retrieval request",
  tag: "Retrieval requests",
  query: RetrievalDocumentListParams,
  status: 200,
  response: RetrievalDocumentList,
  list: true,
  scope: "retrievals:read",
} as const);

export const downloadDocument = defineOperation({
  operationId: "downloadRetrievalDocument",
  method: "GET",
  path: "/v2/retrieval-requests/{retrieval_request_id}/documents/{document_id}/download",
  summary: "Get a download address for a record or invoice",
  tag: "Retrieval requests",
  status: 200,
  response: DownloadResponse,
  scope: "retrievals:read",
  errors: { 409: "`document_not_ready`: an invoice listed before it can be downloaded." },
} as const);

export const respondToActionRequest = defineOperation({
  operationId: "respondToActionRequest",
  method: "POST",
  path: "/v2/retrieval-requests/{retrieval_request_id}/action-response",
  summary: "Answer the open action request",
  tag: "Retrieval requests",
  description:
    "Answers the request's one open client action request. A rejected answer leaves it open for a retry.",
  body: ActionResponse,
  status: 200,
  response: ActionRequestAnswer,
  scope: "retrievals:write",
  errors: {
    400: `\`validation_error\` when the body is malformed, including a \`message\` that is missing, not a string, or not 1 to ${ACTION_RESPONSE_MESSAGE_MAX} characters after trimming; \`action_response_rejected\` when the answer is refused by the request's state (no open action request, a missing or unusable attachment, a required PDF missing); the message says why.`,
  },
} as const);

/**
 * This module's operations keyed by operationId, in the order the OpenAPI
 * document lists them: `CONTRACT` (./index.ts) is these records in turn.
 */
export const operations = {
  createRetrievalRequest: create,
  listRetrievalRequests: list,
  getRetrievalRequest: retrieve,
  listRetrievalDocuments: listDocuments,
  downloadRetrievalDocument: downloadDocument,
  respondToActionRequest: respondToActionRequest,
} as const;
