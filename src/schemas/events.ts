import * as z from "zod";
import type * as Wire from "../types/wire.js";
import { IsoDateTime, openEnum } from "./common.js";

/**
 * Events: the bodies of webhook deliveries (spec, Events and Delivery) and
 * the entries of the event log (spec, Event). The mock renders these, the
 * client parses the log with them, and `medrecords/webhooks` takes only their
 * types so that verifying a delivery never runs zod.
 */

/** Retrieval request status (docs/spec-decisions.md, "Retrieval requests and action responses"), open to values added later. */
export const RetrievalStatus = openEnum([
  "pending",
  "processing",
  "action_required",
  "completed",
  "cancelled",
]);
export type RetrievalStatus = z.infer<typeof RetrievalStatus>;

/** Retrieval request stage (docs/spec-decisions.md, "Retrieval requests and action responses"), open to values added later. */
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

/** Why a retrieval request needs the firm (docs/spec-decisions.md, "Retrieval requests and action responses"), open to values added later. */
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
/** An event type a webhook can subscribe to: one of {@link SUBSCRIBABLE_EVENT_TYPES}. */
export const SubscribableEventType = z.enum(SUBSCRIBABLE_EVENT_TYPES);
export type SubscribableEventType = z.infer<typeof SubscribableEventType>;

// ---------------------------------------------------------------- data

/** Data common to every retrieval event. */
export const RetrievalEventData = z.object({
  /** The retrieval request that changed: fetch it for the current state. */
  retrieval_request_id: z.string(),
  /** Its case; null when it has none. */
  case_id: z.string().nullable(),
  /** The version of the request's public state this event is about (Delivery rule 7). */
  public_updated_at: IsoDateTime,
});
export interface RetrievalEventData extends Wire.RetrievalEventData {}

/** Data of `retrieval_request.status_changed`: which request, and which version of it. */
export const RetrievalRequestStatusChangedData = RetrievalEventData;
export type RetrievalRequestStatusChangedData = RetrievalEventData;

/** Data of `retrieval_request.action_required`: a client action request was opened or reopened. */
export const RetrievalRequestActionRequiredData = RetrievalEventData.extend({
  /** The opened action request: `pending_action_request.id` of the retrieval request. */
  action_request_id: z.string(),
});
export interface RetrievalRequestActionRequiredData
  extends Wire.RetrievalRequestActionRequiredData {}

/** Data of `retrieval_request.documents_available`: records were released or an invoice became downloadable. */
export const RetrievalRequestDocumentsAvailableData = RetrievalEventData.extend({
  /** Same ids as the retrieval request's document list. */
  document_ids: z.array(z.string()),
  /** Present on an invoice event; each id also appears in `document_ids`. */
  invoice_ids: z.array(z.string()).optional(),
});
export interface RetrievalRequestDocumentsAvailableData
  extends Wire.RetrievalRequestDocumentsAvailableData {}

/** Data of `webhook.test`. */
export const WebhookTestData = z.object({
  /** The webhook that was tested. */
  webhook_id: z.string(),
});
export interface WebhookTestData extends Wire.WebhookTestData {}

/** `webhook.disabled` (docs/spec-decisions.md, "Webhook delivery"): in the event log only, never delivered. */
export const WebhookDisabledData = z.object({
  /** The webhook the service disabled. */
  webhook_id: z.string(),
  /** Events that had failed every attempt in a row: 5. */
  consecutive_failures: z.number().int().nonnegative(),
  /** ISO 8601 date-time; the webhook's `auto_disabled_at`. */
  disabled_at: IsoDateTime,
});
export interface WebhookDisabledData extends Wire.WebhookDisabledData {}

/** The log entry of status_changed also carries the new public state (spec, Event). */
export const RetrievalRequestStatusChangedLogData = RetrievalRequestStatusChangedData.extend({
  /** The request's status after the change. */
  status: RetrievalStatus,
  /** The request's stage after the change. */
  stage: RetrievalStage,
  /** Why the request waits on the firm, after the change; null when it does not. */
  action_required_reason: ActionRequiredReason.nullable(),
});
export interface RetrievalRequestStatusChangedLogData
  extends Wire.RetrievalRequestStatusChangedLogData {}

