/** Producing event log entries in the reference server, for the event log and poller tests. */
import type { MockServiceCore } from "../../src/mock/index.js";
import { appendEvent, type EventLogEntry } from "../../src/mock/model/event-log.js";
import { contextOf } from "../../src/mock/service/service.js";
import type { Event, SubscribableEventType } from "../../src/schemas/events.js";
import { emitEventForTesting } from "./mock-internals.js";

// Each name checked against the schemas' lists, so that a renamed type fails to compile here.
export const STATUS_CHANGED = "retrieval_request.status_changed" satisfies SubscribableEventType;
export const ACTION_REQUIRED = "retrieval_request.action_required" satisfies SubscribableEventType;
export const DOCUMENTS_AVAILABLE =
  "retrieval_request.documents_available" satisfies SubscribableEventType;
export const WEBHOOK_DISABLED = "webhook.disabled" satisfies Event["type"];

/** A `status_changed` about `retrievalRequestId`, at the mock clock's time. */
export function statusChanged(
  mock: MockServiceCore,
  retrievalRequestId = "rr_1",
  options: { requestId?: string } = {},
): EventLogEntry {
  return emitEventForTesting(
    mock,
    STATUS_CHANGED,
    {
      retrieval_request_id: retrievalRequestId,
      case_id: null,
      public_updated_at: mock.clock.now().toISOString(),
      status: "processing",
      stage: "request_sent",
      action_required_reason: null,
    },
    options,
  );
}

export function actionRequired(mock: MockServiceCore, retrievalRequestId = "rr_1"): EventLogEntry {
  return emitEventForTesting(mock, ACTION_REQUIRED, {
    retrieval_request_id: retrievalRequestId,
    case_id: "case_1",
    public_updated_at: mock.clock.now().toISOString(),
    action_request_id: `ar_${retrievalRequestId}`,
  });
}

export function documentsAvailable(
  mock: MockServiceCore,
  retrievalRequestId = "rr_1",
): EventLogEntry {
  return emitEventForTesting(mock, DOCUMENTS_AVAILABLE, {
    retrieval_request_id: retrievalRequestId,
    case_id: null,
    public_updated_at: mock.clock.now().toISOString(),
    document_ids: ["doc_1"],
  });
}

/**
 * A `webhook.disabled` as the delivery engine logs it: stamped with the
 * failed attempt's time `atMs`, which may be earlier than events logged before it.
 */
export function webhookDisabled(
  mock: MockServiceCore,
  webhookId = "wh_1",
  atMs = mock.clock.now().getTime(),
): EventLogEntry {
  const stored = appendEvent(
    contextOf(mock),
    WEBHOOK_DISABLED,
    {
      webhook_id: webhookId,
      consecutive_failures: 5,
      disabled_at: new Date(atMs).toISOString(),
    },
    { atMs },
  );
  return { ...stored.value };
}

export const ids = (events: readonly { id: string }[]): string[] => events.map((e) => e.id);
