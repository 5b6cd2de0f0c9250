import { isHTTPError, isNetworkError, isTimeoutError, type RetryOptions } from "ky";
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
}

/** The retry options handed to ky for one call. */
export function retryPolicy({
  maxRetries,
  maxRetryAfterMs,
  idempotent,
}: RetryPolicyInput): RetryOptions {
  return {
    limit: maxRetries,
    // Every method the API uses; shouldRetry applies idempotency itself.
    methods: ["get", "post", "patch", "delete"],
    statusCodes: RETRY_STATUSES,
    // Retry-After is honoured on these (ky's default holds 413, never retried here).
    afterStatusCodes: [429, 503],
    maxRetryAfter: maxRetryAfterMs,
    retryOnTimeout: true,
    delay: (attempt) => 500 * 2 ** (attempt - 1),
    backoffLimit: BACKOFF_LIMIT_MS,
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
