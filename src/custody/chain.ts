import {
  CUSTODY_ENTRY_VERSION,
  CUSTODY_GENESIS_HASH,
  CustodyEntry,
  canonicalJson,
  entryHash,
  entryText,
} from "./entry.js";

/** Why an entry breaks the chain, or undefined when it continues it. */
export type ChainFault = { seq: number; reason: string };

/**
 * Checks entries one at a time, in order, against the chain so far: each
 * must be well formed, carry the next `seq`, name the previous entry's
 * `hash` as its `prev_hash`, and carry the hash of its own canonical form;
 * an entry given as its stored text must be stored exactly as its rule
 * says (version 2: its canonical form with `hash`), and no entry may go back
 * to the rule before version 2 once one has used it. The logs use it to
 * verify what other processes appended since they last looked;
 * `verifyCustodyLog` to verify a whole log.
 */
export class ChainVerifier {
  /** `seq` of the last entry accepted; 0 before the first. */
  seq: number;
  /** `hash` of the last entry accepted; the genesis hash before the first. */
  hash: string;
  /** The `seq` of the first version 2 entry accepted, 0 before one. */
  canonicalSince: number;

  constructor(seq = 0, hash = CUSTODY_GENESIS_HASH, canonicalSince = 0) {
    this.seq = seq;
    this.hash = hash;
    this.canonicalSince = canonicalSince;
  }

  /**
   * Accepts `stored` as the next entry (its stored text, or a value for a
   * log that keeps values), or says why it is not (and then stays where it was).
   */
  async next(stored: unknown): Promise<ChainFault | undefined> {
    const expected = this.seq + 1;
    const value = typeof stored === "string" ? parseText(stored) : stored;
    if (value === undefined)
      return { seq: expected, reason: `entry ${expected} is malformed: not JSON` };
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
    const fault = this.#linkFault(entry, expected);
    if (fault !== undefined) return { seq: expected, reason: fault };
    // The hash covers the value as stored, unknown fields included.
    const computed = await entryHash(value as Record<string, unknown>);
    if (computed !== entry.hash) {
      return {
        seq: expected,
        reason: `entry ${expected}'s hash does not match its content: the entry was edited`,
      };
    }
    if (typeof stored === "string") {
      const textFault = storedTextFault(stored, value as Record<string, unknown>, expected);
      if (textFault !== undefined) return { seq: expected, reason: textFault };
    }
    this.seq = entry.seq;
    this.hash = entry.hash;
    if (entry.v === CUSTODY_ENTRY_VERSION && this.canonicalSince === 0) {
      this.canonicalSince = entry.seq;
    }
    return undefined;
  }

  /** Whether `entry` takes its place after the last one accepted. */
  #linkFault(entry: CustodyEntry, expected: number): string | undefined {
    if (entry.seq !== expected) {
      return (
        `expected seq ${expected} after seq ${this.seq}, found seq ${entry.seq}: ` +
        "an entry was removed, inserted or moved"
      );
    }
    if (entry.prev_hash !== this.hash) {
      return expected === 1
        ? "entry 1's prev_hash is not the genesis hash (64 zeros): entries before it were removed"
        : `entry ${expected}'s prev_hash is not the hash of entry ${this.seq}: an entry was removed, inserted, moved or edited`;
    }
    if (entry.v !== CUSTODY_ENTRY_VERSION && this.canonicalSince > 0) {
      return (
        `entry ${expected} is not a version 2 entry, but entry ${this.canonicalSince} was: ` +
        "entries are never written under the older rule after the newer one"
      );
    }
    return undefined;
  }
}

function parseText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Why `text` is not exactly the text `value` is stored as (see `entryText`):
 * a key given twice (JSON keeps the last, a reader may see the first), keys
 * reordered, spaces added, or characters escaped another way.
 */
function storedTextFault(
  text: string,
  value: Record<string, unknown>,
  seq: number,
): string | undefined {
  const expected = entryText(value);
  if (text === expected) return undefined;
  // An entry from before version 2 may also be in its canonical form: exact, and what its hash covers.
  if (value.v !== CUSTODY_ENTRY_VERSION && text === canonicalJson(value)) return undefined;
  let at = 0;
  while (at < text.length && text[at] === expected[at]) at++;
  const rule =
    value.v === CUSTODY_ENTRY_VERSION
      ? "its canonical form (RFC 8785) with hash"
      : "its fields in the documented order, as written before version 2 (nor its canonical form)";
  return (
    `entry ${seq}'s stored text is not ${rule}: it differs at character ${at + 1} ` +
    `(${JSON.stringify(text.slice(at, at + 24))}): a key repeated, keys reordered, ` +
    "spaces added or characters escaped otherwise, so what a reader sees may not be what was hashed"
  );
}
