import type { CustodyLog } from "./custody-log.js";
import type { Drift, Recorder } from "./exchange-observer.js";
import type { LogLevel } from "./logging.js";
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
  /** Milliseconds since the attempt started (for the log line that ends a call: since the call started). */
  elapsedMs: number;
  /** Error class name when the attempt failed without a response. */
  error?: string;
}

/**
 * Where the client reports what it does: `console` by default. Any object
 * with these methods works; each receives one line (method, path template,
 * status, elapsed time, request id, attempt) and the same as structured
 * fields, except `console`, which gets the line alone. Which methods are
 * called depends on `logLevel`.
 */
export interface Logger {
  /** A call ended without an answer (connection, timeout) or with a 5xx, after its retries. */
  error?(message: string, fields: ResponseInfo): void;
  /**
   * An attempt failed and is retried; a call ended with a 429 after its
   * retries. Without `fields`: a warning about the client's configuration
   * (an invalid `MEDRECORDS_LOG`).
   */
  warn?(message: string, fields?: ResponseInfo): void;
  /** A call ended with an answer below 500 (4xx included: the call throws it). */
  info?(message: string, fields: ResponseInfo): void;
  /** An attempt is about to be sent. */
  debug?(message: string, fields: RequestInfo): void;
}

/** Options of `new MedRecords(options)`. */
export interface ClientOptions {
  /**
   * API key, sent as `Authorization: Bearer <key>` to `baseUrl`'s origin only.
   * @default process.env.MEDRECORDS_API_KEY
   */
  apiKey?: string | undefined;
  /**
   * Base address of the service; paths such as `/v2/cases` are appended to it,
   * so it does not end in `/v2` (such an address is refused, naming the one to give).
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
   * Receives the client's log lines (method, path template, status, elapsed
   * time, request id, attempt; never a body, a query value, an id or the key).
   * @default console
   * @example pino() // or any object with error, warn, info and debug methods
   */
  logger?: Logger | undefined;
  /**
   * How much is logged: `"error"` (calls that ended without an answer or with
   * a 5xx), `"warn"` (also retries, and a 429 that outlasted them), `"info"`
   * (also one line per call), `"debug"` (also a line as each attempt is sent),
   * or `"off"`. Another value is a `TypeError`.
   * @default process.env.MEDRECORDS_LOG, else "warn" (an invalid MEDRECORDS_LOG is warned about, and "warn" used)
   * @example "debug"
   */
  logLevel?: LogLevel | undefined;
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
  /**
   * A chain-of-custody log: every file the client downloads or uploads is
   * hashed (SHA-256) as it streams, and one entry is appended when the
   * stream completes (none for a stream cut short). A download whose entry
   * cannot be appended fails at the end of its stream. See docs/custody.md.
   * @default undefined (nothing recorded)
   * @example fileCustodyLog("/var/lib/firm/custody.jsonl")
   */
  custodyLog?: CustodyLog | undefined;
  /**
   * Who handles the files, as the custody log's `actor` records it: a person
   * or a service account. The key is never written: a value holding it has
   * it replaced.
   * @default the API key's redacted identity, e.g. "medrecords_sk_live_...Xy12"
   * @example "paralegal:jdoe@firm.example"
   */
  custodyActor?: string | undefined;
  /**
   * Writes `"[redacted]"` as the custody log's `file_name`. File names of
   * medical records often hold a patient's name; the log sits with the
   * records themselves, so names are kept by default (a certification names
   * the file), and the document id and hash still identify it when redacted.
   * @default false
   */
  redactFileNames?: boolean | undefined;
  /**
   * Called with each way a response departs from the spec (a field it does
   * not have, an always-present field missing, an unlisted enum value, a
   * wrong type, an unlisted status or error code), naming the operation,
   * status, request id and a JSON pointer, and never a value. The response
   * is returned as without it. The checker loads only when this is set.
   * See docs/fidelity.md.
   * @default undefined (nothing checked)
   * @example onDrift: (drift) => metrics.increment(`api_drift.${drift.operation}.${drift.kind}`)
   */
  onDrift?: ((drift: Drift) => void) | undefined;
  /**
   * Appends each exchange to a cassette (JSON lines), scrubbed: personal
   * fields replaced by fictional values, no API key, secret or presigned
   * token. `medrecords drift <cassette>` replays it against the reference
   * server. See docs/fidelity.md.
   * @default undefined (nothing recorded)
   * @example record: cassette("recordings/2026-11-28.jsonl")
   */
  record?: Recorder | undefined;
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
