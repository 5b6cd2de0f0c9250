/**
 * What the OpenAPI document says about each route beyond its method, path
 * and scope (those come from the reference server's route table, see
 * src/mock/routes.ts): names, success status, zod schemas and the errors
 * particular to the operation. Keyed by "METHOD pattern" as the server
 * routes it; document.ts throws when this table and the routes differ.
 */
import type { z } from "zod";
import { Case, CaseCreate, CaseListParams, CaseUpdate } from "../schemas/cases.js";
import { ErrorBody, ListEnvelope } from "../schemas/common.js";
import {
  Document,
  DocumentCreate,
  DocumentListParams,
  DocumentUpdate,
  DownloadResponse,
} from "../schemas/documents.js";
import { AnyEvent, EventListParams, UnknownEvent } from "../schemas/event-list.js";
import {
  ActionRequiredReason,
  Event,
  RetrievalRequestActionRequiredData,
  RetrievalRequestActionRequiredEvent,
  RetrievalRequestActionRequiredLogEntry,
  RetrievalRequestDocumentsAvailableData,
  RetrievalRequestDocumentsAvailableEvent,
  RetrievalRequestDocumentsAvailableLogEntry,
  RetrievalRequestStatusChangedData,
  RetrievalRequestStatusChangedEvent,
  RetrievalRequestStatusChangedLogData,
  RetrievalRequestStatusChangedLogEntry,
  RetrievalStage,
  RetrievalStatus,
  WebhookDisabledData,
  WebhookDisabledLogEntry,
  WebhookTestData,
  WebhookTestEvent,
  WebhookTestLogEntry,
} from "../schemas/events.js";
import { Facility, FacilityCreate, FacilitySearchParams } from "../schemas/facilities.js";
import {
  Requestor,
  RequestorCreate,
  RequestorListParams,
  RequestorUpdate,
} from "../schemas/requestors.js";
import {
  ACTION_RESPONSE_MESSAGE_MAX,
  ActionRequestAnswer,
  ActionResponse,
  ActionResponseAttachment,
  PendingActionRequest,
  RetrievalCosts,
  RetrievalDocument,
  RetrievalDocumentListParams,
  RetrievalRequest,
  RetrievalRequestCreate,
  RetrievalRequestList,
  RetrievalRequestListParams,
} from "../schemas/retrieval-requests.js";
import {
  RetrievalSignUploadRequest,
  SignUploadRequest,
  SignUploadResponse,
} from "../schemas/uploads.js";
import {
  Webhook,
  WebhookCreate,
  WebhookCreateResponse,
  WebhookDelivery,
  WebhookDeliveryListParams,
  WebhookLastFailure,
  WebhookList,
  WebhookTestResult,
  WebhookUpdate,
} from "../schemas/webhooks.js";

// The list envelopes, built the way the client's paginator builds them.
const CaseList = ListEnvelope(Case);
const DocumentList = ListEnvelope(Document);
const RetrievalDocumentList = ListEnvelope(RetrievalDocument);
const FacilityList = ListEnvelope(Facility);
const RequestorList = ListEnvelope(Requestor);
const WebhookDeliveryList = ListEnvelope(WebhookDelivery);
const EventList = ListEnvelope(AnyEvent);

/** Schemas of request bodies: converted as zod input (what a caller may send). */
export const REQUEST_COMPONENTS: Record<string, z.ZodType> = {
  ActionResponse,
  ActionResponseAttachment,
  CaseCreate,
  CaseUpdate,
  DocumentCreate,
  DocumentUpdate,
  FacilityCreate,
  RequestorCreate,
  RequestorUpdate,
  RetrievalRequestCreate,
  RetrievalSignUploadRequest,
  SignUploadRequest,
  WebhookCreate,
  WebhookUpdate,
};

/** Schemas of response and delivery bodies: converted as zod output (what the service sends). */
export const RESPONSE_COMPONENTS: Record<string, z.ZodType> = {
  ActionRequestAnswer,
  ActionRequiredReason,
  AnyEvent,
  Case,
  CaseList,
  Document,
  DocumentList,
  DownloadResponse,
  Error: ErrorBody,
  Event,
  EventList,
  Facility,
  FacilityList,
  PendingActionRequest,
  Requestor,
  RequestorList,
  RetrievalCosts,
  RetrievalDocument,
  RetrievalDocumentList,
  RetrievalRequest,
  RetrievalRequestActionRequiredData,
  RetrievalRequestActionRequiredEvent,
  RetrievalRequestActionRequiredLogEntry,
  RetrievalRequestDocumentsAvailableData,
  RetrievalRequestDocumentsAvailableEvent,
  RetrievalRequestDocumentsAvailableLogEntry,
  RetrievalRequestList,
  RetrievalRequestStatusChangedData,
  RetrievalRequestStatusChangedEvent,
  RetrievalRequestStatusChangedLogData,
  RetrievalRequestStatusChangedLogEntry,
  RetrievalStage,
  RetrievalStatus,
  SignUploadResponse,
  UnknownEvent,
  Webhook,
  WebhookCreateResponse,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookDisabledData,
  WebhookDisabledLogEntry,
  WebhookLastFailure,
  WebhookList,
  WebhookTestData,
  WebhookTestEvent,
  WebhookTestLogEntry,
  WebhookTestResult,
};

