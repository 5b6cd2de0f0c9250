/**
 * The delivery engine (spec, Delivery; docs/spec-decisions.md, "Webhook delivery"): signs each attempt
 * with the webhook secret and this machine's clock, POSTs it with a
 * WEBHOOK_DELIVERY_TIMEOUT_MS timeout and no redirects, records it (this
 * module owns the delivery history) and notes the webhook's health. Which
 * webhooks get an event, its retries and the failure count that disables a
 * webhook are webhook-dispatch.ts's.
 *
 * An attempt is recorded at its instant of the service's clock (bodies keep
 * the service's time too), but signed with this machine's clock when it is
 * sent, as the service signs the deliveries of its test clocks: a receiver
 * checks the timestamp against its own clock and needs no `now` (DESIGN
 * 12.1). Attempts wait for their instant in the delivery queue
 * (../delivery-queue.ts), which makes them one after another in time order.
 * What outlives a reset (the transport, the inbox, the queue, the attempts
 * in flight) is the delivery runtime's (../delivery-runtime.ts).
 */
import { causeCode } from "../../internal/cause-code.js";
import { discardBody } from "../../internal/discard-body.js";
import type { Webhook, WebhookDelivery } from "../../schemas/webhooks.js";
import {
  countAttempt,
  type DeliveryRuntime,
  type DeliveryTarget,
} from "../runtime/delivery-runtime.js";
import { failureHint, readReceiverError } from "./delivery-failure.js";
import { signAttempt } from "./delivery-signing.js";
import {
  checkedLookup,
  HostRefusedError,
  nodeHttpModules,
  pinnedFetch,
} from "./delivery-transport.js";
import type { EventLogEntry } from "./event-log.js";
import { MapListIndex } from "./list-index.js";
import {
  defineSlice,
  type MockState,
  type ModelContext,
  nextSequence,
  type Stored,
} from "./state.js";
import { localhostReason, nonPublicHostReason, webhookHost } from "./webhook-urls.js";

/**
 * A webhook as the engine sees it: its record and its signing secret. The
 * webhooks themselves are webhooks.ts's (StoredWebhook extends this).
 */
export interface DeliveryWebhook extends Stored<Webhook> {
  /** `whsec_` + 32 base62: signs every attempt. */
  readonly secret: string;
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
  /** The attempt's instant on the service's clock: its record's `created_at`. */
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
  /** The receiver's own word on a refusal (its JSON `error`, or short text); null otherwise. */
  receiverError?: string | null;
}

type Result = Omit<AttemptOutcome, "sentAtMs" | "seq" | "id">;

/**
 * One attempt to the webhook's current URL, made at `atMs` of the service's
 * clock and signed afresh with this machine's. Never throws: a failure is an
 * outcome. Of a refusal's answer, only its first bytes are read, for the
 * receiver's error code.
 */
export async function sendAttempt(
  ctx: ModelContext,
  webhook: DeliveryWebhook,
  event: OutgoingEvent,
  attempt: number,
  atMs: number,
): Promise<AttemptOutcome> {
  const runtime = ctx.delivery;
  const sentAtMs = atMs;
  const seq = nextSequence(ctx.state);
  const id = ctx.ids.base62("delivery", "whdel_", 24);
  const url = webhook.value.url;
  const inbox = runtime.mode === "inbox";
  const signed = signAttempt(runtime, webhook.secret, event, (headers) => {
    if (!inbox) return;
    const webhookId = webhook.value.id;
    runtime.inbox.push({ url, headers, body: event.body, webhookId, eventId: event.id, attempt });
  });
  const headers = signed instanceof Promise ? await signed : signed;
  const result: Result = inbox
    ? { success: true, status_code: 200, error: null, duration_ms: 0, cause: null }
    : await deliver(ctx, url, headers, event.body);
  countAttempt(
    runtime,
    result.success
      ? undefined
      : {
          webhook_id: webhook.value.id,
          event_id: event.id,
          event_type: event.type,
          attempt,
          attempted_at: new Date(sentAtMs).toISOString(),
          status_code: result.status_code,
          error: result.cause ?? "failed",
          receiver_error: result.receiverError ?? null,
          hint: failureHint(result),
        },
  );
  return { sentAtMs, seq, id, ...result };
}

/** The `deliverTo` handler threw instead of answering. */
class HandlerThrew {
  constructor(readonly error: unknown) {}
}

/**
 * A delivery handed to `deliverTo` in-process, as the network would bring it.
 * The 5-second bound holds in-process too: a handler that has not answered
 * by then is a timeout. A plain timer, cleared on the answer, keeps an
 * attempt cheap: a Request given an abort signal, or `AbortSignal.timeout`,
 * costs more than a fast handler takes, so the request carries none.
 */
function deliverInProcess(
  target: DeliveryTarget,
  url: string,
  init: RequestInit,
  timeoutMs: number,
): Promise<Response> {
  const request = new Request(url, init);
  return new Promise<Response>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new DOMException(`No answer within ${timeoutMs} ms`, "TimeoutError")),
      timeoutMs,
    );
    Promise.resolve()
      .then(() => target(request))
      .then(
        (response) => {
          clearTimeout(timer);
          resolve(response);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(new HandlerThrew(error));
        },
      );
  });
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
  if (runtime.deliverTo !== undefined) {
    // In-process: only an address or a localhost name in the URL is refused; no name is looked up.
    const refused = await nonPublicHostReason(ctx, url, { publicForTesting });
    return refused === undefined
      ? post(runtime, url, headers, body, globalFetch)
      : notSent(refused);
  }
  const { host, literal } = webhookHost(url);
  const ownTransport = !literal && runtime.fetch === undefined;
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
    const init = { method: "POST", headers, body, redirect: "manual" as const };
    const response = await (target === undefined
      ? send(url, { ...init, signal: AbortSignal.timeout(runtime.timeoutMs) })
      : deliverInProcess(target, url, init, runtime.timeoutMs));
    const duration_ms = elapsed();
    const { status } = response;
    let receiverError: string | null = null;
    if (status >= 400) receiverError = await readReceiverError(response);
    // An in-process answer holds no connection: nothing to let go of.
    else if (target === undefined) discardBody(response);
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
      // The record never carries the body (spec): the receiver's word goes to flush() and advance() only.
      error: `The endpoint answered HTTP ${status}`,
      duration_ms,
      cause: `HTTP ${status}`,
      receiverError,
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
