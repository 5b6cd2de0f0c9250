/**
 * OpenTelemetry spans for API calls, against the `Tracer` the caller passes
 * in (typed structurally). One client span per call, named `<METHOD> <path
 * template>`; never a body, a query value or an id in a path. Its context
 * goes on the request through OpenTelemetry's propagation API, so whatever
 * propagator the application registered (W3C trace context, B3, baggage)
 * writes the headers. `@opentelemetry/api`, an optional peer, is loaded on
 * the first traced call: never without a `tracer`.
 */
import type * as OpenTelemetry from "@opentelemetry/api";
import type { Operation } from "../contract/operation.js";
import { MedRecordsError } from "../shared/errors.js";

/** A span attribute's value, as OpenTelemetry takes it. */
export type AttributeValue = string | number | boolean;

/** The trace and span a request continues. */
export interface SpanContextLike {
  /** 32 hex digits. */
  traceId: string;
  /** 16 hex digits. */
  spanId: string;
  /** Bit 0: sampled. */
  traceFlags: number;
  /** Vendor state, sent as `tracestate`. */
  traceState?: TraceStateLike | undefined;
}

/** An OpenTelemetry `TraceState`. */
export interface TraceStateLike {
  /** The `tracestate` header value. */
  serialize(): string;
}

/** The part of an OpenTelemetry `Span` the client uses. */
export interface SpanLike {
  /** Sets `http.response.status_code`, `medrecords.request_id`, `error.type`. */
  setAttribute(key: string, value: AttributeValue): unknown;
  /** Adds a `retry` event. */
  addEvent(name: string, attributes?: Record<string, AttributeValue>): unknown;
  /** Records a failure: the error's class, status and code, never its message. */
  recordException(exception: { name: string; message: string }): void;
  /** Marks a failed call (code 2, ERROR). */
  setStatus(status: { code: number; message?: string }): unknown;
  /** The ids the propagator puts on the request. */
  spanContext(): SpanContextLike;
  /** Ends the span once the call resolved or failed. */
  end(): void;
}

/**
 * The part of an OpenTelemetry `Tracer` (from `@opentelemetry/api`) the
 * client uses: `trace.getTracer("my-app")` fits.
 */
export interface TracerLike {
  /** Starts the call's span (kind CLIENT), a child of the active context's span. */
  startSpan(
    name: string,
    options?: { kind?: number; attributes?: Record<string, AttributeValue> },
  ): SpanLike;
}

// Values of @opentelemetry/api's SpanKind.CLIENT and SpanStatusCode.ERROR.
const SPAN_KIND_CLIENT = 2;
const STATUS_ERROR = 2;

/** A started call span, and what the client tells it. */
export interface CallSpan {
  /** The trace context headers for the API request, as the registered propagator writes them. */
  readonly headers: Record<string, string>;
  retry(attempt: number, status: number | undefined): void;
  succeed(status: number, requestId: string | undefined): void;
  fail(error: unknown): void;
}

const OPENTELEMETRY_API = "@opentelemetry/api";
let api: Promise<typeof OpenTelemetry> | undefined;

/** `@opentelemetry/api`, imported once, on the first traced call. */
export function openTelemetry(): Promise<typeof OpenTelemetry> {
  // A specifier bundlers leave alone: an application without the package must still build.
  api ??= (
    import(/* webpackIgnore: true */ /* @vite-ignore */ OPENTELEMETRY_API) as Promise<
      typeof OpenTelemetry
    >
  ).catch((cause: unknown) => {
    api = undefined;
    throw new MedRecordsError(
      "A `tracer` needs @opentelemetry/api (an optional peer dependency): install it, as the tracer's own package does.",
      { cause },
    );
  });
  return api;
}

export function startCallSpan(
  otel: typeof OpenTelemetry,
  tracer: TracerLike,
  op: Operation,
  baseUrl: URL,
): CallSpan {
  const attributes: Record<string, AttributeValue> = {
    "http.request.method": op.method,
    "url.template": op.path,
    "server.address": baseUrl.hostname,
  };
  // URL drops the scheme's default port, so a port here is a non-default one.
  if (baseUrl.port !== "") attributes["server.port"] = Number(baseUrl.port);
  const span = tracer.startSpan(`${op.method} ${op.path}`, { kind: SPAN_KIND_CLIENT, attributes });
  const headers: Record<string, string> = {};
  const active = otel.trace.setSpan(otel.context.active(), span as unknown as OpenTelemetry.Span);
  otel.propagation.inject(active, headers);
  const answered = (status: number | undefined, requestId: string | undefined) => {
    if (status !== undefined) span.setAttribute("http.response.status_code", status);
    if (requestId !== undefined) span.setAttribute("medrecords.request_id", requestId);
  };
  return {
    headers,
    retry(attempt, status) {
      const event: Record<string, AttributeValue> = { "http.request.resend_count": attempt - 1 };
      if (status !== undefined) event["http.response.status_code"] = status;
      span.addEvent("retry", event);
    },
    succeed(status, requestId) {
      answered(status, requestId);
      span.end();
    },
    fail(error) {
      const e = error as { name?: unknown; status?: unknown; code?: unknown; requestId?: unknown };
      const name = typeof e?.name === "string" ? e.name : "Error";
      const status = typeof e?.status === "number" ? e.status : undefined;
      const code = typeof e?.code === "string" ? e.code : undefined;
      answered(status, typeof e?.requestId === "string" ? e.requestId : undefined);
      span.setAttribute("error.type", code ?? name);
      // The class, status and code only: a message can quote an id or a field's value.
      const message = [name, status, code].filter((part) => part !== undefined).join(" ");
      span.recordException({ name, message });
      span.setStatus({ code: STATUS_ERROR, message });
      span.end();
    },
  };
}
