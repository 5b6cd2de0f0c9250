/**
 * Delivers event log entries to a local URL as the service delivers webhooks
 * (spec, Delivery): POST, the event as the body (`id`, `type`, `created_at`,
 * `data` as delivered), the service's headers with a V1 signature made with
 * `signWebhook`, a 5-second timeout, no redirects, and retries of failed
 * attempts on the service's schedule, divided by 60 unless told otherwise
 * (docs/spec-decisions.md, "The local development loop").
 */
import { causeCode } from "../internal/cause-code.js";
import { discardBody } from "../internal/discard-body.js";
import type { AnyEvent } from "../schemas/event-list.js";
import { WebhookEvent } from "../schemas/events.js";
import { WEBHOOK_DELIVERY_TIMEOUT_MS, WEBHOOK_RETRY_DELAYS_MS } from "../schemas/webhooks.js";
import { signWebhook } from "../webhooks/sign.js";
import { terminalSafe } from "./terminal-text.js";

/** `medrecords listen` retries this many times faster than the service (WEBHOOK_RETRY_DELAYS_MS). */
export const LISTEN_RETRY_SPEEDUP = 60;

/** The retry delays of `--retry-schedule`: the service's own (`spec`) or 60 times shorter (`dev`). */
export function retryDelaysMs(schedule: "spec" | "dev"): readonly number[] {
  return schedule === "spec"
    ? WEBHOOK_RETRY_DELAYS_MS
    : WEBHOOK_RETRY_DELAYS_MS.map((ms) => ms / LISTEN_RETRY_SPEEDUP);
}

export interface ForwarderOptions {
  /** Where to POST. */
  url: string;
  /** The `whsec_...` secret that signs every attempt. */
  secret: string;
  /** Delays before attempt 2, 3, ...: one attempt more than delays. */
  retryDelaysMs: readonly number[];
  /** Writes one line; rejects when the output is gone. */
  print: (line: string) => Promise<void>;
  /** Ends attempts in flight and cancels the retries pending. */
  signal: AbortSignal;
  /** A retry's line could not be written (a closed output): the command must end. */
  onFatal: (error: unknown) => void;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** @default WEBHOOK_DELIVERY_TIMEOUT_MS, as the service */
  timeoutMs?: number;
}

interface Outgoing {
  id: string;
  type: string;
  body: string;
  /** The start of each attempt's line: the event as a person follows it (`eventSummary`). */
  summary?: string;
}

export interface Forwarder {
  /**
   * Makes the first attempt and prints its line; a failure schedules the
   * retries, which run on their own. Rejects with the signal's reason when
   * it was aborted before the attempt had an answer (the event is not
   * delivered and must not count as handled).
   */
  deliver(event: AnyEvent): Promise<void>;
  /** The events whose retries are still pending: cancelled when the signal aborts. */
  pending(): string[];
}

export function createForwarder(options: ForwarderOptions): Forwarder {
  const send = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const timeoutMs = options.timeoutMs ?? WEBHOOK_DELIVERY_TIMEOUT_MS;
  const maxAttempts = options.retryDelaysMs.length + 1;
  const retries = new Map<string, ReturnType<typeof setTimeout>>();
  const { signal } = options;
  signal.addEventListener("abort", () => {
    for (const timer of retries.values()) clearTimeout(timer);
  });

  async function attempt(event: Outgoing, n: number): Promise<void> {
    const headers = {
      "content-type": "application/json",
      ...(await signWebhook({ payload: event.body, secret: options.secret })),
    };
    const started = performance.now();
    let status: string;
    let ok = false;
    const deadline = attemptSignal(signal, timeoutMs);
    try {
      const response = await send(options.url, {
        method: "POST",
        headers,
        body: event.body,
        redirect: "manual",
        signal: deadline.signal,
      });
      discardBody(response);
      ok = response.status >= 200 && response.status < 300 && response.type !== "opaqueredirect";
      status = String(response.status === 0 ? "redirect" : response.status);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      const timedOut = (error as { name?: unknown })?.name === "TimeoutError";
      status = timedOut ? "timeout" : `error(${causeCode(error) ?? "connection failed"})`;
    } finally {
      deadline.release();
    }
    const ms = Math.round(performance.now() - started);
    const delay = ok ? undefined : options.retryDelaysMs[n - 1];
    const what = ok
      ? ""
      : delay === undefined
        ? `  attempt ${n} of ${maxAttempts}, giving up`
        : `  attempt ${n} of ${maxAttempts}, retry in ${duration(delay)}`;
    await options.print(
      // The event's fields come from the service: nothing in them reaches the terminal raw.
      `${terminalSafe(event.summary ?? `${event.type}  ${event.id}`)}  ${status}  ${ms}ms${what}\n`,
    );
    if (delay !== undefined && !signal.aborted) {
      const timer = setTimeout(() => {
        retries.delete(event.id);
        attempt(event, n + 1).catch((error) => {
          if (!signal.aborted) options.onFatal(error);
        });
      }, delay);
      retries.set(event.id, timer);
    }
  }

  return {
    async deliver(event) {
      const outgoing = { ...toOutgoing(event), summary: eventSummary(event) };
      // A retry of an event listed again (a restart) is replaced by this delivery.
      const pendingRetry = retries.get(outgoing.id);
      if (pendingRetry !== undefined) clearTimeout(pendingRetry);
      retries.delete(outgoing.id);
      await attempt(outgoing, 1);
    },
    pending: () => [...retries.keys()],
  };
}

