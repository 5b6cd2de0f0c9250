/**
 * What the inspector page reads: the answer of `GET /__mock/state`, built by
 * src/mock/server/inspector-view.ts from the model and read by the page. Types only,
 * shared by both sides. Nothing here carries an API key, a webhook secret or
 * a body a webhook receiver answered (only an advance's failures carry the
 * receiver's error code); event data is the mock's own fictional data.
 */

/** The whole page's state at one moment. */
export interface InspectorView {
  clock: InspectorClock;
  /** Newest first, at most {@link INSPECTOR_LIST_LIMIT}. */
  retrievalRequests: InspectorRetrievalRequest[];
  /** The event log, newest first. */
  events: InspectorEvent[];
  /** Every webhook, in list order, each with its newest attempts. */
  webhooks: InspectorWebhook[];
  /** The request journal, newest first. */
  requests: InspectorRequest[];
  /** Whether there are older ones than the view carries, so the page can say it shows only the newest. */
  more: { retrievalRequests: boolean; events: boolean; requests: boolean };
  /** The reasons an action request can give, for the page's choice. */
  actionRequiredReasons: readonly string[];
}

export interface InspectorClock {
  /** ISO 8601, the mock clock's time. */
  now: string;
  /** `manual`: moves only when advanced; `real`: follows real time. */
  mode: "manual" | "real";
}

export interface InspectorRetrievalRequest {
  id: string;
  case_id: string | null;
  external_id: string | null;
  status: string;
  stage: string;
  action_required_reason: string | null;
  /** The facility's name. */
  facility: string;
  created_at: string;
  /** Completed or cancelled: the provider's side can change nothing more. */
  final: boolean;
  /** An action request is open (a second cannot be opened). */
  actionRequestOpen: boolean;
  /** Oldest first. */
  timeline: InspectorTimelineEntry[];
}

/** One thing that happened to a retrieval request. */
export interface InspectorTimelineEntry {
  /** ISO 8601 on the mock clock. */
  at: string;
  kind: "created" | "status" | "action request" | "action response" | "record" | "invoice";
  /** One line, e.g. `processing (records_requested)`. */
  text: string;
}

export interface InspectorEvent {
  id: string;
  type: string;
  created_at: string;
  /** `data.retrieval_request_id` or `data.webhook_id`. */
  object_id: string | null;
  request_id: string | null;
  /** The log's data: the mock's fictional values. */
  data: Record<string, unknown>;
}

export interface InspectorWebhook {
  id: string;
  name: string;
  url: string;
  is_enabled: boolean;
  events: string[];
  /** The API's count: events whose every attempt failed, in a row (5 disable the webhook). */
  consecutive_failures: number;
  /** When it was disabled after 5 failed events in a row; null otherwise. */
  auto_disabled_at: string | null;
  /** The newest failed attempt of a real event, as the API reports it. */
  last_failure: { at: string; status_code: number | null; error: string | null } | null;
  /** Newest first, at most {@link INSPECTOR_ATTEMPTS_PER_WEBHOOK}. */
  attempts: InspectorAttempt[];
}

/** One delivery attempt: never a body, the engine does not read the receiver's answer. */
export interface InspectorAttempt {
  id: string;
  event_id: string;
  event_type: string;
  /** 1 to 5 within the event's attempts; 1 for a test or a redelivery. */
  attempt: number;
  /** When it was sent, on the mock clock. */
  at: string;
  success: boolean;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  is_test: boolean;
  is_redelivery: boolean;
  next_attempt_at: string | null;
}

/**
 * What `POST /__mock/clock/advance` answers once the window's deliveries
 * were made: the attempts of the window, and each failure with the
 * receiver's error code (never more of its answer) and what to do.
 */
export interface InspectorAdvanceResult {
  now: string;
  attempted: number;
  succeeded: number;
  failed: {
    webhook_id: string;
    event_type: string;
    attempt: number;
    attempted_at: string;
    error: string;
    receiver_error: string | null;
    hint: string;
  }[];
}

/** One journal entry: no body, header or query, so no key. */
export interface InspectorRequest {
  at: string;
  method: string;
  /** The operation's path template; null when no endpoint matched. */
  path_template: string | null;
  status: number;
  request_id: string;
}

/** Newest retrieval requests, events and journal entries the view carries. */
export const INSPECTOR_LIST_LIMIT = 200;
/** Newest delivery attempts per webhook the view carries. */
export const INSPECTOR_ATTEMPTS_PER_WEBHOOK = 100;
