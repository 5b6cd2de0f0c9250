import type * as Wire from "../types/wire.js";

/**
 * Where custody entries go: `fileCustodyLog(path)`, `postgresCustodyLog({ pool })`,
 * `memoryCustodyLog()`, or your own. A log numbers and chains what it is
 * given, one append at a time across everyone appending to it, and refuses
 * to append to a chain that does not verify.
 *
 * Declared here, below src/custody, because the client's options name it;
 * src/custody implements it (and src/custody/log.ts re-exports it).
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
  append(record: Omit<Wire.CustodyEntry, "seq" | "prev_hash" | "hash">): Promise<Wire.CustodyEntry>;
  /**
   * Every entry as stored, first to last, for `verifyCustodyLog` and the
   * export. Values are read as they are, not checked: a tampered entry is
   * yielded as it is (verification judges it); an unreadable one throws a
   * `CustodyLogError` naming where.
   */
  entries(): AsyncIterable<unknown>;
}