export const TAGS = [
  { name: "Cases", description: "Legal matters with client details." },
  { name: "Documents", description: "Files attached to a case, and their uploads." },
  {
    name: "Retrieval requests",
    description: "Requests to obtain records from a provider, and answers to its action requests.",
  },
  { name: "Facilities", description: "The directory of providers records are requested from." },
  { name: "Requestors", description: "Retrieval profiles: who at the firm deals with a provider." },
  { name: "Webhooks", description: "Outbound signed notifications about retrieval requests." },
  { name: "Events", description: "The event log: every emitted event, kept for 30 days." },
  {
    name: "Webhook events",
    description: "Deliveries the service POSTs to a webhook's URL, signed with its secret.",
  },
] as const;
export type Tag = (typeof TAGS)[number]["name"];

/** Error statuses an operation answers with a description of its own. */
export type ErrorStatus = 400 | 404 | 409 | 429;

export interface OperationSpec {
  readonly operationId: string;
  readonly summary: string;
  readonly tag: Tag;
  /** Rules a caller needs beyond the summary (the scopes are added from the route table). */
  readonly description?: string;
  /** The query's schema; absent when the endpoint refuses every parameter. */
  readonly query?: z.ZodObject;
  /** Descriptions of query parameters (`limit` and `cursor` have a common one). */
  readonly parameters?: Record<string, string>;
  /** The request body: one of REQUEST_COMPONENTS. */
  readonly body?: z.ZodType;
  /** Success status (DESIGN section 9): 201 creates, 204 deletes, 200 everything else. */
  readonly status: 200 | 201 | 204;
  /** The success body: one of RESPONSE_COMPONENTS; absent with 204. */
  readonly response?: z.ZodType;
  /**
   * Errors beyond those of every operation (400 validation_error, 401, 403,
   * 429 rate_limited, and 404 where the path names a resource), or a more
   * precise description of one of those: the codes this operation can answer with.
   */
  readonly errors?: Partial<Record<ErrorStatus, string>>;
}

const uploadErrors =
  "`validation_error`, or an upload_id problem: `upload_not_found`, `upload_expired` (not used within one hour of signing), `upload_consumed` (already used) or `upload_incomplete` (no bytes were PUT).";
const webhookBodyErrors =
  "`invalid_request` when a value is over its length limit or the URL is not publicly reachable; `validation_error` for any other problem.";

