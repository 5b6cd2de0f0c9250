import { CustodyLogError } from "../core/errors.js";
import { ChainVerifier } from "./chain.js";
import { type CustodyEntry, type CustodyRecord, chainEntry } from "./entry.js";
import type { CustodyLog } from "./log.js";
import { serial } from "./serial.js";

/** A custody log in memory, with the entries open to inspection. */
export interface MemoryCustodyLog extends CustodyLog {
  /** The entries as stored, in order: a test may read them, or edit them to see verification fail. */
  readonly stored: unknown[];
}

/**
 * A custody log held in this process's memory: for tests and scripts, never
 * as evidence (it is gone when the process ends). Appends check the last
 * entry's hash first, as the durable logs do.
 *
 * @example
 * const custodyLog = memoryCustodyLog();
 * const mr = new MedRecords({ custodyLog });
 */
export function memoryCustodyLog(): MemoryCustodyLog {
  const stored: unknown[] = [];
  const description = "memoryCustodyLog";
  const queue = serial();
  return {
    description,
    stored,
    append: (record: CustodyRecord) =>
      queue(async () => {
        // The whole chain is checked: it is small, and a test may have edited any entry.
        const chain = new ChainVerifier();
        for (const value of stored) {
          const fault = await chain.next(value);
          if (fault) {
            throw new CustodyLogError(description, `refusing to append: ${fault.reason}`, {
              firstBadSeq: fault.seq,
            });
          }
        }
        const entry: CustodyEntry = await chainEntry(record, chain.seq, chain.hash);
        stored.push(entry);
        return entry;
      }),
    async *entries() {
      yield* stored;
    },
  };
}
