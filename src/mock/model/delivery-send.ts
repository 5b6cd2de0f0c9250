/**
 * The delivery engine's sending (spec, Delivery; docs/spec-decisions.md, "Webhook delivery"): signs each attempt
 * with the webhook secret and this machine's clock and POSTs it with a
 * WEBHOOK_DELIVERY_TIMEOUT_MS timeout and no redirects. Its record is
 * delivery-history.ts's, the webhook's health webhook-health.ts's; which
 * webhooks get an event, its retries and the failure count that disables a
 * webhook are webhook-dispatch.ts's.
 *
 * An attempt is recorded at its instant of the service's clock (bodies keep
 * the service's time too), but signed with this machine's clock when it is
 * sent, as the service signs the deliveries of its test clocks: a receiver
 * checks the timestamp against its own clock and needs no `now` (DESIGN
 * 12.1). Attempts wait for their instant in the delivery queue
 * (../runtime/delivery-queue.ts), which makes them one after another in time order.
 * What outlives a reset (the transport, the inbox, the queue, the attempts
 * in flight) is the delivery runtime's (../runtime/delivery-runtime.ts).
 */
import { causeCode } from "../../internal/cause-code.js";
import { discardBody } from "../../internal/discard-body.js";
import {
  countAttempt,
  type DeliveryRuntime,
  type DeliveryTarget,
} from "../runtime/delivery-runtime.js";
import type { AttemptOutcome, DeliveryWebhook, OutgoingEvent } from "./delivery-attempt.js";
import { failureHint, readReceiverError } from "./delivery-failure.js";
import { signAttempt } from "./delivery-signing.js";
import {
  checkedLookup,
  HostRefusedError,
  nodeHttpModules,
  pinnedFetch,
} from "./delivery-transport.js";
import { type ModelContext, nextSequence } from "./state.js";
import { localhostReason, nonPublicHostReason, webhookHost } from "./webhook-urls.js";

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
