/**
 * Webhook rules (spec, Webhooks rules 1-6 and States): MAX_WEBHOOKS per organization,
 * unique names, public URLs, a secret shown once, re-enabling that resets the
 * failure count, the rate-limited test, delivery history and redelivery.
 * The mock serves one organization, so "per organization" means per service.
 */
import {
  MAX_WEBHOOKS,
  WEBHOOK_TEST_INTERVAL_MS,
  type Webhook,
  type WebhookCreate,
  type WebhookCreateResponse,
  type WebhookDelivery,
  type WebhookTestResult,
  type WebhookUpdate,
} from "../../schemas/webhooks.js";
import { retryAfterHint } from "../runtime/clock.js";
import { track } from "../runtime/delivery-runtime.js";
import { MockApiError, notFound } from "../runtime/http-error.js";
import { randomBase62 } from "../runtime/ids.js";
import { type DeliveryWebhook, toOutgoing } from "./delivery-attempt.js";
import {
  deleteDeliveriesOf,
  deliveriesOf,
  findDelivery,
  recordAttempt,
} from "./delivery-history.js";
import { sendAttempt } from "./delivery-send.js";
import { type Page, type PageRequest, paginateSorted, seqKey } from "./paginate.js";
import {
  defineSlice,
  type MockState,
  type ModelContext,
  nextSequence,
  nextUpdatedAt,
  nowIso,
  nowMs,
} from "./state.js";
import { noteAttempt } from "./webhook-health.js";
import { assertPublicWebhookUrl } from "./webhook-urls.js";

export interface StoredWebhook extends DeliveryWebhook {
  /** `whsec_` + 32 base62: shown once at creation, kept to sign deliveries. */
  readonly secret: string;
  /** Mock-clock time of the last accepted test, for the 10 s limit. */
  lastTestAtMs: number | null;
}

/** This module's slice of the state: the webhooks by id. */
const webhooksSlice = defineSlice("webhooks", () => new Map<string, StoredWebhook>());

/** The webhooks of `state` (the delivery engine's view: it delivers within the state an event began in). */
export function webhooksIn(state: MockState): IterableIterator<StoredWebhook> {
  return webhooksSlice.of(state).values();
}

/** A webhook of `state` by id, if it still exists. */
export function webhookIn(state: MockState, webhookId: string): StoredWebhook | undefined {
  return webhooksSlice.of(state).get(webhookId);
}

export async function createWebhook(
  ctx: ModelContext,
  input: WebhookCreate,
  createdBy: string,
): Promise<WebhookCreateResponse> {
  await assertPublicWebhookUrl(ctx, input.url);
  // Read after the DNS wait, so two concurrent creations cannot both take the 20th place.
  const { state } = ctx;
  const webhooks = webhooksSlice.of(state);
  if (webhooks.size >= MAX_WEBHOOKS) {
    throw new MockApiError(
      409,
      "limit_exceeded",
      `An organization can hold up to ${MAX_WEBHOOKS} webhooks; delete one to create another.`,
    );
  }
  assertNameFree(ctx, input.name, undefined);
  const secret = `whsec_${randomBase62(32)}`;
  const now = nowIso(ctx);
  const value: Webhook = {
    id: ctx.ids.base62("webhook", "wh_", 24),
    name: input.name,
    url: input.url,
    events: [...new Set(input.events)],
    description: input.description ?? null,
    is_enabled: true,
    consecutive_failures: 0,
    last_failure_at: null,
    last_success_at: null,
    auto_disabled_at: null,
    last_failure: null,
    secret_hint: `...${secret.slice(-4)}`,
    created_by: createdBy,
    created_at: now,
    updated_at: now,
  };
  webhooks.set(value.id, { seq: nextSequence(state), value, secret, lastTestAtMs: null });
  return {
    id: value.id,
    name: value.name,
    url: value.url,
    description: value.description,
    events: [...value.events],
    secret,
    is_enabled: true,
    auto_disabled_at: null,
    last_failure: null,
    created_at: now,
  };
}

/** Newest first, all of them (at most MAX_WEBHOOKS, so there is no page). */
export function listWebhooks(ctx: ModelContext): Webhook[] {
  return [...webhooksSlice.of(ctx).values()].sort((a, b) => b.seq - a.seq).map(copy);
}

export function getWebhook(ctx: ModelContext, webhookId: string): Webhook {
  return copy(findWebhook(ctx, webhookId));
}

export async function updateWebhook(
  ctx: ModelContext,
  webhookId: string,
  patch: WebhookUpdate,
): Promise<Webhook> {
  if (patch.url !== undefined) await assertPublicWebhookUrl(ctx, patch.url);
  const stored = findWebhook(ctx, webhookId);
  if (patch.name !== undefined) assertNameFree(ctx, patch.name, webhookId);
  const next: Webhook = { ...stored.value };
  if (patch.name !== undefined) next.name = patch.name;
  if (patch.url !== undefined) next.url = patch.url;
  if (patch.events !== undefined) next.events = [...new Set(patch.events)];
  if (patch.description !== undefined) next.description = patch.description;
  if (patch.is_enabled !== undefined) next.is_enabled = patch.is_enabled;
  if (patch.is_enabled === true && !stored.value.is_enabled) {
    // Re-enabling is a fresh start (spec, States); events missed meanwhile stay
    // missed. Only a disabled to enabled move is one: `is_enabled: true` on an
    // enabled webhook keeps its count (docs/spec-decisions.md, Webhook management).
    next.consecutive_failures = 0;
    next.auto_disabled_at = null;
  }
  next.updated_at = nextUpdatedAt(ctx, stored.value.updated_at);
  stored.value = next;
  return copy(stored);
}

