import { CUSTODY_GENESIS_HASH, CustodyEntry, entryHash } from "./entry.js";

/** Why an entry breaks the chain, or undefined when it continues it. */
export type ChainFault = { seq: number; reason: string };

/**
 * Checks entries one at a time, in order, against the chain so far: each
 * must be well formed, carry the next `seq`, name the previous entry's
 * `hash` as its `prev_hash`, and carry the hash of its own canonical form.
 * The logs use it to verify what other processes appended since they last
 * looked; `verifyCustodyLog` to verify a whole log.
 */
export class ChainVerifier {
  /** `seq` of the last entry accepted; 0 before the first. */
  seq: number;
  /** `hash` of the last entry accepted; the genesis hash before the first. */
  hash: string;

  constructor(seq = 0, hash = CUSTODY_GENESIS_HASH) {
    this.seq = seq;
    this.hash = hash;
  }

  /** Accepts `value` as the next entry, or says why it is not (and then stays where it was). */
  async next(value: unknown): Promise<ChainFault | undefined> {
    const expected = this.seq + 1;
    const parsed = CustodyEntry.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.length ? issue.path.join(".") : "(entry)";
      return {
        seq: expected,
        reason: `entry ${expected} is malformed: ${field}: ${issue?.message}`,
      };
    }
    const entry = parsed.data;
    if (entry.seq !== expected) {
      return {
        seq: expected,
        reason:
          `expected seq ${expected} after seq ${this.seq}, found seq ${entry.seq}: ` +
          "an entry was removed, inserted or moved",
      };
    }
    if (entry.prev_hash !== this.hash) {
      return {
        seq: expected,
        reason:
          expected === 1
            ? "entry 1's prev_hash is not the genesis hash (64 zeros): entries before it were removed"
            : `entry ${expected}'s prev_hash is not the hash of entry ${this.seq}: an entry was removed, inserted, moved or edited`,
      };
    }
    // The hash covers the value as stored, unknown fields included.
    const computed = await entryHash(value as Record<string, unknown>);
    if (computed !== entry.hash) {
      return {
        seq: expected,
        reason: `entry ${expected}'s hash does not match its content: the entry was edited`,
      };
    }
    this.seq = entry.seq;
    this.hash = entry.hash;
    return undefined;
  }
}
