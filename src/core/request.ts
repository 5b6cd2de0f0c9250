import ky, { isHTTPError, isNetworkError, isTimeoutError } from "ky";
import type { z } from "zod";
import {
  EMPTY_BODY,
  type HttpMethod,
  type Operation,
  type PathParamsOf,
} from "../contract/operation.js";
import { causeCode } from "../internal/cause-code.js";
import { readEnv } from "../internal/env.js";
import { keyHint } from "../internal/key-hint.js";
import { userAgent } from "../internal/user-agent.js";
import { requestErrorCode } from "../schemas/common.js";
import { API_KEY_PREFIX } from "../shared/api-key.js";
import { APIPromise, type WithResponse } from "./api-promise.js";
import {
  ConnectionError,
  connectionFailedMessage,
  errorFromResponse,
  InvalidRequestError,
  MedRecordsError,
  NotFoundError,
  ResponseValidationError,
  TimeoutError,
  ValidationError,
  type ValidationIssue,
} from "./errors.js";
import type { ExchangeObserver, ObserverLoader } from "./exchange-observer.js";
import { RequestLog } from "./logging.js";
import { AttemptOutcomes } from "./may-have-acted.js";
import type { ClientOptions, RequestOptions, ResponseInfo } from "./options.js";
import { idKindHint, pathParamProblem } from "./path-param.js";
import { retryPolicy } from "./retry-policy.js";
import { type CallSpan, openTelemetry, startCallSpan } from "./tracing.js";
import { transportFor } from "./transport.js";

/** What a call sends beyond what its operation fixes. */
export interface CallInput<O extends Operation = Operation> {
  /** Values for the path template's `{placeholders}`; each must be a non-empty string other than `.` and `..`. */
  params?: PathParamsOf<O["path"]>;
  /** Validated with the operation's query schema before sending. */
  query?: object | undefined;
  /** Validated with the operation's body schema before sending. */
  body?: unknown;
  /** An absolute address to call instead of the path (a `next` link); must be on `baseUrl`'s origin. */
  url?: string;
}

/** What a call to `O` resolves to: its response schema's output, nothing for a 204. */
export type ResponseOf<O extends Operation> = O["response"] extends z.ZodType
  ? z.output<O["response"]>
  : undefined;

/** `POST /v2/cases/{case_id}/documents`: how logs and errors name an operation. */
export const describeOperation = (op: Operation): string => `${op.method} ${op.path}`;

/** Turns zod issues into `{ path, message }` without echoing any value. */
export function toIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.flatMap((i) => {
    const at = i.path.map(String);
    // An unknown property is named as the field it is, not as its parent.
    if (i.code === "unrecognized_keys") {
      return i.keys.map((key) => ({ path: [...at, key].join("."), message: "Unknown property" }));
    }
    return [{ path: at.length ? at.join(".") : "(body)", message: i.message }];
  });
}

/**
 * Validates `value` against `schema` the way every request does, throwing a
 * `ValidationError` (or, for a value over its length limit where the spec
 * says so, an `InvalidRequestError`) that names each bad field; nothing is sent.
 */
export function validateInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: string,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  // The same code the service answers with: some schemas refuse over-length values as invalid_request.
  throw notSent(where, requestErrorCode(schema, result.error.issues), toIssues(result.error));
}

/** The error of a request the SDK refused itself, as the service would have answered it. */
function notSent(
  where: string,
  code: ReturnType<typeof requestErrorCode>,
  issues: ValidationIssue[],
): ValidationError | InvalidRequestError {
  const init = { status: 400, code, message: describeIssues(issues), issues };
  const error =
    code === "invalid_request" ? new InvalidRequestError(init) : new ValidationError(init);
  error.message = `Invalid request to ${where} (not sent): ${error.serviceMessage}`;
  return error;
}

function describeIssues(issues: ValidationIssue[]): string {
  return issues.map((i) => `${i.path}: ${i.message}`).join("; ");
}

/**
 * The shared core under every resource: builds the address, validates,
 * authenticates, retries through ky, maps errors, and parses responses.
 * Each call is one contract operation (src/contract): method, path template,
 * schemas and retry safety come from it, so resource methods are one line
 * over `call`.
 */
