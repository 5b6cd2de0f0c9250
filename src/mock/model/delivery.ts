/**
 * The delivery engine (spec, Delivery; docs/spec-decisions.md, "Webhook delivery"): signs each attempt
 * with the webhook secret and the mock clock's time, POSTs it with a
 * WEBHOOK_DELIVERY_TIMEOUT_MS timeout and no redirects, records it, retries on
 * the mock clock after each of WEBHOOK_RETRY_DELAYS_MS, and keeps the failure
 * accounting that disables a webhook after WEBHOOK_AUTO_DISABLE_AFTER failed
 * events in a row.
 *
 * Attempts run on the real event loop (a real receiver answers in real time)
 * while retries wait on the mock clock, so tests call `deliveries.flush()`
 * before advancing the clock: a retry is scheduled only once its failed
 * attempt has finished.
 */
import { causeCode } from "../../internal/cause-code.js";
import { discardBody } from "../../internal/discard-body.js";
import {
  WEBHOOK_AUTO_DISABLE_AFTER,
  WEBHOOK_DELIVERY_TIMEOUT_MS,
  WEBHOOK_RETRY_DELAYS_MS,
  type WebhookDelivery,
} from "../../schemas/webhooks.js";
import { signWebhook } from "../../webhooks/sign.js";
import type { DeliveryFaults } from "../delivery-faults.js";
import {
  checkedLookup,
  HostRefusedError,
  nodeHttpModules,
  pinnedFetch,
} from "./delivery-transport.js";
import { appendEvent, type EventLogEntry } from "./event-log.js";
import { MapListIndex } from "./list-index.js";
import { type MockState, type ModelContext, nextSequence, nowMs, type Stored } from "./state.js";
import { localhostReason, nonPublicHostReason, webhookHost } from "./webhook-urls.js";
import type { StoredWebhook } from "./webhooks.js";

/** `fetch` POSTs for real (MSW or a live receiver gets it); `inbox` only records the request. */
export type DeliveryMode = "fetch" | "inbox";

/** A request the engine would have POSTed, as recorded in `inbox` mode. */
export interface InboxDelivery {
  /** The webhook's URL. */
  url: string;
  /** Lower-case names: the signature headers, event id and type, `content-type`. */
  headers: Record<string, string>;
  /** The raw body, byte for byte what was signed. */
  body: string;
  /** The webhook it was for. */
  webhookId: string;
  /** The body's `id`. */
  eventId: string;
  /** 1 to 5 within the event's attempts; 1 for a test or a redelivery. */
  attempt: number;
}

/**
 * A Fetch-style webhook handler (what `createWebhookHandler` returns) that
 * takes every delivery in-process, whatever the webhook's URL.
 */
export type DeliveryTarget = (request: Request) => Response | Promise<Response>;

/** One delivery attempt that did not get a 2xx, as `deliveries.flush()` reports it (never a body). */
export interface FailedDeliveryAttempt {
  /** The webhook the attempt was sent to. */
  webhook_id: string;
  /** The event it carried (the body's `id`). */
  event_id: string;
  /** That event's `type`. */
  event_type: string;
  /** The receiver's HTTP status; null when no response came. */
  status_code: number | null;
  /**
   * Why it failed: `HTTP <status>`, `timeout`, `connection refused`,
   * `connection failed (<code>)`, `redirect not followed (HTTP <status>)`,
   * `not sent: <reason>`, or `handler threw: <message>` (`deliverTo`).
   */
  error: string;
}

/**
 * The most failures `flush()` keeps between two calls, the newest: a server
 * nobody flushes (`medrecords mock` delivering for a developer) must not
 * grow without bound.
 */
export const FLUSH_FAILURES_KEPT = 1000;

/** What `await mock.deliveries.flush()` resolves to: the attempts finished since the previous flush. */
export interface DeliveryFlushResult {
  /** Attempts finished (answered, failed or timed out), duplicates injected by `mock.faults` included. */
  attempted: number;
  /** Those answered 2xx (every attempt in `delivery: "inbox"` mode). */
  succeeded: number;
  /** Each of the others, oldest first (the newest 1000, `FLUSH_FAILURES_KEPT`). */
  failed: FailedDeliveryAttempt[];
}