export const OPERATIONS: Record<string, OperationSpec> = {
  // ------------------------------------------------------------ cases
  "POST /v2/cases": {
    operationId: "createCase",
    summary: "Create a case",
    tag: "Cases",
    description: "`case_number` is generated; `status` defaults to active.",
    body: CaseCreate,
    status: 201,
    response: Case,
  },
  "GET /v2/cases": {
    operationId: "listCases",
    summary: "List cases, newest first",
    tag: "Cases",
    query: CaseListParams,
    status: 200,
    response: CaseList,
  },
  "GET /v2/cases/:case_id": {
    operationId: "getCase",
    summary: "Read a case",
    tag: "Cases",
    status: 200,
    response: Case,
  },
  "PATCH /v2/cases/:case_id": {
    operationId: "updateCase",
    summary: "Update a case",
    tag: "Cases",
    description: "Only supplied fields change.",
    body: CaseUpdate,
    status: 200,
    response: Case,
  },
  "POST /v2/cases/:case_id/sign-upload": {
    operationId: "signCaseUpload",
    summary: "Sign a case-level upload",
    tag: "Documents",
    description:
      "PUT the bytes to `upload_url` within 15 minutes with `Content-Type` equal to `file_type`, then use `upload_id` within one hour: to create a case document, or as `auth_form`, an item of `attachments` or an action-response attachment.",
    body: SignUploadRequest,
    status: 200,
    response: SignUploadResponse,
  },

  // ------------------------------------------------------------ documents
  "POST /v2/cases/:case_id/documents": {
    operationId: "createDocument",
    summary: "Attach an uploaded file to a case",
    tag: "Documents",
    body: DocumentCreate,
    status: 201,
    response: Document,
    errors: { 400: uploadErrors },
  },
  "GET /v2/documents": {
    operationId: "listDocuments",
    summary: "List case documents, newest first",
    tag: "Documents",
    query: DocumentListParams,
    parameters: {
      case_id: "Only the documents of this case.",
      archived: "`true` for archived documents only, `false` for the others.",
    },
    status: 200,
    response: DocumentList,
  },
  "GET /v2/documents/:document_id": {
    operationId: "getDocument",
    summary: "Read a case document",
    tag: "Documents",
    status: 200,
    response: Document,
  },
  "PATCH /v2/documents/:document_id": {
    operationId: "updateDocument",
    summary: "Update a case document",
    tag: "Documents",
    description: "`archived: true` archives, `false` unarchives.",
    body: DocumentUpdate,
    status: 200,
    response: Document,
  },
  "GET /v2/documents/:document_id/download": {
    operationId: "downloadDocument",
    summary: "Get a download address for a case document",
    tag: "Documents",
    status: 200,
    response: DownloadResponse,
  },

  // ------------------------------------------------------------ retrieval requests
  "POST /v2/retrieval-requests/sign-upload": {
    operationId: "signRetrievalUpload",
    summary: "Sign a retrieval-level upload",
    tag: "Retrieval requests",
    description:
      "May be used before a case exists; the upload_id goes into `auth_form` or `attachments` of a new retrieval request.",
    body: RetrievalSignUploadRequest,
    status: 200,
    response: SignUploadResponse,
  },
  "POST /v2/retrieval-requests": {
    operationId: "createRetrievalRequest",
    summary: "Create a retrieval request",
    tag: "Retrieval requests",
    body: RetrievalRequestCreate,
    status: 201,
    response: RetrievalRequest,
    errors: {
      400: `${uploadErrors} The message names the field, e.g. \`attachments[1]: ...\`.`,
      404: "`not_found`: the referenced case, facility or requestor does not exist.",
    },
  },
  "GET /v2/retrieval-requests": {
    operationId: "listRetrievalRequests",
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
    },
    status: 200,
    response: RetrievalRequestList,
  },
  "GET /v2/retrieval-requests/:retrieval_request_id": {
    operationId: "getRetrievalRequest",
    summary: "Read a retrieval request",
    tag: "Retrieval requests",
    status: 200,
    response: RetrievalRequest,
  },
  "GET /v2/retrieval-requests/:retrieval_request_id/documents": {
    operationId: "listRetrievalDocuments",
    summary: "List the records and invoices of a retrieval request",
    tag: "Retrieval requests",
    query: RetrievalDocumentListParams,
    status: 200,
    response: RetrievalDocumentList,
  },
  "GET /v2/retrieval-requests/:retrieval_request_id/documents/:document_id/download": {
    operationId: "downloadRetrievalDocument",
    summary: "Get a download address for a record or invoice",
    tag: "Retrieval requests",
    status: 200,
    response: DownloadResponse,
    errors: { 409: "`document_not_ready`: an invoice listed before it can be downloaded." },
  },
  "POST /v2/retrieval-requests/:retrieval_request_id/action-response": {
    operationId: "respondToActionRequest",
    summary: "Answer the open action request",
    tag: "Retrieval requests",
    description:
      "Answers the request's one open client action request. A rejected answer leaves it open for a retry.",
    body: ActionResponse,
    status: 200,
    response: ActionRequestAnswer,
    errors: {
      400: `\`validation_error\` when the body is malformed, including a \`message\` that is missing, not a string, or not 1 to ${ACTION_RESPONSE_MESSAGE_MAX} characters after trimming; \`action_response_rejected\` when the answer is refused by the request's state (no open action request, a missing or unusable attachment, a required PDF missing); the message says why.`,
    },
  },

  // ------------------------------------------------------------ facilities, requestors
  "GET /v2/facilities": {
    operationId: "searchFacilities",
    summary: "Search the facility directory",
    tag: "Facilities",
    description: "Every whitespace-separated word of `query` must appear in the name or address.",
    query: FacilitySearchParams,
    parameters: {
      query:
        "Every whitespace-separated word must appear, case-insensitively, in the name or the address.",
    },
    status: 200,
    response: FacilityList,
  },
  "POST /v2/requestors": {
    operationId: "createRequestor",
    summary: "Create a retrieval profile",
    tag: "Requestors",
    body: RequestorCreate,
    status: 201,
    response: Requestor,
  },
  "GET /v2/requestors": {
    operationId: "listRequestors",
    summary: "List retrieval profiles, newest first",
    tag: "Requestors",
    query: RequestorListParams,
    status: 200,
    response: RequestorList,
  },
  "GET /v2/requestors/:id": {
    operationId: "getRequestor",
    summary: "Read a retrieval profile",
    tag: "Requestors",
    status: 200,
    response: Requestor,
  },
  "PATCH /v2/requestors/:id": {
    operationId: "updateRequestor",
    summary: "Update a retrieval profile",
    tag: "Requestors",
    description: "Only supplied fields change.",
    body: RequestorUpdate,
    status: 200,
    response: Requestor,
  },

  // ------------------------------------------------------------ webhooks
  "POST /v2/webhooks": {
    operationId: "createWebhook",
    summary: "Create a webhook",
    tag: "Webhooks",
    description:
      "Every subscribable event is a retrieval event, hence `retrievals:read`. The response holds the `secret`, shown only here.",
    body: WebhookCreate,
    status: 201,
    response: WebhookCreateResponse,
    errors: {
      400: webhookBodyErrors,
      409: "`limit_exceeded`: the organization already holds 20 webhooks; `conflict`: the name is in use.",
    },
  },
  "GET /v2/webhooks": {
    operationId: "listWebhooks",
    summary: "List every webhook (a bare array, at most 20)",
    tag: "Webhooks",
    status: 200,
    response: WebhookList,
  },
  "GET /v2/webhooks/:id": {
    operationId: "getWebhook",
    summary: "Read a webhook",
    tag: "Webhooks",
    status: 200,
    response: Webhook,
  },
  "PATCH /v2/webhooks/:id": {
    operationId: "updateWebhook",
    summary: "Update a webhook",
    tag: "Webhooks",
    description:
      "At least one property. `is_enabled: true` on a disabled webhook resets `consecutive_failures` and clears `auto_disabled_at`; on an enabled one it changes neither.",
    body: WebhookUpdate,
    status: 200,
    response: Webhook,
    errors: { 400: webhookBodyErrors, 409: "`conflict`: the name is in use." },
  },
  "DELETE /v2/webhooks/:id": {
    operationId: "deleteWebhook",
    summary: "Delete a webhook",
    tag: "Webhooks",
    description: "To rotate a compromised secret, delete the webhook and create it again.",
    status: 204,
  },
  "POST /v2/webhooks/:id/test": {
    operationId: "testWebhook",
    summary: "Send one webhook.test delivery",
    tag: "Webhooks",
    description:
      "One attempt, no retries; answers 200 with the result even when the delivery fails. Works on a disabled webhook and changes none of its delivery-health fields.",
    status: 200,
    response: WebhookTestResult,
    errors: { 429: "`rate_limited`: the webhook was tested less than 10 seconds ago." },
  },
  "GET /v2/webhooks/:id/deliveries": {
    operationId: "listWebhookDeliveries",
    summary: "List the delivery attempts of a webhook, newest first",
    tag: "Webhooks",
    query: WebhookDeliveryListParams,
    status: 200,
    response: WebhookDeliveryList,
  },
  "POST /v2/webhooks/:id/deliveries/:delivery_id/redeliver": {
    operationId: "redeliverWebhookDelivery",
    summary: "Send the event of a past delivery again",
    tag: "Webhooks",
    description: "Same body and id, fresh timestamp and signature; one attempt, no retries.",
    status: 200,
    response: WebhookDelivery,
    errors: { 409: "`conflict`: the webhook is disabled; enable it first." },
  },

  // ------------------------------------------------------------ events
  "GET /v2/events": {
    operationId: "listEvents",
    summary: "List the event log, newest first",
    tag: "Events",
    query: EventListParams,
    parameters: {
      type: "Comma-separated event types, at most 20, e.g. `retrieval_request.status_changed,webhook.disabled`.",
      created_after:
        "Only events created at or after this instant (inclusive): list from the last processed `created_at` and deduplicate by id.",
      created_before: "Only events created strictly before this instant.",
      object_id: "Only events about this retrieval request or webhook.",
    },
    status: 200,
    response: EventList,
  },
  "GET /v2/events/:id": {
    operationId: "getEvent",
    summary: "Read one event",
    tag: "Events",
    description: "Events older than 30 days are gone (404).",
    status: 200,
    response: AnyEvent,
  },
};

/** The bodies the service POSTs to a webhook URL, by event type. */
export const WEBHOOK_EVENTS: Record<string, { summary: string; schema: z.ZodType }> = {
  "retrieval_request.status_changed": {
    summary:
      "The public status or timeline of a retrieval request changed (also a new visible update within a stage, a correction, or a return to an earlier stage).",
    schema: RetrievalRequestStatusChangedEvent,
  },
  "retrieval_request.action_required": {
    summary: "A client action request was opened or reopened.",
    schema: RetrievalRequestActionRequiredEvent,
  },
  "retrieval_request.documents_available": {
    summary: "Records were released, or a provider invoice became downloadable.",
    schema: RetrievalRequestDocumentsAvailableEvent,
  },
  "webhook.test": {
    summary: "Sent only by the test operation; answer 2xx and do nothing else.",
    schema: WebhookTestEvent,
  },
};
