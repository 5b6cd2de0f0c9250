/**
 * The port through which the fidelity tools (src/fidelity: `onDrift`, `record`)
 * see each exchange. Core loads them only when one of those options is set
 * (a dynamic import), so a client without them does no work per response.
 */
import type { Operation } from "../contract/operation.js";
import type { ClientOptions } from "./options.js";

/** One exchange with the API as it ended: the last attempt's answer, its body parsed. */
export interface ObservedExchange {
  readonly operation: Operation;
  /** The absolute address called (path parameters and query in it). */
  readonly url: string;
  /** The headers sent, without `authorization`. */
  readonly requestHeaders: Readonly<Record<string, string>>;
  /** The JSON body sent; undefined when none. */
  readonly requestBody: unknown;
  readonly status: number;
  readonly responseHeaders: Headers;
  /** The parsed JSON answer; undefined when none. */
  readonly responseBody: unknown;
  /**
   * A success's body as read, its UTF-8 bytes, kept only when recording
   * (`record`): the recorder hands them to its thread (transferred, not
   * copied), where they are decoded and parsed again. Undefined otherwise.
   */
  readonly responseBytes?: ArrayBuffer | undefined;
  readonly requestId: string | undefined;
}

/** What core hands each ended exchange to. Never throws: failures go to `warn`. */
export interface ExchangeObserver {
  observe(exchange: ObservedExchange): Promise<void>;
}

/** What the observer needs from the client. */
export interface ObserverContext {
  readonly onDrift: ClientOptions["onDrift"];
  readonly record: ClientOptions["record"];
  /** Replaces the API key in a text, should anything reflect it. */
  readonly redact: (text: string) => string;
  /** Tells the client's logger that a recording or an `onDrift` callback failed. */
  readonly warn: (message: string) => void;
}

/**
 * Makes the observer: given to `Core` by the client, which loads src/fidelity
 * only when `onDrift` or `record` is set (core never imports it).
 */
export type ObserverLoader = (context: ObserverContext) => Promise<ExchangeObserver>;

/** A place recorded exchanges go to; made by `cassette(path)`. */
export interface Recorder {
  /** The cassette file: JSON lines, appended to. */
  readonly path: string;
  /** What the recorder writes: a cassette file (the one kind there is). */
  readonly kind: "cassette";
  /**
   * Resolves once every exchange that has ended so far is written (or its
   * write failed, which the client's `logger.warn` is told): await it before
   * reading the file, or before a short-lived process exits.
   */
  flush(): Promise<void>;
}

/**
 * What departs:
 * - `unknown_field`: a field the spec does not have;
 * - `missing_field`: a field the spec marks always present is absent;
 * - `unknown_enum_value`: a value the spec's enum does not list;
 * - `wrong_type`: a value of another JSON type than the spec's;
 * - `unexpected_status`: a status the operation does not list;
 * - `unknown_error_code`: an error code the spec does not list for that status;
 * - `different_status`, `different_error_code`, `different_pagination`: replayed,
 *   the reference server answers the recorded request otherwise (`medrecords drift`).
 */
export type DriftKind =
  | "unknown_field"
  | "missing_field"
  | "unknown_enum_value"
  | "wrong_type"
  | "unexpected_status"
  | "unknown_error_code"
  | "different_status"
  | "different_error_code"
  | "different_pagination";

/** One departure from the spec, as `onDrift` receives it. */
export interface Drift {
  /** The OpenAPI operationId, e.g. `getCase`. */
  operation: string;
  /** The response's HTTP status. */
  status: number;
  /** The response's `X-Request-Id`, for the service's support; undefined when it sent none. */
  request_id: string | undefined;
  /** A JSON pointer into the response body, e.g. `/results/0/case_number`; `""` for the status. */
  pointer: string;
  /** What departs (see {@link DriftKind}). */
  kind: DriftKind;
  /** What the spec says: a type (`"string"`, `"string or null"`), the enum's values, or the listed statuses or codes. */
  expected: string;
  /**
   * A type name (`"number"`, `"object"`, `"missing"` for a missing field),
   * never a value; for a status, the status (also in `status`).
   */
  got: string;
}
