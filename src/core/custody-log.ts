import type * as Wire from "../types/wire.js";

/**
 * A checkpoint of a custody log: an RFC 3161 time-stamp token over the head
 * entry's `hash`, from the time-stamping authority the firm names.
 */
export interface CustodyCheckpoint {
  /** The head entry's `seq` when the token was taken. */
  seq: number;
  /** That entry's `hash`: the token's message imprint (SHA-256). */
  hash: string;
  /** The token's time (genTime), as the TSA stated it. */
  time: Date;
  /** The TSA's reply (an RFC 3161 TimeStampResp, DER): what `openssl ts -verify -in` reads. */
  token: Uint8Array;
}

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
  append(
    record: Omit<Wire.CustodyEntry, "seq" | "prev_hash" | "hash" | "v">,
  ): Promise<Wire.CustodyEntry>;
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
