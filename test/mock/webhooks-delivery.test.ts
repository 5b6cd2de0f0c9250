/**
 * The delivery engine against a real receiver on 127.0.0.1: the retry
 * schedule by the mock clock, signatures, failure accounting, auto-disable,
 * and what counts as a failed attempt.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createMockService, type MockService } from "../../src/mock/index.js";
import { contextOf } from "../../src/mock/service/service.js";
import { Event } from "../../src/schemas/events.js";
import {
  WEBHOOK_AUTO_DISABLE_AFTER,
  WEBHOOK_MAX_ATTEMPTS,
  type Webhook,
  type WebhookDelivery,
  type WebhookTestResult,
} from "../../src/schemas/webhooks.js";
import { verifyWebhook } from "../../src/webhooks/index.js";
import { cloningFetch } from "../helpers/cloning-fetch.js";
import {
  createMockServiceForTesting,
  emitEventForTesting,
  eventLogForTesting,
} from "../helpers/mock-internals.js";
import { type Api, createApi, START } from "./helpers.js";
import {
  createWebhook,
  EVENT,
  healthOf,
  type Receiver,
  readWebhook,
  startReceiver,
  statusData,
} from "./webhook-helpers.js";

const MINUTE = 60_000;
const RETRY_DELAYS = [1 * MINUTE, 5 * MINUTE, 30 * MINUTE, 120 * MINUTE];

let mock: MockService;
let api: Api;
let receiver: Receiver;

function start(options: { deliveryTimeoutMs?: number } = {}) {
  mock = createMockServiceForTesting({ now: START, allowPrivateWebhookUrls: true, ...options });
  api = createApi(mock, mock.apiKeys.create());
}

beforeEach(async () => {
  start();
  receiver = await startReceiver(500);
});
afterEach(async () => {
  await mock.deliveries.flush();
  await receiver.close();
});

/** Emits an event and waits for its first attempt. */
async function emit(n = 1) {
  const entry = emitEventForTesting(mock, EVENT, statusData(n));
  await mock.deliveries.flush();
  return entry;
}

/** Runs every pending retry: each due attempt must finish before the next is scheduled. */
async function drainRetries() {
  for (let i = 0; i < RETRY_DELAYS.length + 1; i++) {
    mock.clock.advance("3h");
    await mock.deliveries.flush();
  }
}

async function deliveriesOf(id: string): Promise<WebhookDelivery[]> {
  const page = await api.get<{ results: WebhookDelivery[] }>(
    `/v2/webhooks/${id}/deliveries?limit=100`,
  );
  return page.body.results;
}

async function verifyReceived(index: number, secret: string) {
  const delivery = receiver.received[index]!;
  const timestamp = Number(delivery.headers["x-service-timestamp"]);
  return verifyWebhook({
    payload: delivery.body,
    headers: delivery.headers,
    secret,
    now: timestamp * 1000,
  });
}