export class Core {
  readonly baseUrl: string;
  readonly origin: string;
  readonly options: Readonly<
    Required<
      Pick<ClientOptions, "maxRetries" | "timeoutMs" | "maxRetryAfterMs" | "validateResponses">
    >
  > &
    Omit<ClientOptions, "apiKey">;
  /** Unbound `fetch`, also used for presigned addresses (which get no key). */
  readonly fetch: typeof fetch;
  /** Whether requests go through a proxy the environment named (transport.ts): Node's streaming upload PUT then does too. */
  readonly viaProxy: boolean;
  /** Refuses a PUT to a presigned address the transport may not reach direct (transport.ts). */
  readonly checkRoute: ((url: string) => void) | undefined;
  /** The caller's own `fetch`, if any: uploads use it instead of the Node transport. */
  readonly customFetch: typeof fetch | undefined;
  /** Sent on API requests where the runtime allows it; never to presigned storage addresses. */
  readonly userAgent: string | undefined = userAgent();
  /** The log, at the level of `logLevel` or `MEDRECORDS_LOG`. */
  readonly log: RequestLog;
  /** The key's redacted identity (`medrecords_sk_live_...Xy12`): the custody log's default actor. */
  readonly keyHint: string;
  readonly #apiKey: string;
  /** Drift checking and recording, loaded only when `onDrift` or `record` is set. */
  readonly #observer: Promise<ExchangeObserver> | undefined;

  /** `loadObserver`: how the client loads the fidelity tools when `onDrift` or `record` is set. */
  constructor(options: ClientOptions = {}, loadObserver?: ObserverLoader) {
    const apiKey = options.apiKey ?? readEnv("MEDRECORDS_API_KEY");
    if (typeof apiKey !== "string" || apiKey.trim() === "") {
      throw new MedRecordsError(
        "Missing API key: pass `apiKey` to `new MedRecords({ apiKey })` or set MEDRECORDS_API_KEY.",
      );
    }
    if (apiKey !== apiKey.trim() || /\s/.test(apiKey)) {
      throw new MedRecordsError("The API key contains whitespace: check how it was copied.");
    }
    const baseUrl = options.baseUrl ?? readEnv("MEDRECORDS_BASE_URL");
    if (!baseUrl) {
      throw new MedRecordsError(
        "Missing base URL: pass `baseUrl` to `new MedRecords({ baseUrl })` or set MEDRECORDS_BASE_URL.",
      );
    }
    if (!URL.canParse(baseUrl)) {
      throw new MedRecordsError("`baseUrl` is not an absolute URL, e.g. https://api.example.com.");
    }
    const parsed = new URL(baseUrl);
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
      throw new MedRecordsError("`baseUrl` must use http or https.");
    }
    if (/\/v2\/*$/.test(parsed.pathname)) {
      throw new MedRecordsError(
        `\`baseUrl\` ends in /v2: give the service's address without it (${parsed.origin}${parsed.pathname.replace(/\/v2\/*$/, "")}); the client adds /v2 to every path itself.`,
      );
    }
    this.#apiKey = apiKey;
    this.keyHint = keyHint(apiKey);
    this.log = new RequestLog(options.logger, options.logLevel);
    this.baseUrl = `${parsed.origin}${parsed.pathname.replace(/\/+$/, "")}`;
    this.origin = parsed.origin;
    this.customFetch = options.fetch;
    // Decided once, when the client is made, like the key and the base URL.
    const transport = transportFor({ ...options, baseUrl: this.baseUrl });
    this.fetch = transport.fetch;
    this.viaProxy = transport.viaProxy;
    this.checkRoute = transport.checkRoute;
    // The key lives only in the private field, never in an inspectable object.
    const { apiKey: _key, ...rest } = options;
    this.options = {
      ...rest,
      maxRetries: options.maxRetries ?? 2,
      timeoutMs: options.timeoutMs ?? 30_000,
      maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
      validateResponses: options.validateResponses ?? false,
    };
    this.#observer =
      (options.onDrift === undefined && options.record === undefined) || loadObserver === undefined
        ? undefined
        : loadObserver({
            onDrift: options.onDrift,
            record: options.record,
            redact: (text) => this.redact(text),
            warn: (message) => this.options.logger?.warn?.(message),
          });
    // A load that fails is reported by the first call that needs it, not as an unhandled rejection.
    this.#observer?.catch(() => undefined);
  }

  /** Every API request's headers: the call's own, then trace context, over the client's defaults; the key last. */
  #headersWith(
    own: Record<string, string> | undefined,
    trace: Record<string, string> | undefined,
  ): Record<string, string> {
    return {
      accept: "application/json",
      ...(this.userAgent === undefined ? {} : { "user-agent": this.userAgent }),
      ...this.options.defaultHeaders,
      ...own,
      ...trace,
      authorization: `Bearer ${this.#apiKey}`,
    };
  }

