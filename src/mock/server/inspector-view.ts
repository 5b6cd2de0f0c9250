/**
 * `GET /__mock/state`: the inspector page's view of one service
 * (src/inspector/view.ts), read through the model's own list functions as the
 * API's handlers read it, so the page shows what a client would list. Fields
 * are picked one by one: a webhook's secret, an API key or a receiver's answer
 * can never ride along with a spread.
 */
import {
  INSPECTOR_ATTEMPTS_PER_WEBHOOK,
  INSPECTOR_LIST_LIMIT,
  type InspectorAttempt,
  type InspectorEvent,
  type InspectorRetrievalRequest,
  type InspectorTimelineEntry,
  type InspectorView,
} from "../../inspector/view.js";
import {
  ACTION_REQUIRED_REASONS,
  FINAL_RETRIEVAL_STATUSES,
  type RetrievalRequest,
} from "../../schemas/retrieval-requests.js";
import { SCOPES } from "../../schemas/scopes.js";
import type { ApiKeyRecord } from "../model/api-keys.js";
import { listEvents } from "../model/event-list.js";
import type { EventLogEntry } from "../model/event-log.js";
import { listRetrievalRequests } from "../model/retrieval-requests.js";
import type { ModelContext } from "../model/state.js";
import { listDeliveries, listWebhooks } from "../model/webhooks.js";
import { contextOf, type MockServiceCore } from "../service/service.js";

/**
 * Newest events read for the timelines; the page's Events region shows the
 * first {@link INSPECTOR_LIST_LIMIT} of them. A request whose status changes
 * all fell out of these still shows its creation, action requests and documents.
 */
const TIMELINE_EVENTS = 5_000;

/** Reads the log as a key with every scope would: nothing is hidden from the page. */
const EVERY_SCOPE: ApiKeyRecord = { id: "key_inspector", scopes: new Set(SCOPES) };

export function inspectorView(service: MockServiceCore): InspectorView {
  const ctx = contextOf(service);
  const requests = listRetrievalRequests(ctx, {}, { limit: INSPECTOR_LIST_LIMIT });
  const log = listEvents(ctx, EVERY_SCOPE, {}, { limit: TIMELINE_EVENTS });
  const events = log.results;
  const byRequest = new Map<unknown, EventLogEntry[]>();
  for (const event of events) {
    const id = event.data.retrieval_request_id;
    const list = byRequest.get(id);
    if (list === undefined) byRequest.set(id, [event]);
    else list.push(event);
  }
  const journal = service.requests;
  return {
    clock: { now: service.clock.now().toISOString(), mode: service.clock.mode },
    retrievalRequests: requests.results.map((request) =>
      retrievalRequestView(service, request, byRequest.get(request.id) ?? []),
    ),
    events: events.slice(0, INSPECTOR_LIST_LIMIT).map(eventView),
    webhooks: listWebhooks(ctx).map((webhook) => ({
      id: webhook.id,
      name: webhook.name,
      url: webhook.url,
      is_enabled: webhook.is_enabled,
      events: [...webhook.events],
      consecutive_failures: webhook.consecutive_failures,
      auto_disabled_at: webhook.auto_disabled_at,
      last_failure:
        webhook.last_failure === null
          ? null
          : {
              at: webhook.last_failure.at,
              status_code: webhook.last_failure.status_code,
              error: webhook.last_failure.error,
            },
      attempts: attemptsOf(ctx, webhook.id),
    })),
    requests: journal
      .slice(-INSPECTOR_LIST_LIMIT)
      .reverse()
      .map((entry) => ({
        at: entry.at,
        method: entry.method,
        path_template: entry.pathTemplate,
        status: entry.status,
        request_id: entry.requestId,
      })),
    more: {
      retrievalRequests: requests.nextCursor !== null,
      events: events.length > INSPECTOR_LIST_LIMIT || log.nextCursor !== null,
      requests: journal.length > INSPECTOR_LIST_LIMIT,
    },
    actionRequiredReasons: ACTION_REQUIRED_REASONS,
  };
}

function retrievalRequestView(
  service: MockServiceCore,
  request: RetrievalRequest,
  events: readonly EventLogEntry[],
): InspectorRetrievalRequest {
  const timeline: InspectorTimelineEntry[] = [
    { at: request.created_at, kind: "created", text: `at ${request.facility.name}` },
  ];
  // The log lists newest first; oldest first here, so that the stable sort below keeps one moment's order.
  for (const event of [...events].reverse()) {
    if (event.type !== "retrieval_request.status_changed") continue;
    const { status, stage, action_required_reason: reason } = event.data;
    timeline.push({
      at: event.created_at,
      kind: "status",
      text: `${status} (${stage})${reason ? `: ${reason}` : ""}`,
    });
  }
  for (const ar of service.retrievalRequests.actionRequests(request.id)) {
    timeline.push({
      at: ar.opened_at,
      kind: "action request",
      text: `${ar.reason}: ${ar.message} [${ar.status}${ar.opening > 1 ? `, opening ${ar.opening}` : ""}]`,
    });
    for (const response of ar.responses) {
      timeline.push({
        at: response.responded_at,
        kind: "action response",
        text: `${response.message}${response.attachment ? ` [attached ${response.attachment.file_name}]` : ""}`,
      });
    }
  }
  for (const document of request.documents) {
    const invoice = document.kind === "invoice";
    timeline.push({
      at: document.created_at,
      kind: invoice ? "invoice" : "record",
      text: `${document.file_name} (${document.file_size} bytes)${invoice && !document.ready ? " [not ready]" : ""}`,
    });
  }
  // Stable: entries of one moment keep the order above (created, status, action request, document).
  timeline.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  return {
    id: request.id,
    case_id: request.case_id,
    external_id: request.external_id,
    status: request.status,
    stage: request.stage,
    action_required_reason: request.action_required_reason,
    facility: request.facility.name,
    created_at: request.created_at,
    final: (FINAL_RETRIEVAL_STATUSES as readonly string[]).includes(request.status),
    actionRequestOpen: request.pending_action_request !== null,
    timeline,
  };
}

function eventView(event: EventLogEntry): InspectorEvent {
  const { data } = event;
  const objectId = data.retrieval_request_id ?? data.webhook_id;
  return {
    id: event.id,
    type: event.type,
    created_at: event.created_at,
    object_id: typeof objectId === "string" ? objectId : null,
    request_id: event.request_id,
    data,
  };
}

function attemptsOf(ctx: ModelContext, webhookId: string): InspectorAttempt[] {
  const page = listDeliveries(ctx, webhookId, { limit: INSPECTOR_ATTEMPTS_PER_WEBHOOK });
  return page.results.map((d) => ({
    id: d.id,
    event_id: d.event_id,
    event_type: d.event_type,
    attempt: d.attempt,
    at: d.created_at,
    success: d.success,
    status_code: d.status_code,
    duration_ms: d.duration_ms,
    error: d.error,
    is_test: d.is_test,
    is_redelivery: d.is_redelivery,
    next_attempt_at: d.next_attempt_at,
  }));
}
