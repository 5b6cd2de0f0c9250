/**
 * Dispatching an event to webhooks (spec, Delivery; docs/spec-decisions.md,
 * "Webhook delivery"): the webhooks enabled and subscribed when it is
 * emitted, retries on the mock clock after each of WEBHOOK_RETRY_DELAYS_MS,
 * and the failure accounting that disables a webhook after
 * WEBHOOK_AUTO_DISABLE_AFTER failed events in a row. Each attempt is the
 * delivery engine's (delivery.ts).
 */
import { WEBHOOK_AUTO_DISABLE_AFTER, WEBHOOK_RETRY_DELAYS_MS } from "../../schemas/webhooks.js";
import { track } from "../delivery-runtime.js";
import { noteAttempt, type OutgoingEvent, recordAttempt, sendAttempt } from "./delivery.js";
import { appendEvent } from "./event-log.js";
import type { MockState, ModelContext } from "./state.js";
import { type StoredWebhook, webhookIn, webhooksIn } from "./webhooks.js";

/**
 * Every attempt of an event failed: count it, and disable the webhook at 5 in
 * a row. An event whose last attempt was in flight when the webhook was
 * disabled is not counted: `consecutive_failures` stays as the
 * `webhook.disabled` event reported it (docs/spec-decisions.md, Webhook delivery).
 */
function noteEventFailed(ctx: ModelContext, webhook: StoredWebhook, atMs: number): void {
  const value = webhook.value;
  value.last_failure_at = new Date(atMs).toISOString();
  if (!value.is_enabled) return;
  value.consecutive_failures += 1;
  if (value.consecutive_failures < WEBHOOK_AUTO_DISABLE_AFTER) return;
  // Stamped with the failed attempt's mock time, not the time its answer arrived.
  const disabledAt = new Date(atMs).toISOString();
  value.is_enabled = false;
  value.auto_disabled_at = disabledAt;
  value.updated_at = new Date(Math.max(atMs, Date.parse(value.updated_at) + 1)).toISOString();
  // In the log only: webhook.* types cannot be subscribed to (docs/spec-decisions.md, "Webhook delivery").
  appendEvent(
    ctx,
    "webhook.disabled",
    {
      webhook_id: value.id,
      consecutive_failures: value.consecutive_failures,
      disabled_at: disabledAt,
    },
    { atMs },
  );
}

/**
 * Starts delivering an event to every webhook that is enabled and subscribed
 * to its type now. Which webhooks get it is decided here, once: a webhook
 * disabled at this moment never receives this event, even after re-enabling.
 */
export function dispatchEvent(ctx: ModelContext, event: OutgoingEvent): void {
  const { state } = ctx;
  for (const webhook of webhooksIn(state)) {
    if (isDeliverable(webhook, event)) runAttempt(ctx, state, webhook.value.id, event, 1);
  }
}

function isDeliverable(webhook: StoredWebhook, event: OutgoingEvent): boolean {
  return webhook.value.is_enabled && (webhook.value.events as string[]).includes(event.type);
}

/**
 * `copy` marks a duplicate injected by `mock.faults`: sent, never recorded.
 * `released` marks an attempt coming out of the reordering hold.
 */
function runAttempt(
  ctx: ModelContext,
  state: MockState,
  webhookId: string,
  event: OutgoingEvent,
  attempt: number,
  copy = false,
  released = false,
): void {
  const webhook = webhookIn(state, webhookId);
  // A reset, a deletion, a disable or an unsubscribe since the event cancels what is left of it.
  if (ctx.state !== state || webhook === undefined || !isDeliverable(webhook, event)) return;
  const faults = ctx.delivery.faults;
  const again = () => runAttempt(ctx, state, webhookId, event, attempt, copy, true);
  if (!released && faults?.hold(again)) return;
  if (copy) {
    void track(ctx.delivery, sendAttempt(ctx, webhook, event, attempt));
    return;
  }
  // Drawn when the attempt is made, so the choice does not depend on when answers arrive.
  const duplicate = faults?.duplicate() ?? false;
  const work = async () => {
    const outcome = await sendAttempt(ctx, webhook, event, attempt);
    if (duplicate) runAttempt(ctx, state, webhookId, event, attempt, true);
    // Deleted (or reset away) while in flight: its history went with it.
    if (ctx.state !== state || webhookIn(state, webhookId) !== webhook) return;
    const delay = outcome.success ? undefined : WEBHOOK_RETRY_DELAYS_MS[attempt - 1];
    // Counted from the failed attempt's send time, so retries fall exactly on
    // +1 min, +5 min, ... of the mock clock whatever real time the attempt took.
    const nextAttemptAtMs = delay === undefined ? null : outcome.sentAtMs + delay;
    recordAttempt(state, webhook, event, attempt, outcome, { nextAttemptAtMs });
    noteAttempt(webhook, event, outcome);
    if (nextAttemptAtMs !== null) {
      ctx.clock.schedule(nextAttemptAtMs, () =>
        runAttempt(ctx, state, webhookId, event, attempt + 1),
      );
    } else if (!outcome.success) {
      noteEventFailed(ctx, webhook, outcome.sentAtMs);
    }
  };
  void track(ctx.delivery, work());
}
