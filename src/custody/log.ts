import type { CustodyCheckpoint } from "./checkpoint.js";
import type { CustodyEntry, CustodyRecord } from "./entry.js";

/**
 * Where custody entries go: `fileCustodyLog(path)`, `postgresCustodyLog({ pool })`,
 * `memoryCustodyLog()`, or your own. A log numbers and chains what it is
 * given, one append at a time across everyone appending to it, and refuses
 * to append to a chain that does not verify.
 */
export interface CustodyLog {
  /** What the log is, for messages: `fileCustodyLog ("custody.jsonl")`. */
  readonly description: string;
  /**
   * Appends one entry after the last: `seq` one more than the last entry's,
   * `prev_hash` its `hash`, then `hash` over the whole (`chainEntry` does
   * this). Resolves once the entry is stored durably; rejects with a
   * `CustodyLogError` when the log cannot be written or does not verify.
   */
  append(record: CustodyRecord): Promise<CustodyEntry>;
  /**
   * Every entry as stored, first to last, for `verifyCustodyLog` and the
   * export: its stored text (a string) where the log stores text, so that
   * verification holds the bytes to the canonical form, else its value.
   * Read as they are, not checked: a tampered entry is yielded as it is
   * (verification judges it); an unreadable one throws a `CustodyLogError`
   * naming where.
   */
  entries(): AsyncIterable<unknown>;
  /** The log's witnessed checkpoints as stored (`{ seq, hash, time, token }`, token base64), if it keeps any. */
  checkpoints?(): AsyncIterable<unknown>;
  /** Has the log's TSA witness its head now. */
  checkpoint?(): Promise<CustodyCheckpoint>;
}

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