  /**
   * `fetch` for a presigned storage address: no key and no trace headers
   * (only what `init` holds), with `fetchOptions` merged in.
   */
  storageFetch(url: string, init: RequestInit): Promise<Response> {
    return this.fetch(url, { ...this.options.fetchOptions, ...init });
  }

  /** Replaces every occurrence of the key, in case a message ever carried it. */
  redact(text: string): string {
    return text.replaceAll(this.#apiKey, "[redacted]");
  }

  /** `X-Request-Id` with the key replaced, should a server or proxy reflect it there: it is logged. */
  #requestId(response: Response): string | undefined {
    const id = requestIdOf(response);
    return id === undefined ? undefined : this.redact(id);
  }

  /**
   * A copy of `headers` with the key replaced in every value, for an error
   * that keeps them: a server or proxy may reflect `Authorization` (or a value
   * holding the key) into its answer, and `util.inspect(error)` prints headers.
   */
  #redactHeaders(headers: Headers): Headers {
    const lowerKey = this.#apiKey.toLowerCase();
    const copy = new Headers();
    for (const [name, value] of headers) {
      // Names are lowercased; one holding the key cannot be rewritten, only left out.
      if (name.includes(lowerKey)) continue;
      copy.append(name, this.redact(value));
    }
    return copy;
  }

  /** The absolute address of a call, refusing a link to any origin but `baseUrl`'s. */
  resolveUrl(op: Operation, input: CallInput, query?: URLSearchParams): string {
    if (input.url !== undefined) {
      if (!URL.canParse(input.url, this.baseUrl)) {
        throw new MedRecordsError(
          `Refusing to follow a link that is not a URL, from ${this.origin}.`,
        );
      }
      const url = new URL(input.url, this.baseUrl);
      if (url.origin !== this.origin) {
        throw new MedRecordsError(
          `Refusing to follow a link to ${url.origin}: the API key is only sent to ${this.origin}.`,
        );
      }
      // fetch refuses such an address with a bare TypeError; the link itself is not
      // quoted, since it holds a password.
      if (url.username !== "" || url.password !== "") {
        throw new MedRecordsError(
          `Refusing to follow a link with credentials in it (user info before the host): requests to ${this.origin} carry the API key and nothing else.`,
        );
      }
      return url.href;
    }
    const params = input.params as Readonly<Record<string, unknown>> | undefined;
    const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) =>
      pathSegment(op, name, params?.[name]),
    );
    const qs = query?.toString();
    return `${this.baseUrl}${path}${qs ? `?${qs}` : ""}`;
  }

  /**
   * Calls `op`: validates the query and body with its schemas (nothing is
   * sent when they fail), retries where `op.idempotent` allows, and parses
   * the answer with its response schema when `validateResponses` is on.
   */
  call<O extends Operation>(
    op: O,
    input: CallInput<O> = {},
    options: RequestOptions = {},
  ): APIPromise<ResponseOf<O>, O["operationId"]> {
    let sent: Promise<WithResponse<unknown>>;
    try {
      sent = this.#send(op, input, options);
    } catch (error) {
      // A request refused before sending (bad input) rejects, as every failure does: never a synchronous throw.
      sent = Promise.reject(error);
    }
    return new APIPromise<ResponseOf<O>, O["operationId"]>(
      sent as Promise<WithResponse<ResponseOf<O>>>,
    );
  }

  /** Validates and addresses the call (throwing synchronously on bad input), then exchanges it. */
  #send(op: Operation, input: CallInput, options: RequestOptions): Promise<WithResponse<unknown>> {
    const bodySchema = op.body === EMPTY_BODY ? undefined : op.body;
    const body = bodySchema
      ? validateInput(bodySchema, input.body, describeOperation(op))
      : input.body;
    // A `next` link carries the query that made it; only a first call is validated.
    const query =
      op.query && input.url === undefined
        ? validateInput(op.query, input.query ?? {}, describeOperation(op))
        : input.query;
    const url = this.resolveUrl(
      op,
      input,
      query === undefined ? undefined : toSearchParams(query as Record<string, unknown>),
    );
    const { tracer } = this.options;
    const sent =
      tracer === undefined
        ? this.#exchange(op, url, input.body, body, options)
        : this.#traced(tracer, op, url, input.body, body, options);
    if (input.params === undefined) return sent;
    return sent.catch((error: unknown) => {
      // A 404 for an id of another kind (a case id where a retrieval request id goes) says so;
      // worked out only then, not on every call.
      const hint =
        error instanceof NotFoundError
          ? idKindHint(op.path, input.params as Readonly<Record<string, unknown>>)
          : undefined;
      if (hint !== undefined)
        (error as NotFoundError).message = `${(error as NotFoundError).message} ${hint}`;
      throw error;
    });
  }

  async #traced(
    tracer: NonNullable<ClientOptions["tracer"]>,
    op: Operation,
    url: string,
    given: unknown,
    body: unknown,
    options: RequestOptions,
  ): Promise<WithResponse<unknown>> {
    const span = startCallSpan(await openTelemetry(), tracer, op, new URL(this.origin));
    try {
      const result = await this.#exchange(op, url, given, body, options, span);
      span.succeed(result.response.status, result.requestId);
      return result;
    } catch (error) {
      span.fail(error);
      throw error;
    }
  }

  async #exchange(
    op: Operation,
    url: string,
    given: unknown,
    body: unknown,
    options: RequestOptions,
    span?: CallSpan,
  ): Promise<WithResponse<unknown>> {
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs;
    const deadlineMs = options.deadlineMs ?? this.options.deadlineMs;
    const attempts = new Attempts(op.method);
    attempts.keepBytes = this.options.record !== undefined;
    const started = performance.now();
    let response: Response;
    const headers = this.#headersWith(options.headers, span?.headers);
    try {
      response = await ky(url, {
        method: op.method,
        headers,
        json: given === undefined ? undefined : body,
        timeout: timeoutMs,
        totalTimeout: deadlineMs,
        signal: options.signal,
        // Never followed: a redirect would resend the body (307/308) to
        // wherever it points, and take that origin's answer for the API's.
        redirect: "manual",
        retry: retryPolicy({
          maxRetries: options.maxRetries ?? this.options.maxRetries,
          maxRetryAfterMs: this.options.maxRetryAfterMs,
          idempotent: op.idempotent,
        }),
        fetch: this.#instrumentedFetch(op, attempts, span),
      });
    } catch (error) {
      // The caller's own signal ends the call with its reason, as fetch does:
      // `AbortSignal.timeout()` aborts with a DOMException also named
      // "TimeoutError", which ky's name-based guard would take for its own.
      if (options.signal?.aborted) throw options.signal.reason;
      if (this.#observer !== undefined && isHTTPError(error)) {
        const { response: answer, data } = error;
        await this.#observe(
          { op, url, headers, body: given === undefined ? undefined : body },
          answer,
          data,
        );
      }
      const mapped = this.#mapError(error, describeOperation(op), timeoutMs, attempts.outcomes);
      const last = attempts.last;
      if (last !== undefined && mapped instanceof MedRecordsError) {
        // A timeout or deadline may end the call after an answered attempt: the line says why it ended.
        const fields =
          mapped instanceof ConnectionError
            ? { ...last, status: undefined, requestId: undefined, error: mapped.name }
            : last;
        this.log.ended(fields, Math.round(performance.now() - started));
      }
      throw mapped;
    }
    const last = attempts.last;
    if (last) this.log.ended(last, Math.round(performance.now() - started));
    // The last attempt's answer is the response ky resolved with: its id was read once already.
    const requestId = last?.requestId;
    const bytes = response === attempts.answer ? attempts.answerBytes : undefined;
    attempts.answerBytes = undefined;
    const data = await parseBody(response, attempts);
    if (this.#observer !== undefined) {
      await this.#observe(
        { op, url, headers, body: given === undefined ? undefined : body },
        response,
        data,
        bytes,
      );
    }
    if (this.options.validateResponses && op.response) {
      const result = op.response.safeParse(data);
      if (!result.success) {
        const issues = toIssues(result.error);
        throw new ResponseValidationError(
          `Response of ${describeOperation(op)} does not match the spec: ${describeIssues(issues)}`,
          issues,
        );
      }
      return { data: result.data, response, requestId };
    }
    return { data, response, requestId };
  }

  /** Hands an ended exchange to the fidelity observer (the key never in what it gets). */
  async #observe(
    sent: { op: Operation; url: string; headers: Record<string, string>; body: unknown },
    response: Response,
    data: unknown,
    bytes?: ArrayBuffer,
  ): Promise<void> {
    const { authorization: _key, ...requestHeaders } = sent.headers;
    let observer: ExchangeObserver | undefined;
    try {
      observer = await this.#observer;
    } catch {
      // The checker could not be loaded: the call is still returned as it came.
      this.options.logger?.warn?.(
        "medrecords: onDrift and record are unavailable (the fidelity module did not load).",
      );
      return;
    }
    await observer?.observe({
      operation: sent.op,
      url: sent.url,
      requestHeaders,
      requestBody: sent.body,
      status: response.status,
      responseHeaders: response.headers,
      responseBody: data,
      responseBytes: bytes,
      requestId: this.#requestId(response),
    });
  }

  /**
   * Counts attempts and reports each one without bodies, queries or headers;
   * records in `attempts` whether each may have been carried out; and drops
   * the key from any request that would leave `baseUrl`'s origin.
   */
  #instrumentedFetch(op: Operation, attempts: Attempts, span?: CallSpan): typeof fetch {
    const { hooks, fetchOptions } = this.options;
    return async (input, init) => {
      const attempt = ++attempts.count;
      if (attempt > 1) {
        // After the backoff, just before the next attempt.
        if (attempts.last) this.log.retrying(attempts.last);
        span?.retry(attempt, attempts.last?.status);
      }
      const request = input instanceof Request ? input : new Request(input, init);
      if (!sameOrigin(request.url, this.origin)) request.headers.delete("authorization");
      const info = { method: op.method, path: op.path, attempt };
      hooks?.onRequest?.(info);
      this.log.sending(info);
      const started = performance.now();
      attempts.outcomes.started();
      const report = (fields: ResponseInfo) => {
        attempts.last = fields;
        hooks?.onResponse?.(fields);
      };
      try {
        const response = await readWhole(
          await this.fetch(
            request,
            input instanceof Request ? { ...fetchOptions, ...init } : fetchOptions,
          ),
          attempts,
        );
        attempts.outcomes.answered(response.status);
        report({
          ...info,
          status: response.status,
          requestId: this.#requestId(response),
          elapsedMs: Math.round(performance.now() - started),
        });
        return response;
      } catch (error) {
        attempts.outcomes.failed(error);
        report({
          ...info,
          status: undefined,
          requestId: undefined,
          elapsedMs: Math.round(performance.now() - started),
          error: error instanceof Error ? error.name : "Error",
        });
        throw error;
      }
    };
  }

  #mapError(error: unknown, where: string, timeoutMs: number, outcomes: AttemptOutcomes): unknown {
    if (isHTTPError(error)) {
      const data = error.data as { error?: { code?: unknown; message?: unknown } } | undefined;
      const code = typeof data?.error?.code === "string" ? data.error.code : undefined;
      const { status, type } = error.response;
      const message =
        type === "opaqueredirect" || (status >= 300 && status < 400)
          ? `Redirect not followed: requests and the API key go to ${this.origin} only`
          : typeof data?.error?.message === "string"
            ? data.error.message
            : error.response.statusText || "Request failed";
      const [method, path] = where.split(" ");
      const hint = status === 401 ? keyShapeHint(this.#apiKey, message) : "";
      const headers = this.#redactHeaders(error.response.headers);
      return errorFromResponse({
        status,
        code,
        message: this.redact(message) + hint,
        requestId: headers.get("x-request-id") ?? undefined,
        headers,
        method,
        path,
        mayHaveSucceeded: outcomes.mayHaveActed,
      });
    }
    // ky's own errors are not kept as causes: their messages and stacks quote
    // the full address (identifiers, query values) and they hold the Request
    // with its Authorization header, which `util.inspect(error)` would print.
    if (isTimeoutError(error)) {
      // The SDK's own timer fired: there is no foreign error to keep.
      const timeout = new TimeoutError(`${where}: no response within ${timeoutMs} ms.`);
      timeout.mayHaveSucceeded = outcomes.mayHaveActedAfterTimeout;
      return timeout;
    }
    if (isNetworkError(error)) {
      const code = causeCode(error);
      // The transport's error under ky's wrapper: fetch's TypeError and its system error.
      const failed = new ConnectionError(connectionFailedMessage(where, this.origin, code), {
        cause: error.cause,
      });
      failed.mayHaveSucceeded = outcomes.mayHaveActed;
      return failed;
    }
    return error;
  }
}

