/**
 * Every error the SDK throws, and the one status/code switch that picks the
 * class for a failed response. Messages are built from the method, the path
 * template, the status and the service's code and message: never from a
 * request body, a query string or a header, so neither protected health
 * information nor the API key can reach a log through an error.
 */

import { MedRecordsError } from "../shared/errors.js";

export { MedRecordsError };

/** One field that failed validation. `path` is dotted, e.g. `"client_email"`. */
export interface ValidationIssue {
  /** The field, dotted for nested ones (`case.title`, `attachments.1`); `(body)` for the whole body. */
  path: string;
  /** Why it was refused, in words; never the value itself. */
  message: string;
}

/**
 * What an {@link APIError} is built from: the response's status, the spec's
 * code and the service's message. The SDK builds these itself; construct one
 * to fake an API failure in your own tests.
 */
export interface APIErrorInit {
  /** HTTP status of the response. */
  status: number;
  /** The spec's error code, e.g. `not_found`; undefined when the body had none. */
  code: string | undefined;
  /** The service's message. */
  message: string;
  /** `X-Request-Id` of the response. */
  requestId?: string | undefined;
  /** Response headers. @default new Headers() */
  headers?: Headers | undefined;
  /** HTTP method of the call; with `path`, prefixes the error message. */
  method?: string | undefined;
  /** Path template of the call, e.g. `/v2/cases/{case_id}`, never the filled-in path. */
  path?: string | undefined;
  /** See {@link APIError.mayHaveSucceeded}. @default false */
  mayHaveSucceeded?: boolean | undefined;
}

/** The service answered with a non-2xx status. */
export class APIError extends MedRecordsError {
  override name = "APIError";
  /** HTTP status of the response. */
  readonly status: number;
  /** The spec's error code, e.g. `validation_error`; undefined when the body had none. */
  readonly code: string | undefined;
  /** `X-Request-Id` of the failed response: quote it to support. */
  readonly requestId: string | undefined;
  /**
   * Response headers. In an error the SDK raised, a value that held the API
   * key (a reflected `Authorization`, say) has it replaced by `[redacted]`.
   */
  readonly headers: Headers;
  /** The service's own message, without the SDK's prefix. */
  readonly serviceMessage: string;
  /**
   * Whether the service may have carried the request out although the call
   * failed: true for a write (any method but GET) when an attempt of it was
   * answered with a 5xx, timed out, or lost its connection after the request
   * was sent, even if a later attempt was answered with a 4xx; false when the
   * service certainly did not act (every attempt answered 4xx or 429, or
   * never connected) and for every read. A create that failed with
   * `mayHaveSucceeded` may exist: look it up before creating it again, or let
   * `create(body, { reconcile: true })` do it (docs/spec-decisions.md, "Client behaviour").
   */
  readonly mayHaveSucceeded: boolean;

  constructor(init: APIErrorInit) {
    const where = init.method && init.path ? `${init.method} ${init.path}: ` : "";
    const code = init.code ? ` ${init.code}` : "";
    const rid = init.requestId ? ` (request ${init.requestId})` : "";
    super(`${where}${init.status}${code}: ${init.message}${rid}`);
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.headers = init.headers ?? new Headers();
    this.serviceMessage = init.message;
    this.mayHaveSucceeded = init.mayHaveSucceeded ?? false;
  }
}

/** 400: the request was refused as malformed or unacceptable. */
export class BadRequestError extends APIError {
  override name = "BadRequestError";
}

/**
 * 400 `validation_error`: the body or query fails the spec's rules. Also
 * thrown before sending when the SDK's own validation refuses a request; then
 * `requestId` is undefined and nothing reached the network.
 */
export class ValidationError extends BadRequestError {
  override name = "ValidationError";
  /** Each bad field with its reason (values are never echoed). */
  readonly issues: ValidationIssue[];
  constructor(init: APIErrorInit & { issues?: ValidationIssue[] }) {
    super(init);
    this.issues = init.issues ?? [];
  }
}

/**
 * 400 `invalid_request`: a webhook field value exceeds its limit. Also thrown
 * before sending when the SDK's own validation finds such a value; then
 * `requestId` is undefined and nothing reached the network.
 */
export class InvalidRequestError extends BadRequestError {
  override name = "InvalidRequestError";
  /** Each bad field with its reason, when the SDK refused the request itself. */
  readonly issues: ValidationIssue[];
  constructor(init: APIErrorInit & { issues?: ValidationIssue[] }) {
    super(init);
    this.issues = init.issues ?? [];
  }
}

