import { MedRecordsError } from "../shared/errors.js";

/**
 * A shared store (a dedupe store, a checkpoint store, or the lease it keeps)
 * could not be reached or failed: Redis down, PostgreSQL refusing, a file
 * that cannot be written. Names the store, so that the operator knows which
 * one; the driver's error is its `cause`. The webhook handler answers 503 so
 * that the service retries the delivery, and nothing is marked done.
 */
export class StoreUnavailableError extends MedRecordsError {
  override name = "StoreUnavailableError";
  /** Which store failed, as its factory was configured: `redisDedupeStore (prefix "medrecords:dedupe:")`. */
  readonly store: string;
  /** What was being done: `claim`, `complete`, `release`, `load`, `save`, `acquire`, ... */
  readonly operation: string;

  constructor(store: string, operation: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`${store}: ${operation} failed: ${reason}`, { cause });
    this.store = store;
    this.operation = operation;
  }
}
