import { CustodyLogError } from "../core/errors.js";
import { ChainVerifier } from "./chain.js";
import type { CustodyLog } from "./log.js";

/** What `verifyCustodyLog` found. */
export interface CustodyVerification {
  /** True when every entry continues the chain. */
  ok: boolean;
  /** How many entries were read (up to and including the first bad one). */
  entries: number;
  /** The `seq` at which the chain breaks (entries before it are intact); null when ok. */
  firstBadSeq: number | null;
  /** Why it breaks, in a sentence; null when ok. */
  reason: string | null;
  /**
   * `hash` of the last intact entry (null for an empty log): write it down
   * somewhere else (a ticket, an email, a timestamping service) to make later
   * rewriting of the whole chain detectable too (docs/custody.md).
   */
  head: string | null;
}

/**
 * Reads a whole custody log and checks its chain: an edited entry (its hash
 * no longer matches), a removed, inserted or moved entry (a `seq` out of
 * order, or a `prev_hash` naming another entry), or an unreadable or
 * malformed one. Resolves with the first fault rather than throwing; an
 * empty log is ok.
 *
 * @example
 * const result = await verifyCustodyLog(fileCustodyLog("custody.jsonl"));
 * if (!result.ok) throw new Error(`custody log broken at seq ${result.firstBadSeq}: ${result.reason}`);
 */
export async function verifyCustodyLog(log: CustodyLog): Promise<CustodyVerification> {
  if (typeof log?.entries !== "function") {
    throw new TypeError(
      "verifyCustodyLog: `log` must be a custody log (an object with entries()).",
    );
  }
  const chain = new ChainVerifier();
  let read = 0;
  const bad = (seq: number, reason: string): CustodyVerification => ({
    ok: false,
    entries: read,
    firstBadSeq: seq,
    reason,
    head: chain.seq === 0 ? null : chain.hash,
  });
  try {
    for await (const value of log.entries()) {
      read++;
      const fault = await chain.next(value);
      if (fault) return bad(fault.seq, fault.reason);
    }
  } catch (error) {
    // An unreadable entry (a line that is not JSON, a torn last line) breaks the chain there;
    // a log that cannot be read at all (no permission, a database down) is not a verdict.
    if (!(error instanceof CustodyLogError) || error.firstBadSeq === null) throw error;
    read++;
    return bad(chain.seq + 1, error.reason);
  }
  return {
    ok: true,
    entries: read,
    firstBadSeq: null,
    reason: null,
    head: chain.seq === 0 ? null : chain.hash,
  };
}
