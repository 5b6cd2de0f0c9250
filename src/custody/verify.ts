import { CustodyLogError } from "../core/errors.js";
import { ChainVerifier } from "./chain.js";
import { base64ToBytes } from "./checkpoint.js";
import { canonicalEntry } from "./entry.js";
import type { CustodyLog } from "./log.js";

/** Options of `verifyCustodyLog(log, options)`. */
export interface VerifyCustodyLogOptions {
  /**
   * PEM certificates the checkpoints' tokens must chain to: the TSA's root,
   * or the TSA's own certificate. Without it, tokens are read and listed
   * with `trusted: false`, and `ok` speaks for the chain alone.
   * @example [readFileSync("tsa-root.pem", "utf8")]
   */
  trust?: readonly string[];
}

/** A checkpoint as verification found it. */
export interface CheckpointVerification {
  /** The entry the checkpoint witnessed. */
  seq: number;
  /** The hash the token witnessed (its message imprint). */
  hash: string;
  /** The token's time; null when the token cannot be read. */
  time: Date | null;
  /** True when the token chains to `trust` (signature, validity at `time`, timeStamping usage). */
  trusted: boolean;
}

/** What `verifyCustodyLog` found. */
export interface CustodyVerification {
  /** True when every entry continues the chain, every checkpoint holds, and (with `trust`) every token is trusted. */
  ok: boolean;
  /** How many entries were read (up to and including the first bad one). */
  entries: number;
  /** The `seq` at which the chain breaks (entries before it are intact); null when ok. */
  firstBadSeq: number | null;
  /** Why it breaks, in a sentence; null when ok. */
  reason: string | null;
  /** `hash` of the last intact entry (null for an empty log). */
  head: string | null;
  /** The log's checkpoints, in seq order. */
  checkpoints: CheckpointVerification[];
  /** How many entries come after the last checkpoint that holds: nothing witnessed them yet. */
  unwitnessed: number;
}

interface Stored {
  seq: number;
  hash: string;
  token: string;
}

/** The chain as walked: where it broke, and the entries the checkpoints name. */
interface Walk {
  read: number;
  chain: ChainVerifier;
  fault: { seq: number; reason: string } | undefined;
  /** Hash and canonical form of each intact entry a checkpoint names. */
  witnessed: Map<number, { hash: string; canonical: string }>;
}

type Fault = { seq: number; reason: string };

/**
 * Reads a whole custody log and checks its chain: an entry edited (its hash
 * no longer matches), stored as other text than its canonical form, removed,
 * inserted or moved (a `seq` out of order, or a `prev_hash` naming another
 * entry), or unreadable. Then its checkpoints: a chain rewritten or cut below
 * a checkpoint fails, naming it; with `trust`, so does a token that does not
 * chain to it. Resolves with the first fault rather than throwing; an empty
 * log is ok.
 *
 * @example
 * const result = await verifyCustodyLog(fileCustodyLog("custody.jsonl"), { trust: [rootPem] });
 * if (!result.ok) throw new Error(`custody log broken at seq ${result.firstBadSeq}: ${result.reason}`);
 */
export async function verifyCustodyLog(
  log: CustodyLog,
  options: VerifyCustodyLogOptions = {},
): Promise<CustodyVerification> {
  if (typeof log?.entries !== "function") {
    throw new TypeError(
      "verifyCustodyLog: `log` must be a custody log (an object with entries()).",
    );
  }
  const trust = options?.trust;
  if (trust !== undefined && (!Array.isArray(trust) || trust.some((t) => typeof t !== "string"))) {
    throw new TypeError("verifyCustodyLog: `trust` must be an array of PEM certificates.");
  }
  const stored = await readCheckpoints(log);
  const walk = await walkChain(log, new Set(stored.map((c) => c.seq)));
  const { checkpoints, faults, lastHeld } = await judgeCheckpoints(stored, walk, trust);
  const chainFault = walk.fault && withCheckpoint(walk.fault, stored);
  const fault = chainFault ?? faults[0];
  return {
    ok: fault === undefined,
    entries: walk.read,
    firstBadSeq: fault?.seq ?? null,
    reason: fault?.reason ?? null,
    head: walk.chain.seq === 0 ? null : walk.chain.hash,
    checkpoints,
    unwitnessed: walk.chain.seq - lastHeld,
  };
}

