/**
 * What the OpenAPI document holds beyond the operations (those come from the
 * contract, src/contract): the named schema components, the tags, and the
 * webhook deliveries.
 */
import type { z } from "zod";
import * as contract from "../contract/index.js";
import * as caseSchemas from "../schemas/cases.js";
import { ErrorBody } from "../schemas/common.js";
import * as documentSchemas from "../schemas/documents.js";
import * as eventListSchemas from "../schemas/event-list.js";
import { EVENT_RETENTION_DAYS, UnknownEvent } from "../schemas/event-list.js";
import * as eventSchemas from "../schemas/events.js";
import {
  ActionRequiredReason,
  Event,
  RetrievalRequestActionRequiredData,
  RetrievalRequestDocumentsAvailableData,
  RetrievalRequestStatusChangedData,
  RetrievalRequestStatusChangedLogData,
  RetrievalStage,
  RetrievalStatus,
  WebhookDisabledData,
  WebhookEvent,
  type WebhookEventType,
  WebhookTestData,
} from "../schemas/events.js";
import { Facility, FacilityCreate } from "../schemas/facilities.js";
import * as requestorSchemas from "../schemas/requestors.js";
import * as retrievalSchemas from "../schemas/retrieval-requests.js";
import {
  ActionResponseAttachment,
  PendingActionRequest,
  RetrievalCosts,
  RetrievalDocument,
} from "../schemas/retrieval-requests.js";
import * as uploadSchemas from "../schemas/uploads.js";
import * as webhookSchemas from "../schemas/webhooks.js";
import { WebhookLastFailure } from "../schemas/webhooks.js";

// Every exported schema by name: a body of the contract becomes the component of that name.
const EXPORTED: Record<string, unknown> = {
  ...caseSchemas,
  ...documentSchemas,
  ...eventSchemas,
  ...eventListSchemas,
  ...requestorSchemas,
  ...retrievalSchemas,
  ...uploadSchemas,
  ...webhookSchemas,
  ...contract.cases,
  ...contract.documents,
  ...contract.events,
  ...contract.facilities,
  ...contract.requestors,
  ...contract.retrievalRequests,
  ...contract.webhooks,
};

/** Schemas by their exported names; absent bodies and {@link contract.EMPTY_BODY} are skipped. */
function named(schemas: readonly (z.ZodType | string | undefined)[]): Record<string, z.ZodType> {
  const out: Record<string, z.ZodType> = {};
  for (const schema of schemas) {
    if (typeof schema !== "object") continue;
    const name = Object.keys(EXPORTED).find((key) => EXPORTED[key] === schema);
    if (name === undefined)
      throw new Error("openapi: a body schema of the contract is not exported");
    out[name] = schema;
  }
  return out;
}

/**
 * Schemas of request bodies: converted as zod input (what a caller may send).
 * Every body of the contract, and parts of them worth a name of their own.
 */
export const REQUEST_COMPONENTS: Record<string, z.ZodType> = {
  ...named(contract.OPERATIONS.map((op) => op.body)),
  ActionResponseAttachment,
  FacilityCreate,
};

/**
 * Schemas of response and delivery bodies: converted as zod output (what the
 * service sends). Every response of the contract, every delivery and log
 * entry, and the parts worth a name of their own.
 */
export const RESPONSE_COMPONENTS: Record<string, z.ZodType> = {
  ...named(contract.OPERATIONS.map((op) => op.response)),
  ...named(WebhookEvent.options),
  ...named(Event.options),
  ActionRequiredReason,
  Error: ErrorBody,
  Event,
  Facility,
  PendingActionRequest,
  RetrievalCosts,
  RetrievalDocument,
  RetrievalRequestActionRequiredData,
  RetrievalRequestDocumentsAvailableData,
  RetrievalRequestStatusChangedData,
  RetrievalRequestStatusChangedLogData,
  RetrievalStage,
  RetrievalStatus,
  UnknownEvent,
  WebhookDisabledData,
  WebhookLastFailure,
  WebhookTestData,
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
] as const satisfies readonly { name: contract.Tag | "Webhook events"; description: string }[];

/** A summary of each body the service POSTs to a webhook URL, by event type. */
export const WEBHOOK_EVENTS: Record<WebhookEventType, string> = {
  "retrieval_request.status_changed":
    "The public status or timeline of a retrieval request changed (also a new visible update within a stage, a correction, or a return to an earlier stage).",
  "retrieval_request.action_required": "A client action request was opened or reopened.",
  "retrieval_request.documents_available":
    "Records were released, or a provider invoice became downloadable.",
  "webhook.test": "Sent only by the test operation; answer 2xx and do nothing else.",
};
