import type { WebhookEvent } from "../schemas/events.js";
import {
  claimChecked,
  DEFAULT_DEDUPE_TTL_SECONDS,
  type DedupeClaim,
  type DedupeStore,
} from "../shared/dedupe-store.js";
import { StoreUnavailableError } from "../shared/store-error.js";
import {
  BodyTooLargeError,
  declaredLengthExceeds,
  maxBodyBytesOption,
  readCapped,
} from "./body-limit.js";
import { memoryDedupeStore } from "./dedupe.js";
import { WebhookVerificationError } from "./errors.js";
import type { EventOfType, HandledEventType } from "./events.js";
import { checkDeliveryHeaders, normalizeTolerance, verifyCheckedDelivery } from "./verify.js";

/** What a handler gets beside the event. */
export interface WebhookHandlerContext {
  /** The delivery request; its body has been read. */
  request: Request;
}

/** One function per event type to act on; a type without one is acknowledged and ignored. */
export type WebhookEventHandlers = {
  [T in HandledEventType]?: (
    event: EventOfType<T>,
    context: WebhookHandlerContext,
  ) => unknown | Promise<unknown>;
};

/** Where a failure happened, for {@link WebhookHandlerOptions.onError}. */
export type WebhookFailureStage = "verify" | "dedupe" | "handler" | "complete" | "release";

/** What `onError` is told beside the error. */
export interface WebhookErrorContext {
  /**
   * Where it failed: `verify`, `dedupe` (the store's claim), `handler` (your
   * function), `complete` (marking the event done, after your function
   * resolved), or `release` (of the claim, after your function failed).
   */
  stage: WebhookFailureStage;
  /**
   * The delivery request. At `verify` its body may not have been read (a
   * request refused on its headers or its size is not read); at every later
   * stage it has.
   */
  request: Request;
  /** The verified event, for every stage after `verify`. */
  event?: WebhookEvent | undefined;
}

/** Options of `createWebhookHandler(options)`. */
export interface WebhookHandlerOptions {
  /**
   * The webhook secret (the whole `whsec_...` string), or several while
   * moving to a recreated webhook.
   * @example process.env.MEDRECORDS_WEBHOOK_SECRET!
   */
  secret: string | readonly string[];
  /**
   * Functions per event type. A function that throws or rejects makes the
   * response 500 so that the service retries the event; make them idempotent,
   * since an event can be delivered again after a crash mid-way.
   * @example { "retrieval_request.documents_available": async (event) => { await sync(event.data.retrieval_request_id) } }
   */
  on: WebhookEventHandlers;
  /**
   * Where event ids being processed (a short lease) and processed (done) are
   * remembered. Share one store across instances (and with the catch-up
   * poller) so that each event is processed once overall.
   * @default memoryDedupeStore()
   */
  dedupe?: DedupeStore;
  /**
   * How long a processed id stays done (passed to `dedupe.complete`), in seconds.
   * @default DEFAULT_DEDUPE_TTL_SECONDS (a week)
   */
  dedupeTtlSeconds?: number;
  /**
   * Largest accepted clock distance of a delivery, in seconds (see `verifyWebhook`).
   * @default 300
   */
  toleranceSeconds?: number;
  /**
   * Largest body read, in bytes. A request announcing more in
   * `Content-Length`, or sending more, gets 413 `{"error":"payload_too_large"}`
   * and is read no further. The signature and timestamp headers are checked
   * first, so an unsigned or stale request is refused (400) without reading
   * its body at all. The service's deliveries are a few hundred bytes.
   * @default 1_048_576 (1 MiB)
   * @example 64 * 1024
   */
  maxBodyBytes?: number;
  /**
   * Receives every failure for the operator's logs: verification errors
   * (a `WebhookVerificationError` whose message says what to fix), dedupe
   * store errors (a `StoreUnavailableError` naming the store) and handler errors. The HTTP response never carries them.
   * @default one line per failure with console.error: stage, reason and event id (see `logErrorDetails`)
   * @example (error, { stage }) => logger.warn({ err: error, stage }, "webhook failed")
   */
  onError?: (error: unknown, context: WebhookErrorContext) => void;
  /**
   * Whether the default `onError` also prints the error itself (stack trace
   * and `cause`) after its one-line summary. Off, a test suite that sends bad
   * deliveries on purpose gets one short line each. Ignored when `onError` is given.
   * @default false
   */
  logErrorDetails?: boolean;
  /**
   * Clock for verification, in epoch milliseconds: only to check a signature
   * made at another time (a recorded delivery). Not for the reference
   * server: it signs with this machine's clock whatever its own clock says,
   * so a receiver given the mock's clock refuses its deliveries.
   * @default Date.now
   */
  now?: () => number;
}