describe("retries", () => {
  it("a failing event is attempted 5 times: at once, then exactly +1, +5, +30 and +120 minutes after each failure", async () => {
    const hook = await createWebhook(api, { url: receiver.url });
    const t0 = mock.clock.now().getTime();
    const realStart = Date.now();
    const entry = await emit();
    expect(receiver.received).toHaveLength(1);

    const sentAt = [t0];
    for (const [i, delay] of RETRY_DELAYS.entries()) {
      mock.clock.advance(delay - 1);
      await mock.deliveries.flush();
      expect(receiver.received, `nothing before retry ${i + 1} is due`).toHaveLength(i + 1);
      mock.clock.advance(1);
      await mock.deliveries.flush();
      expect(receiver.received, `retry ${i + 1} at its due time`).toHaveLength(i + 2);
      sentAt.push(mock.clock.now().getTime());
    }
    expect(sentAt.map((t) => (t - t0) / MINUTE)).toEqual([0, 1, 6, 36, 156]);
    mock.clock.advance("1d");
    await mock.deliveries.flush();
    expect(receiver.received).toHaveLength(5);

    // Same body and id on every attempt; a fresh timestamp and signature that verifies.
    const first = receiver.received[0]!;
    for (const [i, delivery] of receiver.received.entries()) {
      expect(delivery.body).toBe(first.body);
      expect(delivery.headers["x-webhook-event-id"]).toBe(entry.id);
      expect(delivery.headers["x-webhook-event-type"]).toBe(EVENT);
      expect(delivery.headers["content-type"]).toBe("application/json");
      // Signed with this machine's clock, whatever the mock's says (+156 min by the last).
      const signed = Number(delivery.headers["x-service-timestamp"]) * 1000;
      expect(signed).toBeGreaterThanOrEqual(realStart - 1000);
      expect(signed).toBeLessThanOrEqual(Date.now());
      const event = await verifyReceived(i, hook.secret);
      expect(event.id).toBe(entry.id);
      // A receiver on this machine's clock takes every attempt, with no `now`.
      await expect(
        verifyWebhook({ payload: delivery.body, headers: delivery.headers, secret: hook.secret }),
      ).resolves.toMatchObject({ id: entry.id });
    }
    // The legacy v0 signature covers the body alone, so it is the same on every attempt.
    expect(new Set(receiver.received.map((d) => d.headers["x-service-signature"])).size).toBe(1);

    const records = await deliveriesOf(hook.id);
    expect(records.map((r) => r.attempt)).toEqual([5, 4, 3, 2, 1]);
    expect(records.map((r) => r.next_attempt_at)).toEqual([
      null,
      ...[156, 36, 6, 1].map((m) => new Date(t0 + m * MINUTE).toISOString()),
    ]);
    for (const record of records) {
      expect(record).toMatchObject({
        event_id: entry.id,
        status_code: 500,
        success: false,
        error: "The endpoint answered HTTP 500",
        is_test: false,
        is_redelivery: false,
      });
      expect(record.error).not.toContain("receiver body");
    }

    const webhook = await readWebhook(api, hook.id);
    const lastAt = new Date(t0 + 156 * MINUTE).toISOString();
    expect(webhook).toMatchObject({
      is_enabled: true,
      consecutive_failures: 1,
      last_failure_at: lastAt,
      last_success_at: null,
      last_failure: { at: lastAt, status_code: 500, event_type: EVENT },
    });
  });

  it("a retry that succeeds ends the attempts and resets the count", async () => {
    const hook = await createWebhook(api, { url: receiver.url });
    await emit(1);
    await drainRetries();
    expect((await readWebhook(api, hook.id)).consecutive_failures).toBe(1);

    const emittedAt = mock.clock.now().getTime();
    await emit(2);
    receiver.answer(204);
    mock.clock.advance("1m");
    await mock.deliveries.flush();
    await drainRetries();
    expect(receiver.received).toHaveLength(5 + 2);
    const webhook = await readWebhook(api, hook.id);
    expect(webhook.consecutive_failures).toBe(0);
    expect(webhook.last_success_at).toBe(new Date(emittedAt + MINUTE).toISOString());
    expect(webhook.last_failure?.status_code).toBe(500);
  });

  it("pending retries stop when the webhook is deleted, disabled or unsubscribed, and after reset()", async () => {
    const hooks = [];
    for (const name of ["deleted", "disabled", "unsubscribed"]) {
      hooks.push(await createWebhook(api, { name, url: receiver.url }));
    }
    await emit();
    expect(receiver.received).toHaveLength(3);
    await api.call("DELETE", `/v2/webhooks/${hooks[0]!.id}`);
    await api.patch(`/v2/webhooks/${hooks[1]!.id}`, { is_enabled: false });
    await api.patch(`/v2/webhooks/${hooks[2]!.id}`, {
      events: ["retrieval_request.action_required"],
    });
    await drainRetries();
    expect(receiver.received).toHaveLength(3);
    // A retry that fell due while disabled is gone for good, even after re-enabling.
    await api.patch(`/v2/webhooks/${hooks[1]!.id}`, { is_enabled: true });
    await drainRetries();
    expect(receiver.received).toHaveLength(3);

    const survivor = await createWebhook(api, { name: "survivor", url: receiver.url });
    await emit(2);
    expect(receiver.received).toHaveLength(5);
    mock.reset();
    await drainRetries();
    expect(receiver.received).toHaveLength(5);
    expect((await api.get(`/v2/webhooks/${survivor.id}`)).status).toBe(404);
  });
});

