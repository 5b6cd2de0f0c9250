import { isHTTPError, isNetworkError, isTimeoutError, type RetryOptions } from "ky";
import type { HttpMethod } from "../contract/operation.js";
import { parseRetryAfter } from "./errors.js";
import { neverSent } from "./may-have-acted.js";

/** Statuses worth another attempt: the request timed out, was throttled, or the service failed. */
export const RETRY_STATUSES = [408, 429, 500, 502, 503, 504];

export interface RetryPolicyInput {
  maxRetries: number;
  maxRetryAfterMs: number;
  /**
   * Whether repeating the request is harmless. When false (creating a case,
   * answering an action request, testing a webhook), only failures where the
   * service certainly did not act are retried: 429, and a connection that
   * was never made (refused, no such host: see `neverSent`).
   */
  idempotent: boolean;
  /** The call's method: ky only retries methods in its list, which lacks POST and PATCH. */
  method: HttpMethod;
}

/** The retry options handed to ky for one call. */
export function retryPolicy({
  maxRetries,
  maxRetryAfterMs,
  idempotent,
  method,
}: RetryPolicyInput): RetryOptions {
  return {
    limit: maxRetries,
    // Every method reaches shouldRetry, which applies idempotency itself. ky's
    // own list holds GET and DELETE; POST and PATCH are named, and only then
    // (ky copies and lowercases the list on every call).
    ...(method === "POST" || method === "PATCH" ? { methods: [method.toLowerCase()] } : {}),
    // ky's default statuses and Retry-After statuses also hold 413, which
    // shouldRetry refuses: fewer keys here, since ky normalizes (copies) this
    // object twice on every call.
    maxRetryAfter: maxRetryAfterMs,
    retryOnTimeout: true,
    // Capped here rather than with `backoffLimit`: the same, one key fewer.
    delay: (attempt) => Math.min(BACKOFF_LIMIT_MS, 500 * 2 ** (attempt - 1)),
    // Full jitter keeps many clients from retrying in step after an outage.
    jitter: true,
    // Only ever vetoes: `undefined` hands the decision back to ky's defaults,
    // which are what honour Retry-After (a forced `true` would not).
    shouldRetry: ({ error }) => {
      if (isHTTPError(error)) {
        const { status, headers } = error.response;
        if (!RETRY_STATUSES.includes(status)) return false;
        const wait = parseRetryAfter(headers.get("retry-after"));
        // A wait longer than we may take is surfaced, not silently shortened.
        if (wait !== undefined && wait * 1000 > maxRetryAfterMs) return false;
        return idempotent || status === 429 ? undefined : false;
      }
      if (isTimeoutError(error)) return idempotent ? undefined : false;
      if (isNetworkError(error)) return idempotent || neverSent(error) ? undefined : false;
      return false;
    },
  };
}

/** The longest wait between two attempts, before jitter. */
const BACKOFF_LIMIT_MS = 8_000;