/**
 * The signal of one attempt: aborted by `outer`, or after `timeoutMs` with a
 * `TimeoutError` (what `AbortSignal.timeout` aborts with). `release()` once
 * the attempt is over clears the timer and the listener on `outer` at once.
 * `AbortSignal.any([AbortSignal.timeout(ms), outer])` would keep each
 * attempt's signals, and what fetch hung on them, alive until the timeout
 * fired: over a backlog forwarded at hundreds of events a second, the last
 * 5 seconds of attempts (8 MiB of heap kept for 10 000 events).
 */
function attemptSignal(
  outer: AbortSignal,
  timeoutMs: number,
): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const onAbort = () => controller.abort(outer.reason);
  if (outer.aborted) onAbort();
  else outer.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(
    () =>
      controller.abort(
        new DOMException("The operation was aborted due to timeout", "TimeoutError"),
      ),
    timeoutMs,
  );
  return {
    signal: controller.signal,
    release: () => {
      clearTimeout(timer);
      outer.removeEventListener("abort", onAbort);
    },
  };
}

/**
 * An event as a person follows one retrieval request through the lines: the
 * event's time on the service's clock (a mock's, advanced or sped up, as the
 * receiver sees it; not this machine's), its type, its id cut short, the
 * retrieval request and what happened to it (the status and stage, the
 * action request, the documents).
 * @example "2026-06-15T12:00:01.084Z  retrieval_request.status_changed  rr-3f9c1a2b  ret_534ff250734b4051fb57df57  processing/provider_processing"
 */
export function eventSummary(event: AnyEvent): string {
  const data = (event.data ?? {}) as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === "string" ? value : undefined);
  const subject = text(data.retrieval_request_id) ?? text(data.webhook_id) ?? "-";
  let detail = "-";
  if (text(data.status) !== undefined) {
    detail = `${data.status}/${text(data.stage) ?? "-"}`;
  } else if (text(data.action_request_id) !== undefined) {
    detail = `action request ${data.action_request_id}`;
  } else if (Array.isArray(data.document_ids)) {
    const invoices = Array.isArray(data.invoice_ids) ? data.invoice_ids.length : 0;
    const count = data.document_ids.length;
    detail =
      invoices > 0
        ? `${invoices} invoice${invoices === 1 ? "" : "s"} ready`
        : `${count} document${count === 1 ? "" : "s"}`;
  }
  return `${event.created_at}  ${event.type}  ${shortId(event.id)}  ${subject}  ${detail}`;
}

/** An event id short enough to read: its prefix and 8 characters (`rr-3f9c1a2b`); the full id is in the body. */
export function shortId(id: string): string {
  const prefix = /^(rr-|evt_test_|evt_)/.exec(id)?.[0] ?? "";
  return id.length > prefix.length + 12 ? id.slice(0, prefix.length + 8) : id;
}

/**
 * The webhook body of a log entry: the log's `data` may carry more than the
 * delivery's (status_changed adds status, stage and action_required_reason),
 * so a known type keeps only the fields its delivery has.
 */
export function toOutgoing(event: AnyEvent): Outgoing {
  const { id, type, created_at } = event;
  const option = WebhookEvent.options.find((o) => o.shape.type.value === type);
  const data = event.data as Record<string, unknown>;
  const delivered =
    option === undefined
      ? data
      : Object.fromEntries(
          Object.keys(option.shape.data.shape)
            .filter((key) => key in data)
            .map((key) => [key, data[key]]),
        );
  return { id, type, body: JSON.stringify({ id, type, created_at, data: delivered }) };
}

function duration(ms: number): string {
  if (ms < 60_000) return `${ms / 1000}s`;
  if (ms < 3_600_000) return `${ms / 60_000}min`;
  return `${ms / 3_600_000}h`;
}