type AnyHandler = (event: WebhookEvent, context: WebhookHandlerContext) => unknown;

const BODY_USED_MESSAGE =
  "medrecords/webhooks: the request body was already read before the webhook handler; " +
  "the signature needs the raw bytes, so pass the original Request (or `request.clone()`) " +
  "before any middleware parses it.";

/**
 * A Fetch-style webhook endpoint (Next.js route handlers, Hono, Bun, Deno,
 * Workers; `toNodeListener` adapts it to node:http and Express). Answers:
 * 405 to anything but POST; 400 `{"error":"invalid_webhook"}` when the
 * delivery fails verification (its signature and timestamp headers are
 * checked before the body is read); 413 `{"error":"payload_too_large"}` to a
 * body over `maxBodyBytes`; 200 `{"received":true}` once the handler
 * resolved, for `webhook.test` (no handler runs) and for a type without a
 * handler; 200 with `"duplicate":true` for an id already processed; 409
 * `{"error":"in_progress"}` while another delivery of the id is being
 * processed (here or on another instance sharing the store); 500 when the
 * handler fails; 503 `{"error":"store_unavailable"}` when the dedupe store
 * cannot be reached. Every answer but 2xx makes the service retry, and the
 * event is marked done only once the handler resolved.
 *
 * @example
 * export const POST = createWebhookHandler({
 *   secret: process.env.MEDRECORDS_WEBHOOK_SECRET!,
 *   on: { "retrieval_request.status_changed": (event) => refresh(event.data.retrieval_request_id) },
 * });
 */
export function createWebhookHandler(
  options: WebhookHandlerOptions,
): (request: Request) => Promise<Response> {
  const endpoint = new WebhookEndpoint(options);
  return (request) => endpoint.handle(request);
}

/** What `createWebhookHandler` returns, as an object: its options checked once, then each request. */
class WebhookEndpoint {
  readonly #secrets: readonly string[];
  readonly #on: WebhookEventHandlers;
  readonly #toleranceSeconds: number;
  readonly #maxBodyBytes: number;
  readonly #dedupe: DedupeStore;
  readonly #ttlSeconds: number;
  readonly #now: (() => number) | undefined;
  readonly #options: WebhookHandlerOptions;

  constructor(options: WebhookHandlerOptions) {
    this.#secrets = secretsOption(options.secret);
    this.#toleranceSeconds = normalizeTolerance(options.toleranceSeconds);
    this.#maxBodyBytes = maxBodyBytesOption(options.maxBodyBytes, "createWebhookHandler");
    if (typeof options.on !== "object" || options.on === null) {
      throw new TypeError("createWebhookHandler: `on` must map event types to functions");
    }
    this.#on = options.on;
    this.#dedupe = options.dedupe ?? memoryDedupeStore();
    this.#ttlSeconds = options.dedupeTtlSeconds ?? DEFAULT_DEDUPE_TTL_SECONDS;
    this.#now = options.now;
    this.#options = options;
  }

