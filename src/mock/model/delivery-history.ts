/**
 * The delivery history (spec, "List webhook deliveries"): this module's
 * slice holds every attempt's record with the bytes it sent, so that a
 * delivery can be redelivered byte for byte, indexed by webhook in sequence
 * order.
 */
import type { WebhookDelivery } from "../../schemas/webhooks.js";
import type { AttemptOutcome, DeliveryWebhook, OutgoingEvent } from "./delivery-attempt.js";
import { MapListIndex } from "./list-index.js";
import { defineSlice, type MockState, type ModelContext, type Stored } from "./state.js";

/** A delivery record together with the body, so it can be redelivered byte for byte. */
export interface StoredDelivery extends Stored<WebhookDelivery> {
  readonly event: OutgoingEvent;
}

/** This module's slice of the state: every webhook's delivery attempts, by delivery id. */
const deliveriesSlice = defineSlice("deliveries", () => new Map<string, StoredDelivery>());

/**
 * Every webhook's deliveries in sequence order (attempts may finish out of
 * it: they are filed by sequence), by webhook, for `GET /v2/webhooks/{id}/deliveries`.
 */
const deliveryIndex = new MapListIndex<StoredDelivery>({
  keyOf: (stored) => stored.seq,
  bucketsOf: ({ value }) => [`webhook:${value.webhook_id}`],
});

/** One webhook's delivery attempts, oldest first. */
export function deliveriesOf(ctx: ModelContext, webhookId: string): readonly StoredDelivery[] {
  return deliveryIndex.of(deliveriesSlice.of(ctx)).list(`webhook:${webhookId}`);
}

/** A delivery attempt by id, of any webhook. */
export function findDelivery(ctx: ModelContext, deliveryId: string): StoredDelivery | undefined {
  return deliveriesSlice.of(ctx).get(deliveryId);
}

/** Forgets a webhook's delivery history (the webhook was deleted). */
export function deleteDeliveriesOf(ctx: ModelContext, webhookId: string): void {
  const deliveries = deliveriesSlice.of(ctx);
  for (const delivery of [...deliveriesOf(ctx, webhookId)]) {
    deliveries.delete(delivery.value.id);
    deliveryIndex.deleted(deliveries, delivery);
  }
}

export interface AttemptKind {
  /** @default false */
  isTest?: boolean;
  /** @default false */
  isRedelivery?: boolean;
  /** When the next attempt of the event is due, if one was scheduled. @default null */
  nextAttemptAtMs?: number | null;
}

/**
 * Stores the record of one attempt in `state` (the state the attempt began
 * in), at the place in list order the attempt took when it was made.
 */
export function recordAttempt(
  state: MockState,
  webhook: DeliveryWebhook,
  event: OutgoingEvent,
  attempt: number,
  outcome: AttemptOutcome,
  kind: AttemptKind = {},
): WebhookDelivery {
  const record: WebhookDelivery = {
    id: outcome.id,
    webhook_id: webhook.value.id,
    event_id: event.id,
    event_type: event.type,
    attempt,
    status_code: outcome.status_code,
    error: outcome.error,
    success: outcome.success,
    duration_ms: outcome.duration_ms,
    created_at: new Date(outcome.sentAtMs).toISOString(),
    next_attempt_at:
      kind.nextAttemptAtMs == null ? null : new Date(kind.nextAttemptAtMs).toISOString(),
    is_test: kind.isTest ?? false,
    is_redelivery: kind.isRedelivery ?? false,
  };
  const stored: StoredDelivery = { seq: outcome.seq, value: record, event };
  const deliveries = deliveriesSlice.of(state);
  deliveries.set(record.id, stored);
  deliveryIndex.added(deliveries, stored);
  return { ...record };
}
