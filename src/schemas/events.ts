import { z } from "zod";
import { IsoDateTime, openEnum } from "./common.js";

/**
 * Events: the bodies of webhook deliveries (spec, Events and Delivery) and
 * the entries of the event log (spec, Event). The mock renders these, the
 * client parses the log with them, and `medrecords/webhooks` takes only their
 * types so that verifying a delivery never runs zod.
 */

/** Retrieval request status (DESIGN section 9), open to values added later. */
export const RetrievalStatus = openEnum([
  "pending",
  "processing",
  "action_required",
  "completed",
  "cancelled",
]);
export type RetrievalStatus = z.infer<typeof RetrievalStatus>;

/** Retrieval request stage (DESIGN section 9), open to values added later. */
export const RetrievalStage = openEnum([
  "intake",
  "request_sent",
  "provider_processing",
  "records_received",
  "quality_review",
  "completed",
  "cancelled",
]);
export type RetrievalStage = z.infer<typeof RetrievalStage>;

/** Why a retrieval request needs the firm (DESIGN section 9), open to values added later. */
export const ActionRequiredReason = openEnum([
  "missing_hipaa_authorization",
  "additional_information_needed",
  "payment_approval_required",
  "other",
]);
export type ActionRequiredReason = z.infer<typeof ActionRequiredReason>;

/** Event types a webhook can subscribe to (spec, Webhook.events). */
export const SUBSCRIBABLE_EVENT_TYPES = [
  "retrieval_request.status_changed",
  "retrieval_request.action_required",
  "retrieval_request.documents_available",
] as const;
export const SubscribableEventType = z.enum(SUBSCRIBABLE_EVENT_TYPES);
export type SubscribableEventType = z.infer<typeof SubscribableEventType>;

// ---------------------------------------------------------------- data

/** Data common to every retrieval event. */
export const RetrievalEventData = z.object({
  retrieval_request_id: z.string(),
  case_id: z.string().nullable(),
  /** The version of the request's public state this event is about (Delivery rule 7). */
  public_updated_at: IsoDateTime,
});
export type RetrievalEventData = z.infer<typeof RetrievalEventData>;

export const RetrievalRequestStatusChangedData = RetrievalEventData;
export type RetrievalRequestStatusChangedData = z.infer<typeof RetrievalRequestStatusChangedData>;

export const RetrievalRequestActionRequiredData = RetrievalEventData.extend({
  action_request_id: z.string(),
});
export type RetrievalRequestActionRequiredData = z.infer<typeof RetrievalRequestActionRequiredData>;

export const RetrievalRequestDocumentsAvailableData = RetrievalEventData.extend({
  /** Same ids as the retrieval request's document list. */
  document_ids: z.array(z.string()),
  /** Present on an invoice event; each id also appears in `document_ids`. */
  invoice_ids: z.array(z.string()).optional(),
});
export type RetrievalRequestDocumentsAvailableData = z.infer<
  typeof RetrievalRequestDocumentsAvailableData
>;

export const WebhookTestData = z.object({ webhook_id: z.string() });
export type WebhookTestData = z.infer<typeof WebhookTestData>;

/** `webhook.disabled` (DESIGN section 9): in the event log only, never delivered. */
export const WebhookDisabledData = z.object({
  webhook_id: z.string(),
  consecutive_failures: z.number().int().nonnegative(),
  disabled_at: IsoDateTime,
});
export type WebhookDisabledData = z.infer<typeof WebhookDisabledData>;

/** The log entry of status_changed also carries the new public state (spec, Event). */
export const RetrievalRequestStatusChangedLogData = RetrievalRequestStatusChangedData.extend({
  status: RetrievalStatus,
  stage: RetrievalStage,
  action_required_reason: ActionRequiredReason.nullable(),
});
export type RetrievalRequestStatusChangedLogData = z.infer<
  typeof RetrievalRequestStatusChangedLogData
>;

// ---------------------------------------------------------------- webhook bodies

/** Fields of every delivery body (spec, Delivery rule 1). */
const deliveryBase = {
  /** Unique event id, the deduplication key; equal on every retry of one event. */
  id: z.string(),
  created_at: IsoDateTime,
};