describe("auto-disable (spec, Delivery rule 6 and States)", () => {
  it("five events failing in a row disable the webhook, log webhook.disabled, and the sixth is never delivered", async () => {
    const hook = await createWebhook(api, { url: receiver.url });
    for (let n = 1; n <= 4; n++) await emit(n);
    await drainRetries();
    expect(await readWebhook(api, hook.id)).toMatchObject({
      is_enabled: true,
      consecutive_failures: 4,
    });

    await emit(5);
    await drainRetries();
    expect(receiver.received).toHaveLength(25);
    const disabled = await readWebhook(api, hook.id);
    const lastAttemptAt = disabled.last_failure_at;
    expect(disabled).toMatchObject({
      is_enabled: false,
      consecutive_failures: 5,
      auto_disabled_at: lastAttemptAt,
    });
    expect(disabled.auto_disabled_at).not.toBeNull();

    const log = eventLogForTesting(mock);
    const logged = log.filter((e) => e.type === "webhook.disabled");
    expect(logged).toHaveLength(1);
    expect(Event.parse(logged[0])).toEqual(logged[0]);
    expect(logged[0]).toMatchObject({
      object: "event",
      created_at: disabled.auto_disabled_at,
      request_id: null,
      data: {
        webhook_id: hook.id,
        consecutive_failures: 5,
        disabled_at: disabled.auto_disabled_at,
      },
    });
    expect(logged[0]!.id).toMatch(/^evt_/);

    // The sixth, while disabled: never delivered, not even after re-enabling.
    receiver.answer(200);
    const sixth = await emit(6);
    await drainRetries();
    const enabled = await api.patch<Webhook>(`/v2/webhooks/${hook.id}`, { is_enabled: true });
    expect(enabled.body).toMatchObject({
      is_enabled: true,
      consecutive_failures: 0,
      auto_disabled_at: null,
    });
    await drainRetries();
    expect(receiver.received).toHaveLength(25);
    expect(receiver.received.some((d) => d.headers["x-webhook-event-id"] === sixth.id)).toBe(false);
    expect((await deliveriesOf(hook.id)).some((d) => d.event_id === sixth.id)).toBe(false);
    // Only in the log.
    expect(eventLogForTesting(mock).some((e) => e.id === sixth.id)).toBe(true);

    // Events after re-enabling are delivered.
    const seventh = await emit(7);
    expect(receiver.received.at(-1)!.headers["x-webhook-event-id"]).toBe(seventh.id);
  });

  it("is_enabled: true on an enabled webhook keeps its failure count; only disabled to enabled resets it", async () => {
    const hook = await createWebhook(api, { url: receiver.url });
    for (let n = 1; n <= 4; n++) await emit(n);
    await drainRetries();
    const kept = await api.patch<Webhook>(`/v2/webhooks/${hook.id}`, { is_enabled: true });
    expect(kept.body).toMatchObject({ is_enabled: true, consecutive_failures: 4 });
    // The fifth failed event still disables it: the count was not wiped.
    await emit(5);
    await drainRetries();
    const disabled = await readWebhook(api, hook.id);
    expect(disabled).toMatchObject({ is_enabled: false, consecutive_failures: 5 });
    expect(disabled.auto_disabled_at).not.toBeNull();
    // PATCH {is_enabled: false} to a disabled webhook is no re-enable either.
    const still = await api.patch<Webhook>(`/v2/webhooks/${hook.id}`, { is_enabled: false });
    expect(still.body).toMatchObject({
      consecutive_failures: 5,
      auto_disabled_at: disabled.auto_disabled_at,
    });
    const enabled = await api.patch<Webhook>(`/v2/webhooks/${hook.id}`, { is_enabled: true });
    expect(enabled.body).toMatchObject({
      is_enabled: true,
      consecutive_failures: 0,
      auto_disabled_at: null,
    });
  });

  it("six events failing at one instant: the fifth's last attempt disables the webhook, and the sixth's, due right after, is not made", async () => {
    const hook = await createWebhook(api, { url: receiver.url });
    // Attempts due at the same instant are made one after another, in the order they were scheduled.
    for (let n = 1; n <= WEBHOOK_AUTO_DISABLE_AFTER + 1; n++) {
      emitEventForTesting(mock, EVENT, statusData(n));
    }
    await mock.deliveries.flush();
    await drainRetries();
    expect(receiver.received).toHaveLength(
      (WEBHOOK_AUTO_DISABLE_AFTER + 1) * WEBHOOK_MAX_ATTEMPTS - 1,
    );
    const logged = eventLogForTesting(mock).filter((e) => e.type === "webhook.disabled");
    expect(logged).toHaveLength(1);
    expect(logged[0]!.data).toMatchObject({ consecutive_failures: WEBHOOK_AUTO_DISABLE_AFTER });
    expect(await readWebhook(api, hook.id)).toMatchObject({
      is_enabled: false,
      consecutive_failures: WEBHOOK_AUTO_DISABLE_AFTER,
    });
  });

  it("a success in between resets the count, so failures must be five in a row", async () => {
    const hook = await createWebhook(api, { url: receiver.url });
    for (let n = 1; n <= 4; n++) await emit(n);
    await drainRetries();
    receiver.answer(200);
    await emit(5);
    expect((await readWebhook(api, hook.id)).consecutive_failures).toBe(0);
    receiver.answer(500);
    for (let n = 6; n <= 9; n++) await emit(n);
    await drainRetries();
    expect(await readWebhook(api, hook.id)).toMatchObject({
      is_enabled: true,
      consecutive_failures: 4,
      auto_disabled_at: null,
    });
    expect(eventLogForTesting(mock).some((e) => e.type === "webhook.disabled")).toBe(false);
  });
});