/** The attempts of one call so far: how many, the last one's report, and whether any may have acted. */
class Attempts {
  count = 0;
  /** The last attempt's report, for the call's log lines and its request id. */
  last: ResponseInfo | undefined = undefined;
  /** The last successful response and its body, read and parsed inside the attempt (see `readWhole`), for `parseBody`. */
  answer: Response | undefined = undefined;
  answerBody: unknown = undefined;
  /** The success's bytes, kept only when `keepBytes` (a recording client: the recorder hands them to its thread). */
  answerBytes: ArrayBuffer | undefined = undefined;
  keepBytes = false;
  readonly outcomes: AttemptOutcomes;

  constructor(method: HttpMethod) {
    this.outcomes = new AttemptOutcomes(method);
  }
}

/**
 * For a 401: a sentence when the key given lacks the prefix of the service's
 * keys (a key of another service, `sk_test_...`) and the service's message
 * does not say so already; "" otherwise. Never quotes the key.
 */
function keyShapeHint(apiKey: string, message: string): string {
  if (apiKey.startsWith(API_KEY_PREFIX) || message.includes(API_KEY_PREFIX)) return "";
  return ` The API key given does not start with ${API_KEY_PREFIX}, the prefix of this service's keys: is it the key of another service?`;
}

/** One path parameter, checked (path-param.ts) and encoded. */
function pathSegment(op: Operation, name: string, value: unknown): string {
  const problem = pathParamProblem(value);
  if (problem !== undefined) throw validateError(describeOperation(op), name, problem);
  return encodeURIComponent(value as string);
}

