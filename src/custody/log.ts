// The interface lives below custody (src/core/custody-log.ts) because the client's options name
// it; custody implements it, and this module keeps the name where its implementations look.
import type { CustodyCheckpoint, CustodyLog } from "../core/custody-log.js";

export type { CustodyLog } from "../core/custody-log.js";

/** A log that keeps RFC 3161 checkpoints beside it: `fileCustodyLog` and `postgresCustodyLog`. */
export interface WitnessedCustodyLog extends CustodyLog {
  /**
   * Obtains a time-stamp token for the head entry's `hash` from the log's
   * TSA (`tsa`) and stores it beside the log; rejects with a
   * `CustodyLogError` when the log is empty, does not verify, has no TSA,
   * or the TSA fails.
   */
  checkpoint(): Promise<CustodyCheckpoint>;
  checkpoints(): AsyncIterable<unknown>;
  /** Resolves once the background checkpoints started so far (`checkpointEvery`) are done or failed. */
  settled(): Promise<void>;
}
