/**
 * Dispatching an event to webhooks (spec, Delivery; docs/spec-decisions.md,
 * "Webhook delivery"): the webhooks enabled and subscribed when it is
 * emitted, retries on the mock clock after each of WEBHOOK_RETRY_DELAYS_MS
 * (queued with the first attempts, made in time order: ../runtime/delivery-queue.ts),
 * and the failure accounting that disables a webhook after
 * WEBHOOK_AUTO_DISABLE_AFTER failed events in a row. Each attempt is the
 * delivery engine's (delivery-send.ts, delivery-history.ts, webhook-health.ts).
 */
import { WEBHOOK_AUTO_DISABLE_AFTER, WEBHOOK_RETRY_DELAYS_MS } from "../../schemas/webhooks.js";
import type { OutgoingEvent } from "./delivery-attempt.js";
import { recordAttempt } from "./delivery-history.js";
import { sendAttempt } from "./delivery-send.js";
import { appendEvent } from "./event-log.js";
import { type MockState, type ModelContext, nowMs } from "./state.js";
import { noteAttempt } from "./webhook-health.js";
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
 * The first attempts are made at this instant of the service's clock, in
 * turn with every other attempt due (the delivery queue).
 */
export function dispatchEvent(ctx: ModelContext, event: OutgoingEvent): void {
  const { state } = ctx;
  const atMs = nowMs(ctx);
  for (const webhook of webhooksIn(state)) {
    if (isDeliverable(webhook, event)) queueAttempt(ctx, state, webhook.value.id, event, 1, atMs);
  }
}

function isDeliverable(webhook: StoredWebhook, event: OutgoingEvent): boolean {
  return webhook.value.is_enabled && (webhook.value.events as string[]).includes(event.type);
}

/** One attempt of an event, to be made at `atMs` of the service's clock. */
interface PlannedAttempt {
  readonly state: MockState;
  readonly webhookId: string;
  readonly event: OutgoingEvent;
  readonly attempt: number;
  readonly atMs: number;
}

function queueAttempt(
  ctx: ModelContext,
  state: MockState,
  webhookId: string,
  event: OutgoingEvent,
  attempt: number,
  atMs: number,
): void {
  const planned: PlannedAttempt = { state, webhookId, event, attempt, atMs };
  ctx.delivery.queue.enqueue(atMs, () => makeAttempt(ctx, planned, false));
}

/**
 * Makes one attempt and records it, then schedules the next (a failure) or
 * counts the event failed (the last). `released` marks an attempt coming out
 * of the reordering hold of `mock.faults`.
 */
async function makeAttempt(
  ctx: ModelContext,
  planned: PlannedAttempt,
  released: boolean,
): Promise<void> {
  const { state, webhookId, event, attempt, atMs } = planned;
  const webhook = webhookIn(state, webhookId);
  // A reset, a deletion, a disable or an unsubscribe since the event cancels what is left of it.
  if (ctx.state !== state || webhook === undefined || !isDeliverable(webhook, event)) return;
  const faults = ctx.delivery.faults;
  const again = () => ctx.delivery.queue.enqueue(atMs, () => makeAttempt(ctx, planned, true));
  if (!released && faults?.hold(again)) return;
  // Drawn when the attempt is made, so the choice does not depend on when answers arrive.
  const duplicate = faults?.duplicate() ?? false;
  const outcome = await sendAttempt(ctx, webhook, event, attempt, atMs);
  // A copy injected by mock.faults: sent, never recorded.
  if (duplicate) await sendAttempt(ctx, webhook, event, attempt, atMs);
  // Deleted (or reset away) while in flight: its history went with it.
  if (ctx.state !== state || webhookIn(state, webhookId) !== webhook) return;
  const delay = outcome.success ? undefined : WEBHOOK_RETRY_DELAYS_MS[attempt - 1];
  // Counted from the failed attempt's instant, so retries fall exactly on
  // +1 min, +5 min, ... of the mock clock whatever real time the attempt took.
  const nextAttemptAtMs = delay === undefined ? null : atMs + delay;
  recordAttempt(state, webhook, event, attempt, outcome, { nextAttemptAtMs });
  noteAttempt(webhook, event, outcome);
  if (nextAttemptAtMs !== null) {
    queueAttempt(ctx, state, webhookId, event, attempt + 1, nextAttemptAtMs);
  } else if (!outcome.success) {
    noteEventFailed(ctx, webhook, atMs);
  }
}