describe("test and redelivery against a real endpoint", () => {
  it("the test operation makes one attempt and leaves every health field unchanged", async () => {
    const hook = await createWebhook(api, { url: receiver.url });
    await emit();
    await drainRetries();
    const before = healthOf(await readWebhook(api, hook.id));
    expect(before.consecutive_failures).toBe(1);

    const failed = await api.post<WebhookTestResult>(`/v2/webhooks/${hook.id}/test`);
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({
      success: false,
      status_code: 500,
      error: "The endpoint answered HTTP 500",
    });
    expect(JSON.stringify(failed.body)).not.toContain("receiver body");
    mock.clock.advance("10s");
    await mock.deliveries.flush();
    receiver.answer(200);
    const passed = await api.post<WebhookTestResult>(`/v2/webhooks/${hook.id}/test`);
    expect(passed.body).toMatchObject({ success: true, status_code: 200, error: null });
    expect(healthOf(await readWebhook(api, hook.id))).toEqual(before);
    // Not retried: one request per test.
    mock.clock.advance("3h");
    await mock.deliveries.flush();
    expect(receiver.received).toHaveLength(5 + 2);
    const event = await verifyReceived(6, hook.secret);
    expect(event).toMatchObject({ type: "webhook.test", data: { webhook_id: hook.id } });
    const records = await deliveriesOf(hook.id);
    expect(records.slice(0, 2).map((r) => [r.is_test, r.success])).toEqual([
      [true, true],
      [true, false],
    ]);
  });

  it("a redelivery is one attempt: a success resets the count, a failure only sets last_failure", async () => {
    const hook = await createWebhook(api, { url: receiver.url });
    await emit();
    await drainRetries();
    const [last] = await deliveriesOf(hook.id);

    mock.clock.advance("1h");
    receiver.answer(503);
    const failed = await api.post<WebhookDelivery>(
      `/v2/webhooks/${hook.id}/deliveries/${last!.id}/redeliver`,
    );
    expect(failed.body).toMatchObject({
      success: false,
      status_code: 503,
      is_redelivery: true,
      attempt: 1,
      next_attempt_at: null,
    });
    let webhook = await readWebhook(api, hook.id);
    expect(webhook.consecutive_failures).toBe(1);
    expect(webhook.last_failure).toMatchObject({
      at: mock.clock.now().toISOString(),
      status_code: 503,
    });
    mock.clock.advance("3h");
    await mock.deliveries.flush();
    expect(receiver.received).toHaveLength(6);

    receiver.answer(200);
    const passed = await api.post<WebhookDelivery>(
      `/v2/webhooks/${hook.id}/deliveries/${last!.id}/redeliver`,
    );
    expect(passed.body).toMatchObject({
      success: true,
      status_code: 200,
      event_id: last!.event_id,
    });
    webhook = await readWebhook(api, hook.id);
    expect(webhook).toMatchObject({
      consecutive_failures: 0,
      last_success_at: mock.clock.now().toISOString(),
    });
    expect(receiver.received.at(-1)!.body).toBe(receiver.received[0]!.body);
    await verifyReceived(receiver.received.length - 1, hook.secret);
  });
});

