/**
 * A webhook's health as its record shows it (`last_success_at`,
 * `last_failure`, `consecutive_failures`), after each attempt of a real event.
 * Disabling a webhook after too many failures is webhook-dispatch.ts's.
 */
import type { AttemptOutcome, DeliveryWebhook, OutgoingEvent } from "./delivery-attempt.js";

/**
 * Health after one attempt of a real event (never a test): a success resets
 * the failure count and stamps last_success_at; a failure becomes last_failure.
 */
export function noteAttempt(
  webhook: DeliveryWebhook,
  event: OutgoingEvent,
  outcome: AttemptOutcome,
): void {
  const at = new Date(outcome.sentAtMs).toISOString();
  if (outcome.success) {
    webhook.value.last_success_at = at;
    webhook.value.consecutive_failures = 0;
    return;
  }
  webhook.value.last_failure = {
    at,
    status_code: outcome.status_code,
    error: outcome.error,
    event_type: event.type,
  };
}