/** 401 `invalid_api_key`: the key is missing or unknown. */
export class AuthenticationError extends APIError {
  override name = "AuthenticationError";
}

/** 403 `insufficient_scope`. */
export class PermissionError extends APIError {
  override name = "PermissionError";
  /** The scope the service named as missing, e.g. `cases:write`, when it named one. */
  readonly requiredScope: string | undefined;
  constructor(init: APIErrorInit) {
    super(init);
    this.requiredScope = /\b([a-z]+:(?:read|write))\b/.exec(init.message)?.[1];
  }
}

/** 404 `not_found`: the resource or route does not exist. */
export class NotFoundError extends APIError {
  override name = "NotFoundError";
}

/** 409 `conflict`, e.g. a webhook name already in use. */
export class ConflictError extends APIError {
  override name = "ConflictError";
}

/** 409 `limit_exceeded`, e.g. a 21st webhook. */
export class LimitExceededError extends ConflictError {
  override name = "LimitExceededError";
}

/**
 * 415 `unsupported_media_type`: a request body was not sent as JSON. The SDK
 * always sends `Content-Type: application/json`, so this means something
 * between it and the service changed the request (a custom `fetch`, a proxy).
 */
export class UnsupportedMediaTypeError extends APIError {
  override name = "UnsupportedMediaTypeError";
}

/** 429 `rate_limited`. */
export class RateLimitError extends APIError {
  override name = "RateLimitError";
  /** Seconds the service asked to wait (`Retry-After`), when it said. */
  readonly retryAfterSeconds: number | undefined;
  constructor(init: APIErrorInit) {
    super(init);
    this.retryAfterSeconds = parseRetryAfter(init.headers?.get("retry-after") ?? null);
  }
}

/** 5xx: the service failed. */
export class InternalServerError extends APIError {
  override name = "InternalServerError";
}

/**
 * No response: DNS, refused or reset connection, or a timeout (its subclass
 * {@link TimeoutError}). Retried where safe. `cause` holds the transport's
 * own error (fetch's `TypeError` and, under it, the system error such as
 * `ECONNREFUSED`).
 */
export class ConnectionError extends MedRecordsError {
  override name = "ConnectionError";
  /**
   * Whether the service may have carried the request out: true for a write
   * (any method but GET) whose connection failed after the request may have
   * been sent (a reset), or when an earlier attempt may have acted; false when
   * no attempt reached the service (a refused connection, a DNS failure) and
   * for every read. See {@link APIError.mayHaveSucceeded}.
   */
  mayHaveSucceeded = false;
}

/**
 * An attempt exceeded `timeoutMs`, or the call exceeded `deadlineMs`: a kind
 * of {@link ConnectionError} (no response came), so `catch` branches on
 * `ConnectionError` see timeouts too.
 *
 * The bare name `TimeoutError` is also the `name` of the `DOMException` that
 * `AbortSignal.timeout(ms)` aborts with. The SDK throws this class for its own
 * `timeoutMs` and `deadlineMs`; a `signal` you pass that aborts rejects the
 * call with that signal's reason as it is. Tell them apart with `instanceof`,
 * never with `error.name`:
 *
 * @example
 * try { await mr.cases.list({}, { signal: AbortSignal.timeout(5_000) }); }
 * catch (error) {
 *   if (error instanceof TimeoutError) { } // medrecords: timeoutMs or deadlineMs
 *   else if (error instanceof DOMException && error.name === "TimeoutError") { } // your signal
 * }
 */
export class TimeoutError extends ConnectionError {
  override name = "TimeoutError";
}

/** A response did not match the spec's schema (with `validateResponses: true`). */
export class ResponseValidationError extends MedRecordsError {
  override name = "ResponseValidationError";
  /** Each field that did not match, with the reason (values are never echoed). */
  readonly issues: ValidationIssue[];
  constructor(message: string, issues: ValidationIssue[]) {
    super(message);
    this.issues = issues;
  }
}