describe("what counts as a failed attempt (spec, Delivery rule 4)", () => {
  it("a 3xx is a failure and is not followed", async () => {
    receiver.answer(302);
    const hook = await createWebhook(api, { url: receiver.url });
    const result = await api.post<WebhookTestResult>(`/v2/webhooks/${hook.id}/test`);
    expect(result.body).toMatchObject({ success: false, status_code: 302 });
    expect(result.body.error).toMatch(/redirect/i);
    await emit();
    expect((await readWebhook(api, hook.id)).last_failure).toMatchObject({
      status_code: 302,
      event_type: EVENT,
    });
    expect(receiver.received).toHaveLength(2);
  });

  it("any 2xx is a success", async () => {
    receiver.answer(202);
    const hook = await createWebhook(api, { url: receiver.url });
    await emit();
    expect((await readWebhook(api, hook.id)).last_success_at).toBe(START);
  });

  it("no answer within the timeout is a failure with no status", async () => {
    start({ deliveryTimeoutMs: 150 });
    receiver.answer("hang");
    const hook = await createWebhook(api, { url: receiver.url });
    const result = await api.post<WebhookTestResult>(`/v2/webhooks/${hook.id}/test`);
    expect(result.body).toMatchObject({
      success: false,
      status_code: null,
      error: "No response within 150 ms",
    });
    expect(result.body.duration_ms).toBeGreaterThanOrEqual(140);
    await emit();
    expect((await readWebhook(api, hook.id)).last_failure).toMatchObject({
      status_code: null,
      error: "No response within 150 ms",
    });
  });

  it("an attempt ends when the answer comes, even if someone holds an unread clone of it (as MSW 2 does)", async () => {
    // Waiting for the body's cancel would hold the attempt (and flush()) until the per-attempt
    // timeout, here an hour.
    const { fetch, copies } = cloningFetch();
    mock = createMockServiceForTesting({
      now: START,
      allowPrivateWebhookUrls: true,
      deliveryTimeoutMs: 3_600_000,
      fetch,
    });
    api = createApi(mock, mock.apiKeys.create());
    receiver.answer(200);
    const hook = await createWebhook(api, { url: receiver.url });
    await emit();
    expect(copies).toHaveLength(1);
    expect((await readWebhook(api, hook.id)).last_success_at).toBe(START);
    const result = await api.post<WebhookTestResult>(`/v2/webhooks/${hook.id}/test`);
    expect(result.body).toMatchObject({ success: true, status_code: 200 });
    expect(copies).toHaveLength(2);
  });

  it("the default per-attempt timeout is the spec's 5 seconds", () => {
    expect(contextOf(createMockService()).delivery.timeoutMs).toBe(5_000);
  });

  it("a refused connection is a failure with no status", async () => {
    const closed = await startReceiver();
    const url = closed.url;
    await closed.close();
    const hook = await createWebhook(api, { url });
    const result = await api.post<WebhookTestResult>(`/v2/webhooks/${hook.id}/test`);
    expect(result.body).toMatchObject({ success: false, status_code: null });
    expect(result.body.error).toMatch(/^Connection failed/);
  });
});