/** A `ValidationError` naming one field, for a request the SDK refuses before sending. */
export function validateError(where: string, path: string, message: string) {
  return notSent(where, "validation_error", [{ path, message }]);
}

/** Query values as the wire wants them: booleans as `true`/`false`, nullish left out. */
export function toSearchParams(query: Record<string, unknown> | undefined): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    params.set(key, String(value));
  }
  return params;
}

/** Whether the serialized URL `url` is on `origin`. */
function sameOrigin(url: string, origin: string): boolean {
  return new URL(url).origin === origin;
}

export function requestIdOf(response: Response): string | undefined {
  return response.headers.get("x-request-id") ?? undefined;
}

/**
 * The response with its body read to the end, inside the attempt: a
 * connection reset after the status line (the body cut short) then fails the
 * attempt as a network error, retried where safe and reported as a
 * `ConnectionError`, instead of escaping later from `parseBody` as a raw
 * `TypeError: terminated`. Bodies are JSON and were read whole anyway.
 *
 * Read as text, as `response.text()` decodes (UTF-8, a leading BOM dropped,
 * bad sequences replaced), and a success's text parsed at once: the text of a
 * 64 KiB list page then dies young instead of outliving a scavenge while ky
 * finishes the call, which doubled the GC time of a long walk. A success is
 * returned as it is, its body used up: ky does not read it, and `parseBody`
 * takes the value kept in `attempts`. An error is returned with a fresh body
 * over the same text, since ky reads it for `HTTPError.data`.
 */
