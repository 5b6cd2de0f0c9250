import { CustodyLogError } from "../core/errors.js";

/**
 * The errors a custody log raises, named after the log (`description`), the
 * same for every kind of log.
 */
export function custodyFailures(description: string) {
  const fail = (reason: string, extra: { cause?: unknown; firstBadSeq?: number } = {}) =>
    new CustodyLogError(description, reason, extra);
  return {
    fail,
    /** A chain that does not verify is never appended to: appending would bless it. */
    refuse: (fault: { seq: number; reason: string }) =>
      fail(`refusing to append to a log that does not verify: ${fault.reason}`, {
        firstBadSeq: fault.seq,
      }),
    /**
     * Any failure of an append, as a `CustodyLogError`. A log found broken stays
     * suspect: `onBroken` drops what was verified, so the next append verifies it all again.
     */
    appendFailure: (error: unknown, onBroken: () => void): CustodyLogError => {
      if (error instanceof CustodyLogError) {
        if (error.firstBadSeq !== null) onBroken();
        return error;
      }
      return fail(`cannot append: ${(error as Error).message ?? String(error)}`, { cause: error });
    },
  };
}
