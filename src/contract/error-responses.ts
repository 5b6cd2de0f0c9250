/**
 * The error answers each operation can give, from its declaration: the
 * OpenAPI document writes them (src/openapi/document.ts) and the drift
 * checker (src/fidelity) holds live answers to them, so both read one rule.
 */
import { MAX_BODY_BYTES } from "../shared/request-body.js";
import { type ErrorStatus, type Operation, pathParamNames } from "./operation.js";

/** The error responses operations share: name (the OpenAPI component), status and description. */
export const SHARED_ERROR_RESPONSES: Readonly<
  Record<string, readonly [status: number, description: string]>
> = {
  BadRequest: [
    400,
    "`validation_error`: the query or the body fails validation (also malformed JSON, an unknown property, an unknown or repeated query parameter). The message names each field as `field: reason`.",
  ],
  Unauthorized: [401, "`invalid_api_key`: the key is missing, malformed or not recognized."],
  Forbidden: [
    403,
    "`insufficient_scope`: the key lacks a scope the operation needs; the message names it.",
  ],
  NotFound: [404, "`not_found`: the resource does not exist."],
  RateLimited: [
    429,
    "`rate_limited`: too many requests; wait the `Retry-After` seconds, then try again. The spec shows no general rate limit, so expect this on any operation.",
  ],
  UnsupportedMediaType: [
    415,
    "`unsupported_media_type`: the body is not sent as JSON; the message says what to send (`Content-Type: application/json`).",
  ],
  ServerError: [
    500,
    "The service failed or is unavailable (`internal_error`, `bad_gateway`, `service_unavailable`, `gateway_timeout`). Safe to retry for reads and idempotent writes.",
  ],
};

/** One error status an operation lists: its own description, or the shared component's name. */
export interface ErrorResponse {
  readonly status: number;
  /** The operation's own description; absent when the shared one applies. */
  readonly own?: string;
  /** The shared component (a key of {@link SHARED_ERROR_RESPONSES}) when there is no own description. */
  readonly shared?: string;
}

const sharedName = (status: number): string =>
  Object.keys(SHARED_ERROR_RESPONSES).find(
    (key) => SHARED_ERROR_RESPONSES[key]?.[0] === status,
  ) as string;

const payloadTooLarge = `\`payload_too_large\`: the body is larger than ${MAX_BODY_BYTES} bytes.`;

/**
 * The 4xx answers `op` lists, in the document's order; every operation may
 * also answer 5xx (the shared `ServerError`).
 */
export function errorResponsesOf(op: Operation): ErrorResponse[] {
  const statuses: number[] = [400, 401, 403];
  if (pathParamNames(op.path).length > 0 || op.errors?.[404]) statuses.push(404);
  if (op.errors?.[409]) statuses.push(409);
  // The spec shows no general rate limit, so a client must expect one on every operation.
  statuses.push(429);
  const out: ErrorResponse[] = statuses.map((status) => {
    const own = op.errors?.[status as ErrorStatus];
    return own ? { status, own } : { status, shared: sharedName(status) };
  });
  // An operation that refuses every body still reads it (to refuse it): a large or non-JSON one
  // gets 413 or 415 there too.
  if (op.body !== undefined) {
    out.push({ status: 413, own: payloadTooLarge }, { status: 415, shared: sharedName(415) });
  }
  return out;
}

/** The codes a description names: each `` `snake_case` `` word in it. */
export function codesIn(description: string): string[] {
  return [...description.matchAll(/`([a-z][a-z_]*)`/g)].map((match) => match[1] as string);
}

/** The description of an error response, own or shared. */
export function descriptionOf(response: ErrorResponse): string {
  return (
    response.own ??
    (SHARED_ERROR_RESPONSES[response.shared as string]?.[1] as string | undefined) ??
    ""
  );
}

/** The error codes of a 5xx answer, which every operation can give. */
export const SERVER_ERROR_CODES: readonly string[] = codesIn(
  SHARED_ERROR_RESPONSES.ServerError?.[1] as string,
);