/** How deliveries travel, and what is in flight. Outlives `reset()`, like the clock. */
export interface DeliveryRuntime {
  readonly mode: DeliveryMode;
  /** The caller's transport; undefined means whatever `globalThis.fetch` is at send time. */
  readonly fetch: typeof fetch | undefined;
  /** `deliverTo`: every delivery goes in-process to this handler instead of `fetch`. */
  deliverTo: DeliveryTarget | undefined;
  /** Attempts finished since the last `flush()`, for its result. */
  finished: { attempted: number; succeeded: number; failed: FailedDeliveryAttempt[] };
  /** Per-attempt bound, 5 s as the spec says; tests of the timeout shorten it. */
  readonly timeoutMs: number;
  readonly inflight: Set<Promise<unknown>>;
  readonly inbox: InboxDelivery[];
  /**
   * Tail of the signing queue. Web Crypto may finish signatures out of order,
   * so attempts are signed one after another: they leave (and reach the
   * inbox) in the order they were made.
   */
  signing: Promise<unknown>;
  /** Injected faults (`mock.faults`): clock skew, duplicates, reordering. */
  readonly faults: DeliveryFaults | undefined;
  /**
   * Addresses the private-address rule takes for public at delivery, so the
   * project's tests can stand a loopback receiver in for a public host.
   */
  readonly publicForTesting: ReadonlySet<string>;
}

export function createDeliveryRuntime(options: {
  mode?: DeliveryMode | undefined;
  fetch?: typeof fetch | undefined;
  deliverTo?: DeliveryTarget | undefined;
  timeoutMs?: number | undefined;
  faults?: DeliveryFaults | undefined;
  publicForTesting?: readonly string[] | undefined;
}): DeliveryRuntime {
  const mode = options.mode ?? "fetch";
  if (mode !== "fetch" && mode !== "inbox") {
    throw new TypeError('createMockService: delivery must be "fetch" or "inbox".');
  }
  checkDeliveryTarget(options.deliverTo, mode, "createMockService: deliverTo");
  return {
    mode,
    fetch: options.fetch,
    deliverTo: options.deliverTo,
    finished: { attempted: 0, succeeded: 0, failed: [] },
    timeoutMs: options.timeoutMs ?? WEBHOOK_DELIVERY_TIMEOUT_MS,
    inflight: new Set(),
    inbox: [],
    signing: Promise.resolve(),
    faults: options.faults,
    publicForTesting: new Set(options.publicForTesting ?? []),
  };
}

/** Refuses a `deliverTo` that is not a function, or one beside `delivery: "inbox"` (which sends nothing). */
export function checkDeliveryTarget(
  target: unknown,
  mode: DeliveryMode,
  where: string,
): asserts target is DeliveryTarget | undefined {
  if (target === undefined) return;
  if (typeof target !== "function") {
    throw new TypeError(
      `${where} must be a Fetch-style handler, (request: Request) => Response, such as createWebhookHandler(...) returns.`,
    );
  }
  if (mode === "inbox") {
    throw new TypeError(
      `${where}: the mock records deliveries in its inbox (delivery: "inbox") and sends none; use one or the other.`,
    );
  }
}

/**
 * Awaits every attempt in flight, including any that starts meanwhile; an
 * attempt held back by `mock.faults` reordering is sent now. Resolves to
 * what the attempts finished since the previous flush came to.
 */
export async function flushDeliveries(runtime: DeliveryRuntime): Promise<DeliveryFlushResult> {
  for (;;) {
    runtime.faults?.release();
    if (runtime.inflight.size === 0) break;
    await Promise.allSettled([...runtime.inflight]);
  }
  const { finished } = runtime;
  runtime.finished = { attempted: 0, succeeded: 0, failed: [] };
  return finished;
}

/** Registers work with `flush()` and returns it unchanged. */
export function track<T>(runtime: DeliveryRuntime, work: Promise<T>): Promise<T> {
  runtime.inflight.add(work);
  const done = () => runtime.inflight.delete(work);
  work.then(done, done);
  return work;
}

/** An event as a webhook body, serialized once so that every attempt sends and signs the same bytes. */
export interface OutgoingEvent {
  readonly id: string;
  readonly type: string;
  readonly body: string;
}

export function toOutgoing(
  event: Pick<EventLogEntry, "id" | "type" | "created_at" | "data">,
): OutgoingEvent {
  const { id, type, created_at, data } = event;
  return { id, type, body: JSON.stringify({ id, type, created_at, data }) };
}