export const RetrievalRequestStatusChangedEvent = z.object({
  ...deliveryBase,
  type: z.literal("retrieval_request.status_changed"),
  data: RetrievalRequestStatusChangedData,
});
export type RetrievalRequestStatusChangedEvent = z.infer<typeof RetrievalRequestStatusChangedEvent>;

export const RetrievalRequestActionRequiredEvent = z.object({
  ...deliveryBase,
  type: z.literal("retrieval_request.action_required"),
  data: RetrievalRequestActionRequiredData,
});
export type RetrievalRequestActionRequiredEvent = z.infer<
  typeof RetrievalRequestActionRequiredEvent
>;

export const RetrievalRequestDocumentsAvailableEvent = z.object({
  ...deliveryBase,
  type: z.literal("retrieval_request.documents_available"),
  data: RetrievalRequestDocumentsAvailableData,
});
export type RetrievalRequestDocumentsAvailableEvent = z.infer<
  typeof RetrievalRequestDocumentsAvailableEvent
>;

/** Sent only by the test operation; id shaped `evt_test_<uuid>`. */
export const WebhookTestEvent = z.object({
  ...deliveryBase,
  type: z.literal("webhook.test"),
  data: WebhookTestData,
});
export type WebhookTestEvent = z.infer<typeof WebhookTestEvent>;

/** A webhook delivery body, discriminated on `type`. */
export const WebhookEvent = z.discriminatedUnion("type", [
  RetrievalRequestStatusChangedEvent,
  RetrievalRequestActionRequiredEvent,
  RetrievalRequestDocumentsAvailableEvent,
  WebhookTestEvent,
]);
export type WebhookEvent = z.infer<typeof WebhookEvent>;
export type WebhookEventType = WebhookEvent["type"];

// ---------------------------------------------------------------- event log

/** Fields of every event log entry beyond the delivery body (spec, Event). */
const logBase = {
  ...deliveryBase,
  object: z.literal("event"),
  /** Version the event was rendered with, e.g. `v2`. */
  api_version: z.string(),
  /** `X-Request-Id` of the API call that caused the event, when one did. */
  request_id: z.string().nullable(),
};

export const RetrievalRequestStatusChangedLogEntry = z.object({
  ...logBase,
  type: z.literal("retrieval_request.status_changed"),
  data: RetrievalRequestStatusChangedLogData,
});
export type RetrievalRequestStatusChangedLogEntry = z.infer<
  typeof RetrievalRequestStatusChangedLogEntry
>;

export const RetrievalRequestActionRequiredLogEntry = z.object({
  ...logBase,
  type: z.literal("retrieval_request.action_required"),
  data: RetrievalRequestActionRequiredData,
});
export type RetrievalRequestActionRequiredLogEntry = z.infer<
  typeof RetrievalRequestActionRequiredLogEntry
>;

export const RetrievalRequestDocumentsAvailableLogEntry = z.object({
  ...logBase,
  type: z.literal("retrieval_request.documents_available"),
  data: RetrievalRequestDocumentsAvailableData,
});
export type RetrievalRequestDocumentsAvailableLogEntry = z.infer<
  typeof RetrievalRequestDocumentsAvailableLogEntry
>;

export const WebhookTestLogEntry = z.object({
  ...logBase,
  type: z.literal("webhook.test"),
  data: WebhookTestData,
});
export type WebhookTestLogEntry = z.infer<typeof WebhookTestLogEntry>;

export const WebhookDisabledLogEntry = z.object({
  ...logBase,
  type: z.literal("webhook.disabled"),
  data: WebhookDisabledData,
});
export type WebhookDisabledLogEntry = z.infer<typeof WebhookDisabledLogEntry>;

/** An event log entry (GET /v2/events, GET /v2/events/{id}), discriminated on `type`. */
export const Event = z.discriminatedUnion("type", [
  RetrievalRequestStatusChangedLogEntry,
  RetrievalRequestActionRequiredLogEntry,
  RetrievalRequestDocumentsAvailableLogEntry,
  WebhookTestLogEntry,
  WebhookDisabledLogEntry,
]);
export type Event = z.infer<typeof Event>;
export type EventType = Event["type"];
