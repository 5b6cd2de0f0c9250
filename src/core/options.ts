import type { TracerLike } from "./tracing.js";

/** Structured fields of a log line or hook call. Never a body, a query string or a header. */
export interface RequestInfo {
  /** HTTP method, e.g. `GET`. */
  method: string;
  /** Path template, e.g. `/v2/cases/{case_id}`: identifiers stay out of logs. */
  path: string;
  /** Attempt number, 1 for the first. */
  attempt: number;
}

export interface ResponseInfo extends RequestInfo {
  /** HTTP status, undefined when no response arrived. */
  status: number | undefined;
  /** `X-Request-Id` of the response. */
  requestId: string | undefined;
  /** Milliseconds since the attempt started. */
  elapsedMs: number;
  /** Error class name when the attempt failed without a response. */
  error?: string;
}

/**
 * Where the client reports what it does. Any object with these methods works,
 * `console` included; each receives a short message and structured fields.
 */
export interface Logger {
  /** Each attempt answered with a status below 400. */
  debug?(message: string, fields: ResponseInfo): void;
  /** Each attempt answered 400 or above, or not at all (timeout, connection error). */
  warn?(message: string, fields: ResponseInfo): void;
}

/** Options of `new MedRecords(options)`. */
export interface ClientOptions {
  /**
   * API key, sent as `Authorization: Bearer <key>` to `baseUrl`'s origin only.
   * @default process.env.MEDRECORDS_API_KEY
   */
  apiKey?: string | undefined;
  /**
   * Base address of the service; paths such as `/v2/cases` are appended to it.
   * @default process.env.MEDRECORDS_BASE_URL
   * @example "https://api.medrecords.test"
   */
  baseUrl?: string | undefined;
  /**
   * Retries after the first attempt, for failures that are safe to repeat.
   * @default 2
   */
  maxRetries?: number;
  /**
   * Bound of each attempt, in milliseconds.
   * @default 30_000
   */
  timeoutMs?: number;
  /**
   * Bound of a whole call with its retries and backoff, in milliseconds.
   * @default undefined (no bound beyond the attempts')
   */
  deadlineMs?: number | undefined;
  /**
   * Longest `Retry-After` the client waits out by itself. A longer one fails
   * the call at once with a `RateLimitError` carrying the wait.
   * @default 60_000
   */
  maxRetryAfterMs?: number;
  /**
   * `fetch` used for every request, including presigned uploads.
   * @default globalThis.fetch
   * @example mock.fetch // the reference server, without MSW
   */
  fetch?: typeof fetch;
  /**
   * Merged into the `init` of every `fetch` the client makes: API calls,
   * downloads and uploads (an undici `dispatcher`, say). A `dispatcher` takes
   * over routing: uploads then go through `fetch` too, not node:http.
   * @default undefined
   * @example { dispatcher: new EnvHttpProxyAgent() } // from undici
   */
  fetchOptions?: (RequestInit & Record<string, unknown>) | undefined;
  /**
   * Receives one line per attempt (method, path template, status, request id,
   * attempt, elapsed time). Nothing is logged by default.
   * @example console
   */
  logger?: Logger | undefined;
  /**
   * An OpenTelemetry `Tracer` (`trace.getTracer("my-app")` from
   * `@opentelemetry/api`): one client span per call, named
   * `<METHOD> <path template>`, with `http.request.method`, `url.template`,
   * `server.address`, `server.port` (when not the default),
   * `http.response.status_code` and `medrecords.request_id`; each retry as a
   * `retry` event; failures recorded (status error, an exception event with
   * the error's class, status and code). Never a body, a query value or an
   * id. API requests carry the span's W3C `traceparent` (and `tracestate`);
   * presigned storage addresses never do.
   * @default undefined (no spans, no trace headers)
   */
  tracer?: TracerLike | undefined;
  /** Called before and after every attempt, with the same fields as the logger. */
  hooks?: {
    /** Before each attempt, retries included. */
    onRequest?: (info: RequestInfo) => void;
    /** After each attempt, whether it got an answer or not. */
    onResponse?: (info: ResponseInfo) => void;
  };
  /**
   * Parse every response strictly against the spec's schema; a mismatch
   * throws `ResponseValidationError`. Meant for test suites.
   * @default false
   */
  validateResponses?: boolean;
  /** Headers added to every API request (not to presigned addresses). */
  defaultHeaders?: Record<string, string>;
}

/** Options of a single call; they override the client's. */
export interface RequestOptions {
  /** Cancels the call, backoff waits included. */
  signal?: AbortSignal;
  /** @see ClientOptions.timeoutMs */
  timeoutMs?: number;
  /** @see ClientOptions.deadlineMs */
  deadlineMs?: number;
  /** @see ClientOptions.maxRetries */
  maxRetries?: number;
  /** Extra headers for this call. */
  headers?: Record<string, string>;
}