async function walkChain(log: CustodyLog, named: Set<number>): Promise<Walk> {
  const walk: Walk = {
    read: 0,
    chain: new ChainVerifier(),
    fault: undefined,
    witnessed: new Map(),
  };
  try {
    for await (const value of log.entries()) {
      walk.read++;
      walk.fault = await walk.chain.next(value);
      if (walk.fault) return walk;
      if (named.has(walk.chain.seq)) {
        const entry = (typeof value === "string" ? JSON.parse(value) : value) as Record<
          string,
          unknown
        >;
        walk.witnessed.set(walk.chain.seq, {
          hash: walk.chain.hash,
          canonical: canonicalEntry(entry),
        });
      }
    }
  } catch (error) {
    // An unreadable entry (a torn last line) breaks the chain there; a log that cannot be
    // read at all (no permission, a database down) is not a verdict.
    if (!(error instanceof CustodyLogError) || error.firstBadSeq === null) throw error;
    walk.read++;
    walk.fault = { seq: walk.chain.seq + 1, reason: error.reason };
  }
  return walk;
}

async function readCheckpoints(log: CustodyLog): Promise<Stored[]> {
  if (typeof log.checkpoints !== "function") return [];
  const stored: Stored[] = [];
  for await (const value of log.checkpoints()) {
    const { seq, hash, token } = (value ?? {}) as Partial<Stored>;
    if (!Number.isSafeInteger(seq) || typeof hash !== "string" || typeof token !== "string") {
      throw new CustodyLogError(
        log.description,
        "a stored checkpoint is malformed (seq, hash, token)",
      );
    }
    stored.push({ seq: seq as number, hash, token });
  }
  return stored.sort((a, b) => a.seq - b.seq);
}

const named = (c: { seq: number }, time: Date | null) =>
  `checkpoint ${c.seq}${time === null ? "" : ` (witnessed ${time.toISOString()})`}`;

/** A chain fault at or below a checkpoint names it: what the TSA saw there is gone. */
function withCheckpoint(fault: Fault, stored: Stored[]): Fault {
  const above = stored.find((c) => c.seq >= fault.seq);
  if (above === undefined) return fault;
  return {
    seq: fault.seq,
    reason: `${fault.reason}; this is at or below checkpoint ${above.seq}: the chain the TSA witnessed was changed`,
  };
}

async function judgeCheckpoints(
  stored: Stored[],
  walk: Walk,
  trust: readonly string[] | undefined,
): Promise<{ checkpoints: CheckpointVerification[]; faults: Fault[]; lastHeld: number }> {
  const checkpoints: CheckpointVerification[] = [];
  const faults: Fault[] = [];
  let lastHeld = 0;
  const tsa = stored.length > 0 ? await import("./tsa.js") : undefined;
  for (const checkpoint of stored) {
    const seen = await judgeOne(checkpoint, walk, trust, tsa as typeof import("./tsa.js"));
    checkpoints.push(seen.verdict);
    if (seen.fault) faults.push(seen.fault);
    else lastHeld = Math.max(lastHeld, checkpoint.seq);
  }
  return { checkpoints, faults, lastHeld };
}

async function judgeOne(
  checkpoint: Stored,
  walk: Walk,
  trust: readonly string[] | undefined,
  tsa: typeof import("./tsa.js"),
): Promise<{ verdict: CheckpointVerification; fault?: Fault }> {
  const verdict: CheckpointVerification = {
    seq: checkpoint.seq,
    hash: checkpoint.hash,
    time: null,
    trusted: false,
  };
  const fail = (seq: number, why: string) => ({
    verdict,
    fault: { seq, reason: `${named(checkpoint, verdict.time)}: ${why}` },
  });
  let token: Uint8Array;
  try {
    token = base64ToBytes(checkpoint.token);
    const facts = await tsa.readTimestamp(token);
    verdict.time = facts.time;
    verdict.hash = facts.imprint;
  } catch (error) {
    return fail(checkpoint.seq, `its token cannot be read: ${(error as Error).message}`);
  }
  if (verdict.hash !== checkpoint.hash) {
    return fail(checkpoint.seq, "its token witnessed another hash than the one stored beside it");
  }
  const entry = walk.witnessed.get(checkpoint.seq);
  if (entry === undefined) {
    if (walk.fault !== undefined) return { verdict }; // The chain fault speaks, naming the checkpoint.
    return fail(
      walk.chain.seq + 1,
      `the log ends at seq ${walk.chain.seq}, but the TSA witnessed entry ${checkpoint.seq}: entries were cut from its end`,
    );
  }
  if (entry.hash !== verdict.hash) {
    return fail(
      checkpoint.seq,
      `entry ${checkpoint.seq}'s hash is not the one the TSA witnessed (${verdict.hash}): the chain was rewritten at or below it`,
    );
  }
  if (trust === undefined) return { verdict };
  const untrusted = await tsa.untrustedReason(token, entry.canonical, trust);
  if (untrusted !== undefined) {
    return fail(checkpoint.seq, `its token does not chain to the trust roots given: ${untrusted}`);
  }
  verdict.trusted = true;
  return { verdict };
}
