/**
 * Whether a failed call may still have been carried out by the service: the
 * `mayHaveSucceeded` of `APIError`, `ConnectionError` and `TimeoutError`
 * (docs/spec-decisions.md, "Client behaviour"). Judged per attempt, as the
 * attempts happen, and OR-ed over the attempts of one call: a write whose
 * first attempt timed out may exist even if the retry was answered 404.
 */
import type { HttpMethod } from "../contract/operation.js";
import { causeCode } from "../internal/cause-code.js";

/**
 * Error codes of a fetch that failed before any byte of the request left:
 * no connection was made (refused, no such host, no route, connect timeout)
 * or the TLS handshake refused the server. A reset (`ECONNRESET`, `EPIPE`,
 * undici's `UND_ERR_SOCKET`) may come after the request was sent, and an
 * unknown failure is assumed to, so neither is here.
 */
const NEVER_SENT = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EAI_NONAME",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
  "CERT_HAS_EXPIRED",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/** A fetch failure that certainly happened before the request was sent, so the service did not act. */
export function neverSent(error: unknown): boolean {
  const code = causeCode(error);
  return code !== undefined && NEVER_SENT.has(code);
}

/** The attempts of one call, as far as they tell whether the service may have acted. */
export class AttemptOutcomes {
  /** Reads never change anything, whatever happened to them. */
  readonly #write: boolean;
  #mayHaveActed = false;
  #inFlight = 0;

  constructor(method: HttpMethod) {
    this.#write = method !== "GET";
  }

  /** An attempt is about to be sent. */
  started(): void {
    this.#inFlight++;
  }

  /** An attempt was answered: a 5xx may come after the service acted; any other status says it did not. */
  answered(status: number): void {
    this.#inFlight--;
    if (status >= 500) this.#mayHaveActed ||= this.#write;
  }

  /** An attempt failed without an answer (a reset, an abort, a refused connection). */
  failed(error: unknown): void {
    this.#inFlight--;
    if (!neverSent(error)) this.#mayHaveActed ||= this.#write;
  }

  /** Whether any attempt so far may have been carried out. */
  get mayHaveActed(): boolean {
    return this.#mayHaveActed;
  }

  /**
   * The same after the call timed out: the attempt the timer cut short (its
   * fetch may not have settled yet) may have been carried out; a deadline
   * that struck during a backoff wait adds nothing.
   */
  get mayHaveActedAfterTimeout(): boolean {
    return this.#mayHaveActed || (this.#write && this.#inFlight > 0);
  }
}