  async handle(request: Request): Promise<Response> {
    if (request.method !== "POST") {
      return json(405, { error: "method_not_allowed" }, { allow: "POST" });
    }
    if (request.bodyUsed) {
      // A middleware read the body first: a configuration error, and a 5xx
      // keeps the service retrying until it is fixed.
      this.#report(new Error(BODY_USED_MESSAGE), { stage: "verify", request });
      return json(500, { error: "webhook_handler_failed" });
    }
    const event = await this.#verify(request);
    if (event instanceof Response) return event;

    // The spec asks a receiver to answer a test with a 2xx and do nothing else.
    if (event.type === "webhook.test") return json(200, { received: true });

    const fn = Object.hasOwn(this.#on, event.type)
      ? (this.#on as Record<string, AnyHandler | undefined>)[event.type]
      : undefined;
    // Not claimed: a poller sharing the store may still want this id.
    if (typeof fn !== "function") return json(200, { received: true });
    return this.#process(fn, event, request);
  }

  /** The verified event, or the answer refusing the request. */
  async #verify(request: Request): Promise<WebhookEvent | Response> {
    try {
      // Headers first: an unsigned or stale request is refused unread, so
      // that a large one costs the receiver nothing.
      // undefined without the option: the check reads this machine's clock and knows no `now` was given.
      const checked = checkDeliveryHeaders(request.headers, this.#toleranceSeconds, this.#now?.());
      if (declaredLengthExceeds(request.headers.get("content-length"), this.#maxBodyBytes)) {
        throw new BodyTooLargeError(this.#maxBodyBytes);
      }
      const body = request.body
        ? await readCapped(request.body, this.#maxBodyBytes)
        : new Uint8Array();
      const verified = verifyCheckedDelivery(checked, body, this.#secrets);
      return verified instanceof Promise ? await verified : verified;
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        this.#report(new WebhookVerificationError("body_too_large", error.message), {
          stage: "verify",
          request,
        });
        return json(413, { error: "payload_too_large" });
      }
      this.#report(error, { stage: "verify", request });
      // Nothing about why: the detail would help a forger, not the service.
      return json(400, { error: "invalid_webhook" });
    }
  }

  /** Claims the event, runs the user's function, and marks the event done or gives it back. */
  async #process(fn: AnyHandler, event: WebhookEvent, request: Request): Promise<Response> {
    const claim = await this.#claim(event, request);
    if (claim instanceof Response) return claim;
    if (claim.state === "done") return json(200, { received: true, duplicate: true });
    // Being processed elsewhere: a 2xx now would lose the event if that
    // processing fails; a 409 makes the service retry after it is done.
    if (claim.state === "in_progress") return json(409, { error: "in_progress" });

    try {
      await fn(event, { request });
    } catch (error) {
      this.#report(error, { stage: "handler", request, event });
      try {
        await this.#dedupe.release(event.id, claim.token);
      } catch (releaseError) {
        this.#report(asStoreError(releaseError, "release"), { stage: "release", request, event });
      }
      return json(500, { error: "webhook_handler_failed" });
    }
    try {
      await this.#dedupe.complete(event.id, claim.token, this.#ttlSeconds);
    } catch (error) {
      this.#report(asStoreError(error, "complete"), { stage: "complete", request, event });
      // Not done: the service's retry processes the event again (at least
      // once), sooner when the lease can be given back.
      await this.#dedupe.release(event.id, claim.token).catch(() => undefined);
      return json(503, { error: "store_unavailable" });
    }
    return json(200, { received: true });
  }

  async #claim(event: WebhookEvent, request: Request): Promise<DedupeClaim | Response> {
    try {
      return await claimChecked(this.#dedupe, event.id);
    } catch (error) {
      if (error instanceof TypeError) {
        // A store written for the one-phase interface: a deployment error to fix, not an outage.
        this.#report(error, { stage: "dedupe", request, event });
        return json(500, { error: "webhook_handler_failed" });
      }
      this.#report(asStoreError(error, "claim"), { stage: "dedupe", request, event });
      return json(503, { error: "store_unavailable" });
    }
  }

  #report(error: unknown, context: WebhookErrorContext): void {
    try {
      if (this.#options.onError) this.#options.onError(error, context);
      else defaultOnError(error, context, this.#options.logErrorDetails === true);
    } catch {
      // A failing logger must not change what the service is told.
    }
  }
}

/** The secret option as a list; a missing secret is a deployment error, refused at start-up. */
function secretsOption(secret: string | readonly string[]): readonly string[] {
  const secrets = typeof secret === "string" ? [secret] : secret;
  if (
    !Array.isArray(secrets) ||
    secrets.length === 0 ||
    secrets.some((s) => typeof s !== "string" || s.trim() === "")
  ) {
    throw new TypeError(
      "createWebhookHandler: `secret` is empty or not a string; is the environment variable set?",
    );
  }
  return secrets;
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** A store's error as a `StoreUnavailableError`; the shipped stores throw one already. */
function asStoreError(error: unknown, operation: string): StoreUnavailableError {
  if (error instanceof StoreUnavailableError) return error;
  return new StoreUnavailableError("the webhook handler's `dedupe` store", operation, error);
}

/**
 * One line: stage, reason (a verification error's `reason`, else the error's
 * name), its message on one line, and the event id once verified. The stack
 * only on request: a refused delivery is the sender's problem, not a crash.
 */
function defaultOnError(error: unknown, context: WebhookErrorContext, detailed: boolean): void {
  const reason =
    error instanceof WebhookVerificationError
      ? error.reason
      : error instanceof Error
        ? error.name
        : typeof error;
  const message = error instanceof Error ? error.message : String(error);
  const outcome = context.stage === "verify" ? "refused" : "failed";
  const event = context.event ? ` (event ${context.event.id})` : "";
  const line = `medrecords/webhooks: delivery ${outcome} at ${context.stage}: ${reason}: ${message.replace(/\s*\n\s*/g, " ")}${event}`;
  if (detailed) console.error(line, error);
  else console.error(line);
}
