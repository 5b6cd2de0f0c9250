/**
 * How deliveries travel and what is in flight (`mock.deliveries`): the
 * transport, the inbox, the attempts `flush()` waits for and what they came
 * to. It belongs to the service, not to its state: like the clock, it
 * outlives `reset()` and `restore()`. The engine that makes the attempts is
 * model/delivery-send.ts.
 */
import { WEBHOOK_DELIVERY_TIMEOUT_MS } from "../../schemas/webhooks.js";
import type { MockClock } from "./clock.js";
import type { DeliveryFaults } from "./delivery-faults.js";
import { DeliveryQueue } from "./delivery-queue.js";

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
  /** Which of the event's attempts it was: 1 to 5 (1 for a test or a redelivery). */
  attempt: number;
  /** When it was made, on the service's clock (the delivery record's `created_at`). */
  attempted_at: string;
  /** The receiver's HTTP status; null when no response came. */
  status_code: number | null;
  /**
   * Why it failed: `HTTP <status>`, `timeout`, `connection refused`,
   * `connection failed (<code>)`, `redirect not followed (HTTP <status>)`,
   * `not sent: <reason>`, or `handler threw: <message>` (`deliverTo`).
   */
  error: string;
  /**
   * The receiver's own code for the refusal: the `error` (or `error.code`)
   * of a JSON answer when it is one short word (what createWebhookHandler
   * answers); null otherwise. No other part of the answer is kept.
   * @example "invalid_webhook"
   */
  receiver_error: string | null;
  /** The likely cause in words, and what to do about it. */
  hint: string;
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
  /** Attempts waiting for their time, made one after another in time order. */
  readonly queue: DeliveryQueue;
}

export function createDeliveryRuntime(options: {
  mode?: DeliveryMode | undefined;
  fetch?: typeof fetch | undefined;
  deliverTo?: DeliveryTarget | undefined;
  timeoutMs?: number | undefined;
  faults?: DeliveryFaults | undefined;
  publicForTesting?: readonly string[] | undefined;
  clock: Pick<MockClock, "now" | "schedule">;
}): DeliveryRuntime {
  const mode = options.mode ?? "fetch";
  if (mode !== "fetch" && mode !== "inbox") {
    throw new TypeError('createMockService: delivery must be "fetch" or "inbox".');
  }
  checkDeliveryTarget(options.deliverTo, mode, "createMockService: deliverTo");
  const inflight = new Set<Promise<unknown>>();
  const queue = new DeliveryQueue(
    options.clock,
    (work) => {
      trackIn(inflight, work);
    },
    () => options.faults?.release(),
  );
  return {
    mode,
    fetch: options.fetch,
    deliverTo: options.deliverTo,
    finished: { attempted: 0, succeeded: 0, failed: [] },
    timeoutMs: options.timeoutMs ?? WEBHOOK_DELIVERY_TIMEOUT_MS,
    inflight,
    inbox: [],
    signing: Promise.resolve(),
    faults: options.faults,
    publicForTesting: new Set(options.publicForTesting ?? []),
    queue,
  };
}

/** Counts one finished attempt for `flush()` and for every window open. */
export function countAttempt(
  runtime: DeliveryRuntime,
  failure: FailedDeliveryAttempt | undefined,
): void {
  const { finished } = runtime;
  finished.attempted += 1;
  if (failure === undefined) finished.succeeded += 1;
  else {
    if (finished.failed.length >= FLUSH_FAILURES_KEPT) finished.failed.shift();
    finished.failed.push(failure);
  }
  runtime.queue.count(failure);
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
  return trackIn(runtime.inflight, work);
}

function trackIn<T>(inflight: Set<Promise<unknown>>, work: Promise<T>): Promise<T> {
  inflight.add(work);
  const done = () => inflight.delete(work);
  work.then(done, done);
  return work;
}