// ---------------------------------------------------------------- ids

/** `rr-` + 64 lowercase hex: the id of every retrieval event (spec, Event). */
export const RETRIEVAL_EVENT_ID_PATTERN = /^rr-[0-9a-f]{64}$/;
/** `evt_test_` + a UUID: the id of a `webhook.test` event (spec, Events). */
export const TEST_EVENT_ID_PATTERN =
  /^evt_test_[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
/** The `api_version` every event is rendered with (spec, Versioning rule 2). */
export const EVENT_API_VERSION = "v2";

// The shapes are stated in the OpenAPI document (`.meta`), not checked when
// parsing: an id is an opaque deduplication key to a client, and a new shape
// must not make events unreadable.
const RetrievalEventId = z.string().meta({ pattern: RETRIEVAL_EVENT_ID_PATTERN.source });
/** The id of a `webhook.test` event: in its body, and in the test operation's result. */
export const TestEventId = z.string().meta({ pattern: TEST_EVENT_ID_PATTERN.source });

// ---------------------------------------------------------------- webhook bodies

/** Fields of every delivery body (spec, Delivery rule 1). */
const deliveryBase = {
  /** Unique event id, the deduplication key; equal on every retry of one event. */
  id: z.string(),
  /** When the triggering change was saved: ISO 8601 date-time. */
  created_at: IsoDateTime,
};

/**
 * Delivered when the public status or timeline of a retrieval request
 * changed: a new stage, a new visible update within one, a correction, or a
 * return to an earlier stage.
 */
export const RetrievalRequestStatusChangedEvent = z.object({
  ...deliveryBase,
  /** Unique event id, the deduplication key: `rr-` and 64 hex characters, equal on every retry. */
  id: RetrievalEventId,
  /** Discriminates the union of events. */
  type: z.literal("retrieval_request.status_changed"),
  /** Which request changed, and the version it changed to. */
  data: RetrievalRequestStatusChangedData,
});
export interface RetrievalRequestStatusChangedEvent
  extends Wire.RetrievalRequestStatusChangedEvent {}

/** Delivered when a client action request is opened or reopened: answer it with `respondToAction`. */
export const RetrievalRequestActionRequiredEvent = z.object({
  ...deliveryBase,
  /** Unique event id, the deduplication key: `rr-` and 64 hex characters, equal on every retry. */
  id: RetrievalEventId,
  /** Discriminates the union of events. */
  type: z.literal("retrieval_request.action_required"),
  /** Which request, and which action request was opened. */
  data: RetrievalRequestActionRequiredData,
});
export interface RetrievalRequestActionRequiredEvent
  extends Wire.RetrievalRequestActionRequiredEvent {}

/** Delivered when records are released or a provider invoice becomes downloadable. */
export const RetrievalRequestDocumentsAvailableEvent = z.object({
  ...deliveryBase,
  /** Unique event id, the deduplication key: `rr-` and 64 hex characters, equal on every retry. */
  id: RetrievalEventId,
  /** Discriminates the union of events. */
  type: z.literal("retrieval_request.documents_available"),
  /** Which request, and which of its documents became downloadable. */
  data: RetrievalRequestDocumentsAvailableData,
});
export interface RetrievalRequestDocumentsAvailableEvent
  extends Wire.RetrievalRequestDocumentsAvailableEvent {}

/** Sent only by the test operation; id shaped `evt_test_<uuid>`. */
export const WebhookTestEvent = z.object({
  ...deliveryBase,
  /** Unique event id of a test delivery: `evt_test_` and a UUID. */
  id: TestEventId,
  /** Discriminates the union of events; answer 2xx and do nothing else. */
  type: z.literal("webhook.test"),
  /** Which webhook was tested. */
  data: WebhookTestData,
});
export interface WebhookTestEvent extends Wire.WebhookTestEvent {}

/** A webhook delivery body, discriminated on `type`. */
export const WebhookEvent = z.discriminatedUnion("type", [
  RetrievalRequestStatusChangedEvent,
  RetrievalRequestActionRequiredEvent,
  RetrievalRequestDocumentsAvailableEvent,
  WebhookTestEvent,
]);
export type WebhookEvent =
  | RetrievalRequestStatusChangedEvent
  | RetrievalRequestActionRequiredEvent
  | RetrievalRequestDocumentsAvailableEvent
  | WebhookTestEvent;
/** The `type` of a webhook delivery, `webhook.test` included. */
export type WebhookEventType = WebhookEvent["type"];

// ---------------------------------------------------------------- event log

/**
 * Fields of every event log entry beyond the delivery body (spec, Event). An
 * entry spreads these, then its delivery body's shape: the body's `id`,
 * `type` and `data` win, and the fields keep the order the document shows.
 */
const logBase = {
  ...deliveryBase,
  /** Always `event`. */
  object: z.literal("event"),
  /** Version the event was rendered with: `v2`. */
  api_version: z.string().meta({ const: EVENT_API_VERSION }),
  /** `X-Request-Id` of the API call that caused the event, when one did. */
  request_id: z.string().nullable(),
};

/** The log entry of a `retrieval_request.status_changed` event; its data also carries the new state. */
export const RetrievalRequestStatusChangedLogEntry = z.object({
  ...logBase,
  ...RetrievalRequestStatusChangedEvent.shape,
  /** The delivered data plus `status`, `stage` and `action_required_reason`. */
  data: RetrievalRequestStatusChangedLogData,
});
export interface RetrievalRequestStatusChangedLogEntry
  extends Wire.RetrievalRequestStatusChangedLogEntry {}

/** The log entry of a `retrieval_request.action_required` event. */
export const RetrievalRequestActionRequiredLogEntry = z.object({
  ...logBase,
  ...RetrievalRequestActionRequiredEvent.shape,
});
export interface RetrievalRequestActionRequiredLogEntry
  extends Wire.RetrievalRequestActionRequiredLogEntry {}

/** The log entry of a `retrieval_request.documents_available` event. */
export const RetrievalRequestDocumentsAvailableLogEntry = z.object({
  ...logBase,
  ...RetrievalRequestDocumentsAvailableEvent.shape,
});
export interface RetrievalRequestDocumentsAvailableLogEntry
  extends Wire.RetrievalRequestDocumentsAvailableLogEntry {}

/** The log entry written when the service disabled a webhook; never delivered (needs webhooks:read). */
export const WebhookDisabledLogEntry = z.object({
  ...logBase,
  /** Discriminates the union of log entries. */
  type: z.literal("webhook.disabled"),
  /** Which webhook, and when. */
  data: WebhookDisabledData,
});
export interface WebhookDisabledLogEntry extends Wire.WebhookDisabledLogEntry {}

/**
 * An event log entry (GET /v2/events, GET /v2/events/{id}) of a type this SDK
 * knows, discriminated on `type`. `webhook.test` is not one: test deliveries
 * are never written to the log (docs/spec-decisions.md, Webhook management).
 * A webhook delivery's body is a {@link WebhookEvent}; a listing may also
 * hold an {@link UnknownEvent}.
 */
export const LogEvent = z.discriminatedUnion("type", [
  RetrievalRequestStatusChangedLogEntry,
  RetrievalRequestActionRequiredLogEntry,
  RetrievalRequestDocumentsAvailableLogEntry,
  WebhookDisabledLogEntry,
]);
export type LogEvent =
  | RetrievalRequestStatusChangedLogEntry
  | RetrievalRequestActionRequiredLogEntry
  | RetrievalRequestDocumentsAvailableLogEntry
  | WebhookDisabledLogEntry;
/** The `type` of a known event log entry; {@link EVENT_LOG_TYPES} lists them. */
export type LogEventType = LogEvent["type"];

/**
 * @deprecated Use {@link LogEvent}: `Event` shadows the DOM's global `Event`
 * wherever it is imported. The same schema; removed in a later minor version.
 */
export const Event = LogEvent;
/** @deprecated Use {@link LogEvent}, the same type. */
export type Event = LogEvent;
/** @deprecated Use {@link LogEventType}, the same type. */
export type EventType = LogEventType;
