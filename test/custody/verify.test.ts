/** The hash chain: every kind of tampering found, and named by the first bad seq. */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  CUSTODY_GENESIS_HASH,
  type CustodyLog,
  CustodyLogError,
  type CustodyRecord,
  canonicalEntry,
  memoryCustodyLog,
  verifyCustodyLog,
} from "../../src/index.js";

const record = (n: number): CustodyRecord => ({
  at: `2026-06-15T12:00:0${n % 10}.000Z`,
  action: n % 2 ? "download" : "upload",
  document_id: `doc_${n}`,
  retrieval_request_id: null,
  case_id: "case_1",
  file_name: `record-${n}.pdf`,
  file_type: "application/pdf",
  bytes: 1000 + n,
  sha256: createHash("sha256").update(`file ${n}`).digest("hex"),
  request_id: `req_${n}`,
  actor: "medrecords_sk_live_...abcd",
});

async function logOf(count: number) {
  const log = memoryCustodyLog();
  for (let n = 1; n <= count; n++) await log.append(record(n));
  return log;
}

/** The hash an independent reader computes: RFC 8785 of the entry without `hash`, then SHA-256. */
function independentHash(entry: Record<string, unknown>): string {
  const { hash: _hash, ...rest } = entry;
  const sorted = Object.fromEntries(Object.entries(rest).sort(([a], [b]) => (a < b ? -1 : 1)));
  return createHash("sha256").update(JSON.stringify(sorted)).digest("hex");
}

type Entry = Record<string, unknown>;
const rehash = (entry: Entry) => ({ ...entry, hash: independentHash(entry) });

describe("the chain", () => {
  it("numbers from 1, chains each entry to the one before, and hashes its canonical form", async () => {
    const log = await logOf(3);
    const entries = log.stored as Entry[];
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(entries[0]!.prev_hash).toBe(CUSTODY_GENESIS_HASH);
    expect(entries[1]!.prev_hash).toBe(entries[0]!.hash);
    expect(entries[2]!.prev_hash).toBe(entries[1]!.hash);
    for (const entry of entries) {
      expect(entry.hash).toBe(independentHash(entry));
      expect(entry.hash).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(canonicalEntry({ b: 1, a: "é\n", hash: "x" })).toBe('{"a":"é\\n","b":1}');
    expect(await verifyCustodyLog(log)).toEqual({
      ok: true,
      entries: 3,
      firstBadSeq: null,
      reason: null,
      head: entries[2]!.hash,
      checkpoints: [],
      unwitnessed: 3,
    });
  });

  it("an empty log verifies", async () => {
    expect(await verifyCustodyLog(memoryCustodyLog())).toEqual({
      ok: true,
      entries: 0,
      firstBadSeq: null,
      reason: null,
      head: null,
      checkpoints: [],
      unwitnessed: 0,
    });
  });
});

describe("tampering", () => {
  const cases: [string, (e: Entry[]) => void, number, RegExp][] = [
    [
      "an edited field",
      (e) => {
        e[2]!.sha256 = "f".repeat(64);
      },
      3,
      /hash does not match/,
    ],
    [
      "an edited byte count",
      (e) => {
        e[1]!.bytes = 999;
      },
      2,
      /was edited/,
    ],
    [
      "an edit with the entry's own hash recomputed",
      (e) => {
        e[2] = rehash({ ...e[2]!, file_name: "other.pdf" });
      },
      4,
      /prev_hash is not the hash of entry 3/,
    ],
    ["a removed entry", (e) => void e.splice(2, 1), 3, /expected seq 3 .* found seq 4/],
    ["the first entry removed", (e) => void e.splice(0, 1), 1, /expected seq 1/],
    [
      "two entries swapped",
      (e) => {
        [e[1], e[2]] = [e[2]!, e[1]!];
      },
      2,
      /expected seq 2 .* found seq 3/,
    ],
    [
      "an entry inserted, hashed and numbered to fit",
      (e) => {
        const forged = rehash({ ...e[1]!, seq: 3, prev_hash: e[1]!.hash, file_name: "forged" });
        e.splice(2, 0, forged);
      },
      4,
      /expected seq 4 after seq 3, found seq 3|prev_hash/,
    ],
    [
      "the whole chain renumbered after a removal",
      (e) => {
        e.splice(1, 1);
        for (let i = 1; i < e.length; i++) {
          e[i] = rehash({ ...e[i]!, seq: i + 1 });
        }
      },
      2,
      /prev_hash is not the hash of entry 1/,
    ],
    [
      "a hash in capitals",
      (e) => {
        e[0]!.hash = String(e[0]!.hash).toUpperCase();
      },
      1,
      /malformed: hash/,
    ],
    [
      "a missing field",
      (e) => {
        delete e[3]!.actor;
      },
      4,
      /malformed: actor/,
    ],
    [
      "an added field",
      (e) => {
        e[4]!.note = "added later";
      },
      5,
      /hash does not match/,
    ],
    ["a duplicated entry", (e) => void e.splice(3, 0, e[2]!), 4, /found seq 3/],
  ];

  it.each(cases)("finds %s", async (_name, tamper, firstBadSeq, reason) => {
    const log = await logOf(6);
    tamper(log.stored as Entry[]);
    const result = await verifyCustodyLog(log);
    expect(result.ok).toBe(false);
    expect(result.firstBadSeq).toBe(firstBadSeq);
    expect(result.reason).toMatch(reason);
    expect(result.entries).toBe(firstBadSeq);
    // A log that does not verify is never appended to, and the error says why.
    const error = await log.append(record(7)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CustodyLogError);
    expect((error as CustodyLogError).firstBadSeq).toBe(firstBadSeq);
    expect((error as Error).message).toMatch(/refusing to append/);
  });

  it("an unreadable entry breaks the chain where it is", async () => {
    const log: CustodyLog = {
      description: "broken",
      append: async () => {
        throw new Error("unused");
      },
      async *entries() {
        yield* (await logOf(2)).stored;
        throw new CustodyLogError("broken", "line 3 is not JSON", { firstBadSeq: 3 });
      },
    };
    expect(await verifyCustodyLog(log)).toMatchObject({
      ok: false,
      entries: 3,
      firstBadSeq: 3,
      reason: "line 3 is not JSON",
    });
  });

  it("a log that cannot be read at all is an error, not a verdict", async () => {
    const log: CustodyLog = {
      description: "unreadable",
      append: async () => {
        throw new Error("unused");
      },
      // biome-ignore lint/correctness/useYield: fails before its first entry, as an unreadable file does.
      async *entries() {
        throw new CustodyLogError("unreadable", "cannot read: EACCES: permission denied");
      },
    };
    await expect(verifyCustodyLog(log)).rejects.toThrow(/EACCES/);
  });

  it("refuses something that is not a log", async () => {
    await expect(verifyCustodyLog({} as CustodyLog)).rejects.toThrow(TypeError);
  });
});