export interface AttemptOutcome {
  /** Mock-clock time of sending, also the signed timestamp. */
  sentAtMs: number;
  /** Place in list order, taken when the attempt was made (not when its answer came). */
  seq: number;
  /** The delivery's id, also taken when the attempt was made. */
  id: string;
  success: boolean;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  /** The short cause `flush()` reports for a failure (`HTTP 500`, `timeout`, ...); null on success. */
  cause: string | null;
}

type Result = Omit<AttemptOutcome, "sentAtMs" | "seq" | "id">;

/**
 * One attempt to the webhook's current URL, signed afresh. Never throws: a
 * failure is an outcome. The endpoint's body is never read or reported.
 */
export async function sendAttempt(
  ctx: ModelContext,
  webhook: StoredWebhook,
  event: OutgoingEvent,
  attempt: number,
): Promise<AttemptOutcome> {
  const runtime = ctx.delivery;
  const sentAtMs = nowMs(ctx);
  const seq = nextSequence(ctx.state);
  const id = ctx.ids.base62("delivery", "whdel_", 24);
  const url = webhook.value.url;
  const inbox = runtime.mode === "inbox";
  const turn = runtime.signing.then(async () => {
    const signed = await signWebhook({
      payload: event.body,
      secret: webhook.secret,
      timestamp: Math.floor((runtime.faults?.signedAtMs(sentAtMs) ?? sentAtMs) / 1000),
    });
    const headers = { "content-type": "application/json", ...signed };
    // Recorded inside the queue's turn, so the inbox keeps the order attempts were made in.
    if (inbox) {
      runtime.inbox.push({
        url,
        headers,
        body: event.body,
        webhookId: webhook.value.id,
        eventId: event.id,
        attempt,
      });
    }
    return headers;
  });
  runtime.signing = turn.catch(() => undefined);
  const headers = await turn;
  const result: Result = inbox
    ? { success: true, status_code: 200, error: null, duration_ms: 0, cause: null }
    : await deliver(ctx, url, headers, event.body);
  const { finished } = runtime;
  finished.attempted += 1;
  if (result.success) finished.succeeded += 1;
  else {
    if (finished.failed.length >= FLUSH_FAILURES_KEPT) finished.failed.shift();
    finished.failed.push({
      webhook_id: webhook.value.id,
      event_id: event.id,
      event_type: event.type,
      status_code: result.status_code,
      error: result.cause ?? "failed",
    });
  }
  return { sentAtMs, seq, id, ...result };
}

/** The `deliverTo` handler threw instead of answering. */
class HandlerThrew {
  constructor(readonly error: unknown) {}
}

/** A delivery handed to `deliverTo` in-process, as the network would bring it. */
function deliverInProcess(
  target: DeliveryTarget,
  url: string,
  init: RequestInit & { signal: AbortSignal },
): Promise<Response> {
  const request = new Request(url, init);
  const answer = Promise.resolve()
    .then(() => target(request))
    .catch((error: unknown) => {
      throw new HandlerThrew(error);
    });
  // The 5-second bound holds in-process too: a handler that never answers is a timeout.
  const timeout = new Promise<never>((_, reject) => {
    init.signal.addEventListener("abort", () => reject(init.signal.reason), { once: true });
  });
  return Promise.race([answer, timeout]);
}

/**
 * Sends one attempt under the private-address rule (webhook-urls.ts). A name
 * goes over the mock's own transport, which resolves it once and connects
 * only to the addresses it checked (delivery-transport.ts). A `fetch` given
 * to the mock (or a runtime without node:http) connects on its own: the name
 * is then resolved and checked just before, failing closed, but where that
 * fetch connects is its own affair. In-process (`deliverTo`) nothing is sent
 * over the network, so nothing is looked up.
 */
