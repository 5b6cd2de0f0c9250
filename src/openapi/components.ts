/**
 * What the OpenAPI document holds beyond the operations (those come from the
 * contract, src/contract): the named schema components, the tags, and the
 * webhook deliveries.
 */
import type { z } from "zod";
import { CaseList } from "../contract/cases.js";
import { DocumentList } from "../contract/documents.js";
import { EventList } from "../contract/events.js";
import { FacilityList } from "../contract/facilities.js";
import type { Tag } from "../contract/operation.js";
import { RequestorList } from "../contract/requestors.js";
import { RetrievalDocumentList } from "../contract/retrieval-requests.js";
import { WebhookDeliveryList } from "../contract/webhooks.js";
import { Case, CaseCreate, CaseUpdate } from "../schemas/cases.js";
import { ErrorBody } from "../schemas/common.js";
import {
  Document,
  DocumentCreate,
  DocumentUpdate,
  DownloadResponse,
} from "../schemas/documents.js";
import { AnyEvent, EVENT_RETENTION_DAYS, UnknownEvent } from "../schemas/event-list.js";
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
  type WebhookEventType,
  WebhookTestData,
  WebhookTestEvent,
  WebhookTestLogEntry,
} from "../schemas/events.js";
import { Facility, FacilityCreate } from "../schemas/facilities.js";
import { Requestor, RequestorCreate, RequestorUpdate } from "../schemas/requestors.js";
import {
  ActionRequestAnswer,
  ActionResponse,
  ActionResponseAttachment,
  PendingActionRequest,
  RetrievalCosts,
  RetrievalDocument,
  RetrievalRequest,
  RetrievalRequestCreate,
  RetrievalRequestList,
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
  WebhookLastFailure,
  WebhookList,
  WebhookTestResult,
  WebhookUpdate,
} from "../schemas/webhooks.js";

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
  {
    name: "Events",
    description: `The event log: every emitted event, kept for ${EVENT_RETENTION_DAYS} days.`,
  },
  {
    name: "Webhook events",
    description: "Deliveries the service POSTs to a webhook's URL, signed with its secret.",
  },
] as const satisfies readonly { name: Tag | "Webhook events"; description: string }[];

/** A summary of each body the service POSTs to a webhook URL, by event type. */
export const WEBHOOK_EVENTS: Record<WebhookEventType, string> = {
  "retrieval_request.status_changed":
    "The public status or timeline of a retrieval request changed (also a new visible update within a stage, a correction, or a return to an earlier stage).",
  "retrieval_request.action_required": "A client action request was opened or reopened.",
  "retrieval_request.documents_available":
    "Records were released, or a provider invoice became downloadable.",
  "webhook.test": "Sent only by the test operation; answer 2xx and do nothing else.",
};