/** Deletes the webhook and its delivery history; pending retries find it gone and stop. */
export function deleteWebhook(ctx: ModelContext, webhookId: string): void {
  findWebhook(ctx, webhookId);
  webhooksSlice.of(ctx).delete(webhookId);
  deleteDeliveriesOf(ctx, webhookId);
}

/**
 * The test operation (spec, Webhooks rule 3): one attempt of a `webhook.test`
 * event, on enabled and disabled webhooks alike, never retried and never
 * counted in the webhook's health. At most one per webhook every 10 s of the
 * mock clock; a refused call does not move the window.
 */
export async function testWebhook(
  ctx: ModelContext,
  webhookId: string,
): Promise<WebhookTestResult> {
  const stored = findWebhook(ctx, webhookId);
  const now = nowMs(ctx);
  if (stored.lastTestAtMs !== null && now < stored.lastTestAtMs + WEBHOOK_TEST_INTERVAL_MS) {
    const retryAfter = Math.ceil((stored.lastTestAtMs + WEBHOOK_TEST_INTERVAL_MS - now) / 1000);
    throw new MockApiError(
      429,
      "rate_limited",
      `A webhook can be tested once every ${WEBHOOK_TEST_INTERVAL_MS / 1000} seconds; ${retryAfterHint(ctx.clock, retryAfter)}.`,
      { "retry-after": String(retryAfter) },
    );
  }
  stored.lastTestAtMs = now;
  const { state } = ctx;
  const event = toOutgoing({
    id: `evt_test_${ctx.ids.uuid("test_event")}`,
    type: "webhook.test",
    created_at: new Date(now).toISOString(),
    data: { webhook_id: stored.value.id },
  });
  const outcome = await track(ctx.delivery, sendAttempt(ctx, stored, event, 1, now));
  if (ctx.state === state && webhookIn(state, webhookId) === stored) {
    recordAttempt(state, stored, event, 1, outcome, { isTest: true });
  }
  return {
    success: outcome.success,
    status_code: outcome.status_code,
    duration_ms: outcome.duration_ms,
    error: outcome.error,
    event_id: event.id,
    sent_at: new Date(outcome.sentAtMs).toISOString(),
  };
}

/** Delivery attempts of one webhook, newest first. */
export function listDeliveries(
  ctx: ModelContext,
  webhookId: string,
  page: PageRequest,
): Page<WebhookDelivery> {
  findWebhook(ctx, webhookId);
  const own = deliveriesOf(ctx, webhookId);
  const result = paginateSorted(own, seqKey, () => true, page, 1);
  return { ...result, results: result.results.map((stored) => ({ ...stored.value })) };
}

/**
 * Sends the event of a past delivery once more: the same body and id, a fresh
 * timestamp and signature, one attempt with no retries. It counts as a
 * delivery of the event for health (a success resets the failure count, a
 * failure becomes last_failure) but never as a failed event; a redelivered
 * test stays a test. A disabled webhook delivers nothing (spec, States), so
 * it is refused with 409 conflict until it is enabled again.
 */
export async function redeliver(
  ctx: ModelContext,
  webhookId: string,
  deliveryId: string,
): Promise<WebhookDelivery> {
  const stored = findWebhook(ctx, webhookId);
  const original = findDelivery(ctx, deliveryId);
  if (original === undefined || original.value.webhook_id !== webhookId) {
    throw notFound("The delivery does not exist for this webhook.");
  }
  if (!stored.value.is_enabled) {
    throw new MockApiError(
      409,
      "conflict",
      "The webhook is disabled and delivers nothing; enable it (is_enabled: true) before redelivering.",
    );
  }
  const { state } = ctx;
  const { event } = original;
  const isTest = original.value.is_test;
  const outcome = await track(ctx.delivery, sendAttempt(ctx, stored, event, 1, nowMs(ctx)));
  if (ctx.state !== state || webhookIn(state, webhookId) !== stored) {
    throw notFound("The webhook was deleted during the redelivery.");
  }
  if (!isTest) noteAttempt(stored, event, outcome);
  return recordAttempt(state, stored, event, 1, outcome, { isTest, isRedelivery: true });
}

function findWebhook(ctx: ModelContext, webhookId: string): StoredWebhook {
  const stored = webhooksSlice.of(ctx).get(webhookId);
  if (stored === undefined) throw notFound("The webhook does not exist.");
  return stored;
}

/** Names are unique within the organization, compared exactly (case and spaces count). */
function assertNameFree(ctx: ModelContext, name: string, exceptId: string | undefined): void {
  for (const other of webhooksSlice.of(ctx).values()) {
    if (other.value.name === name && other.value.id !== exceptId) {
      throw new MockApiError(409, "conflict", "A webhook with this name already exists.");
    }
  }
}

function copy(stored: StoredWebhook): Webhook {
  const { value } = stored;
  return {
    ...value,
    events: [...value.events],
    last_failure: value.last_failure === null ? null : { ...value.last_failure },
  };
}