/** The presigned upload address refused the bytes. */
export class UploadError extends MedRecordsError {
  override name = "UploadError";
  /** HTTP status the upload address answered; undefined when the SDK refused before sending. */
  readonly status: number | undefined;
  /** The error code in the upload address's answer, when it carried one. */
  readonly code: string | undefined;
  constructor(message: string, status?: number, code?: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/**
 * The service answered a list page whose `next` (or `previous`) link leads to
 * a page already fetched in the same walk: a repeated link or cursor.
 * Following it would never end, so the walk (`for await`, `pages()`,
 * `toArray()`, the catch-up poller's run) stops with this error instead. The
 * message names neither the link nor its cursor.
 */
export class PaginationLoopError extends MedRecordsError {
  override name = "PaginationLoopError";
  /** Which link repeated. */
  readonly direction: "next" | "previous";
  constructor(direction: "next" | "previous", what = "list") {
    super(
      `The ${what}'s \`${direction}\` link repeats a page already fetched in this walk (the same cursor): following it would never end, so the walk stopped. The service (or something between it and this client) answered a looping link; retry later, and quote the request ids of the responses to support.`,
    );
    this.direction = direction;
  }
}

/** A presigned download address refused the file (`documents.content`, `retrievalRequests.documentContent`). */
export class DownloadError extends MedRecordsError {
  override name = "DownloadError";
  /** HTTP status the download address answered. */
  readonly status: number;
  /** The error code in the download address's answer, when it carried one. */
  readonly code: string | undefined;
  constructor(message: string, status: number, code?: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/**
 * A custody log (`custodyLog`) could not take an entry: it cannot be written
 * or read, or its chain does not verify (appending to it would bless the
 * break). A download that could not be logged fails with it at the end of
 * its stream, so the bytes are never handed over as if they were logged.
 */
export class CustodyLogError extends MedRecordsError {
  override name = "CustodyLogError";
  /** Which log, as its factory was configured: `fileCustodyLog ("custody.jsonl")`. */
  readonly log: string;
  /** Why, in a sentence (also the end of `message`). */
  readonly reason: string;
  /** The `seq` where the chain breaks, when that is why; null otherwise. */
  readonly firstBadSeq: number | null;
  constructor(
    log: string,
    reason: string,
    options: { cause?: unknown; firstBadSeq?: number | null } = {},
  ) {
    super(`${log}: ${reason}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.log = log;
    this.reason = reason;
    this.firstBadSeq = options.firstBadSeq ?? null;
  }
}

/** Seconds from a `Retry-After` value (delta-seconds or HTTP-date). */
export function parseRetryAfter(value: string | null, nowMs = Date.now()): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - nowMs) / 1000));
}

/** The single status/code switch: picks the error class for a failed response. */
export function errorFromResponse(init: APIErrorInit): APIError {
  const { status, code } = init;
  if (status === 400) {
    if (code === "validation_error") return new ValidationError(init);
    if (code === "invalid_request") return new InvalidRequestError(init);
    return new BadRequestError(init);
  }
  if (status === 401) return new AuthenticationError(init);
  if (status === 403) return new PermissionError(init);
  if (status === 404) return new NotFoundError(init);
  if (status === 409) {
    return code === "limit_exceeded" ? new LimitExceededError(init) : new ConflictError(init);
  }
  if (status === 415) return new UnsupportedMediaTypeError(init);
  if (status === 429) return new RateLimitError(init);
  if (status >= 500) return new InternalServerError(init);
  return new APIError(init);
}

/**
 * The message of a {@link ConnectionError}: which origin could not be
 * reached, why in words when the system said (`code`), and what to check.
 * The hosts under `medrecords.test` exist only inside tests, where MSW
 * answers for them: reaching the network for one means MSW is not
 * listening, or the client was meant to call the mock's own `fetch`.
 */
export function connectionFailedMessage(
  where: string,
  origin: string,
  code: string | undefined,
): string {
  const host = URL.canParse(origin) ? new URL(origin).hostname : origin;
  const failed = `${where}: connection to ${origin} failed${code ? ` (${code})` : ""}`;
  if (host === "medrecords.test" || host.endsWith(".medrecords.test")) {
    return `${failed}: ${host} is the reference server's test host, which only MSW answers, and MSW is not listening. Start it (setupServer(...mock.handlers).listen()) before the call, or pass \`fetch: mock.fetch\` to new MedRecords().`;
  }
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") {
    return `${failed}: the host ${host} was not found. Check \`baseUrl\` (or MEDRECORDS_BASE_URL).`;
  }
  if (code === "ECONNREFUSED") {
    return `${failed}: nothing is listening there. Check that the service is running (for a local \`medrecords mock\`, the address it printed) and \`baseUrl\` (or MEDRECORDS_BASE_URL).`;
  }
  return `${failed}.`;
}