async function deliver(
  ctx: ModelContext,
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<Result> {
  const runtime = ctx.delivery;
  // Read at send time, so an MSW server started after the mock still intercepts.
  const globalFetch: typeof fetch = (input, init) => globalThis.fetch(input, init);
  if (ctx.allowPrivateWebhookUrls) {
    return post(runtime, url, headers, body, runtime.fetch ?? globalFetch);
  }
  const publicForTesting = runtime.publicForTesting;
  const { host, literal } = webhookHost(url);
  const ownTransport = !literal && runtime.fetch === undefined && runtime.deliverTo === undefined;
  const node = ownTransport ? await nodeHttpModules() : undefined;
  if (node === undefined) {
    const refused = await nonPublicHostReason(ctx, url, { publicForTesting });
    if (refused !== undefined) return notSent(refused);
    return post(runtime, url, headers, body, runtime.fetch ?? globalFetch);
  }
  // The connection's own lookup checks the name's addresses.
  const refused = localhostReason(host);
  if (refused !== undefined) return notSent(refused);
  const send = pinnedFetch(node, checkedLookup(ctx.lookupHost, publicForTesting));
  return post(runtime, url, headers, body, send);
}

function notSent(reason: string): Result {
  return {
    success: false,
    status_code: null,
    error: `Not sent: the host is ${reason}`,
    duration_ms: 0,
    cause: `not sent: the host is ${reason}`,
  };
}

async function post(
  runtime: DeliveryRuntime,
  url: string,
  headers: Record<string, string>,
  body: string,
  send: typeof fetch,
): Promise<Result> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const target = runtime.deliverTo;
  try {
    const init = {
      method: "POST",
      headers,
      body,
      redirect: "manual" as const,
      signal: AbortSignal.timeout(runtime.timeoutMs),
    };
    const response = await (target === undefined
      ? send(url, init)
      : deliverInProcess(target, url, init));
    const duration_ms = elapsed();
    discardBody(response);
    const { status } = response;
    if (response.type === "opaqueredirect" || (status >= 300 && status < 400)) {
      const code = status >= 300 ? status : null;
      return {
        success: false,
        status_code: code,
        error: `Redirect${code ? ` (HTTP ${code})` : ""} not followed: the URL must answer 2xx itself`,
        duration_ms,
        cause: `redirect not followed${code ? ` (HTTP ${code})` : ""}`,
      };
    }
    if (status >= 200 && status < 300) {
      return { success: true, status_code: status, error: null, duration_ms, cause: null };
    }
    return {
      success: false,
      status_code: status,
      error: `The endpoint answered HTTP ${status}`,
      duration_ms,
      cause: `HTTP ${status}`,
    };
  } catch (error) {
    if (error instanceof HostRefusedError) return notSent(error.reason);
    const timedOut = (error as { name?: unknown })?.name === "TimeoutError";
    if (error instanceof HandlerThrew) {
      const message = error.error instanceof Error ? error.error.message : String(error.error);
      return {
        success: false,
        status_code: null,
        error: "The endpoint failed without answering",
        duration_ms: elapsed(),
        cause: `handler threw: ${message}`,
      };
    }
    const code = causeCode(error);
    return {
      success: false,
      status_code: null,
      error: timedOut
        ? `No response within ${runtime.timeoutMs} ms`
        : `Connection failed${code ? ` (${code})` : ""}`,
      duration_ms: elapsed(),
      cause: timedOut
        ? "timeout"
        : code === "ECONNREFUSED"
          ? "connection refused"
          : `connection failed${code ? ` (${code})` : ""}`,
    };
  }
}

/** A delivery record together with the body, so it can be redelivered byte for byte. */
export interface StoredDelivery extends Stored<WebhookDelivery> {
  readonly event: OutgoingEvent;
}

/**
 * Every webhook's deliveries in sequence order (attempts may finish out of
 * it: they are filed by sequence), by webhook, for `GET /v2/webhooks/{id}/deliveries`.
 */
export const deliveryIndex = new MapListIndex<StoredDelivery>({
  keyOf: (stored) => stored.seq,
  bucketsOf: ({ value }) => [`webhook:${value.webhook_id}`],
});

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
  webhook: StoredWebhook,
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
  state.deliveries.set(record.id, stored);
  deliveryIndex.added(state.deliveries, stored);
  return { ...record };
}

/**
 * Health after one attempt of a real event (never a test): a success resets
 * the failure count and stamps last_success_at; a failure becomes last_failure.
 */
export function noteAttempt(
  webhook: StoredWebhook,
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
  for (const webhook of state.webhooks.values()) {
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
  const webhook = state.webhooks.get(webhookId);
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
    if (ctx.state !== state || state.webhooks.get(webhookId) !== webhook) return;
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