async function readWhole(response: Response, attempts: Attempts): Promise<Response> {
  if (response.body === null) return response;
  if (response.ok && attempts.keepBytes) {
    // Decoded as response.text() does; the bytes are handed over as they are, not copied.
    const bytes = await response.arrayBuffer();
    attempts.answer = response;
    attempts.answerBody = parseJson(utf8.decode(bytes));
    attempts.answerBytes = bytes;
    return response;
  }
  const text = await response.text();
  if (response.ok) {
    attempts.answer = response;
    attempts.answerBody = parseJson(text);
    return response;
  }
  const { status, statusText, headers } = response;
  return new Response(text, { status, statusText, headers });
}

/** UTF-8, a leading BOM dropped, bad sequences replaced: what `response.text()` does. */
const utf8 = new TextDecoder();

/** Marks a body that is not JSON; `parseBody` turns it into a `ResponseValidationError`. */
const NOT_JSON = Symbol("not JSON");

function parseJson(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

async function parseBody(response: Response, attempts: Attempts): Promise<unknown> {
  if (response.status === 204) return undefined;
  const body =
    response === attempts.answer ? attempts.answerBody : parseJson(await response.text());
  // Let go: ky's call state (which holds `attempts` through its fetch) may outlive the call.
  attempts.answer = undefined;
  attempts.answerBody = undefined;
  if (body === NOT_JSON) {
    throw new ResponseValidationError(`Response ${response.status} is not JSON.`, []);
  }
  return body;
}
