/** Witnessed checkpoints: RFC 3161 tokens from a TSA on loopback, checked by the library and by OpenSSL. */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CustodyLogError,
  type CustodyRecord,
  fileCustodyLog,
  verifyCustodyLog,
} from "../../src/index.js";
import { makeCa, startTestTsa, type TestTsa } from "../helpers/test-tsa.js";

const record = (n: number): CustodyRecord => ({
  at: new Date(Date.UTC(2026, 5, 15, 12, 0, n)).toISOString(),
  action: "download",
  document_id: `doc_${n}`,
  retrieval_request_id: null,
  case_id: null,
  file_name: `record-${n}.pdf`,
  file_type: "application/pdf",
  bytes: n,
  sha256: "d".repeat(64),
  request_id: `req_${n}`,
  actor: "test",
});

const jcs = (value: Record<string, unknown>) =>
  JSON.stringify(Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1))));
const fresh = () => join(mkdtempSync(join(tmpdir(), "medrecords-checkpoint-")), "custody.jsonl");
const lines = (path: string) => readFileSync(path, "utf8").split("\n").filter(Boolean);

/** Rewrites the log as an opponent would: edit, then recompute every later hash. */
function rewriteChain(path: string, edit: (entries: Record<string, unknown>[]) => void) {
  const entries = lines(path).map((l) => JSON.parse(l) as Record<string, unknown>);
  edit(entries);
  let prev = "0".repeat(64);
  entries.forEach((entry, i) => {
    entry.seq = i + 1;
    entry.prev_hash = prev;
    const { hash: _hash, ...rest } = entry;
    entry.hash = createHash("sha256").update(jcs(rest)).digest("hex");
    prev = entry.hash as string;
  });
  writeFileSync(path, entries.map((e) => `${jcs(e)}\n`).join(""));
}

let tsa: TestTsa;
beforeAll(async () => {
  tsa = await startTestTsa();
}, 60_000);
afterAll(() => tsa?.close());

async function witnessed(count: number, at: number) {
  const path = fresh();
  const log = fileCustodyLog(path, { tsa: { url: tsa.url } });
  for (let n = 1; n <= count; n++) {
    await log.append(record(n));
    if (n === at) await log.checkpoint();
  }
  return { path, log };
}

describe("checkpoints", () => {
  it("log.checkpoint() stores the TSA's token for the head; OpenSSL and the library agree on it", async () => {
    const path = fresh();
    const log = fileCustodyLog(path, { tsa: { url: tsa.url } });
    await log.append(record(1));
    const head = await log.append(record(2));
    const before = Date.now();
    const checkpoint = await log.checkpoint();
    expect(checkpoint).toMatchObject({ seq: 2, hash: head.hash });
    expect(Math.abs(checkpoint.time.getTime() - before)).toBeLessThan(5_000);
    const [line] = lines(`${path}.checkpoints`).map((l) => JSON.parse(l));
    expect(line).toEqual({
      seq: 2,
      hash: head.hash,
      time: checkpoint.time.toISOString(),
      token: Buffer.from(checkpoint.token).toString("base64"),
    });
    // The message imprint is the entry's hash itself: OpenSSL verifies it with -digest.
    expect(await tsa.opensslVerify(checkpoint.token, head.hash)).toMatch(/Verification: OK/);
    await expect(tsa.opensslVerify(checkpoint.token, "0".repeat(64))).rejects.toThrow();

    await log.append(record(3));
    for (const trust of [[tsa.caPem], [tsa.tsaPem]]) {
      expect(await verifyCustodyLog(fileCustodyLog(path), { trust })).toEqual({
        ok: true,
        entries: 3,
        firstBadSeq: null,
        reason: null,
        head: expect.any(String),
        checkpoints: [{ seq: 2, hash: head.hash, time: checkpoint.time, trusted: true }],
        unwitnessed: 1,
      });
    }
    // Without trust, tokens are listed untrusted and ok speaks for the chain.
    expect(await verifyCustodyLog(fileCustodyLog(path))).toMatchObject({
      ok: true,
      checkpoints: [{ seq: 2, trusted: false }],
      unwitnessed: 1,
    });
  });

  it("a token that does not chain to the trust roots given makes ok false, naming the checkpoint", async () => {
    const { path } = await witnessed(2, 2);
    const dir = mkdtempSync(join(tmpdir(), "medrecords-other-ca-"));
    const otherRoot = readFileSync(await makeCa(dir, "Someone Else"), "utf8");
    const result = await verifyCustodyLog(fileCustodyLog(path), { trust: [otherRoot] });
    expect(result).toMatchObject({ ok: false, firstBadSeq: 2, checkpoints: [{ trusted: false }] });
    expect(result.reason).toMatch(
      /^checkpoint 2 \(witnessed .*\): its token does not chain to the trust roots/,
    );
    // OpenSSL agrees: the token does not verify against that root.
    const { hash, token: base64 } = JSON.parse(lines(`${path}.checkpoints`)[0]!);
    await expect(
      tsa.opensslVerify(Buffer.from(base64, "base64"), hash, join(dir, "ca.pem")),
    ).rejects.toThrow();

    // A token whose signature was tampered with (its last byte is in the signature).
    const stored = JSON.parse(lines(`${path}.checkpoints`)[0]!);
    const token = Buffer.from(stored.token, "base64");
    token[token.length - 1]! ^= 1;
    writeFileSync(
      `${path}.checkpoints`,
      `${JSON.stringify({ ...stored, token: token.toString("base64") })}\n`,
    );
    const tampered = await verifyCustodyLog(fileCustodyLog(path), { trust: [tsa.caPem] });
    expect(tampered).toMatchObject({ ok: false, firstBadSeq: 2 });
    expect(tampered.reason).toMatch(/checkpoint 2 .*does not chain/);
  });

  it("a chain rewritten with recomputed hashes below a checkpoint fails, naming it", async () => {
    const { path } = await witnessed(4, 3);
    rewriteChain(path, (e) => {
      e[1]!.bytes = 999;
      e[1]!.actor = "someone else";
    });
    // The chain alone verifies: that is what a rewrite does.
    const bare = await verifyCustodyLog({
      description: "x",
      entries: fileCustodyLog(path).entries.bind(fileCustodyLog(path)),
    } as never);
    expect(bare.ok).toBe(true);
    const result = await verifyCustodyLog(fileCustodyLog(path));
    expect(result).toMatchObject({ ok: false, firstBadSeq: 3 });
    expect(result.reason).toMatch(
      /^checkpoint 3 \(witnessed .*\): entry 3's hash is not the one the TSA witnessed/,
    );

    // An entry removed and the rest renumbered.
    const other = await witnessed(4, 3);
    rewriteChain(other.path, (e) => void e.splice(1, 1));
    expect((await verifyCustodyLog(fileCustodyLog(other.path))).reason).toMatch(/checkpoint 3/);
  });

  it("a chain cut below a checkpoint, or emptied, fails naming it", async () => {
    const { path } = await witnessed(4, 3);
    writeFileSync(path, `${lines(path).slice(0, 2).join("\n")}\n`);
    const result = await verifyCustodyLog(fileCustodyLog(path));
    expect(result).toMatchObject({ ok: false, firstBadSeq: 3, entries: 2 });
    expect(result.reason).toMatch(
      /^checkpoint 3 .*the log ends at seq 2, but the TSA witnessed entry 3: entries were cut/,
    );
    writeFileSync(path, "");
    expect((await verifyCustodyLog(fileCustodyLog(path))).reason).toMatch(
      /ends at seq 0.*checkpoint|checkpoint 3/,
    );
  });

  it("an edited entry below a checkpoint names the checkpoint too", async () => {
    const { path } = await witnessed(3, 3);
    const all = lines(path);
    all[0] = all[0]!.replace('"bytes":1,', '"bytes":2,');
    writeFileSync(path, `${all.join("\n")}\n`);
    const result = await verifyCustodyLog(fileCustodyLog(path));
    expect(result).toMatchObject({ ok: false, firstBadSeq: 1 });
    expect(result.reason).toMatch(/entry 1's hash does not match.*at or below checkpoint 3/);
  });

  it("checkpointEvery takes checkpoints in the background; a TSA that fails goes to onError and is retried", async () => {
    const path = fresh();
    const errors: unknown[] = [];
    const log = fileCustodyLog(path, {
      tsa: { url: tsa.url },
      checkpointEvery: 2,
      onError: (e) => errors.push(e),
    });
    await log.append(record(1));
    await log.append(record(2));
    await log.settled();
    expect(lines(`${path}.checkpoints`).map((l) => JSON.parse(l).seq)).toEqual([2]);
    tsa.failing = true;
    await log.append(record(3));
    // The append completing the count resolves although the TSA is down.
    const fourth = await log.append(record(4));
    expect(fourth.seq).toBe(4);
    await log.settled();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(CustodyLogError);
    expect((errors[0] as Error).message).toMatch(
      /cannot checkpoint seq 4: the TSA at .* answered HTTP 503/,
    );
    tsa.failing = false;
    await log.append(record(5));
    await log.settled();
    expect(lines(`${path}.checkpoints`).map((l) => JSON.parse(l).seq)).toEqual([2, 5]);
    expect(await verifyCustodyLog(fileCustodyLog(path), { trust: [tsa.caPem] })).toMatchObject({
      ok: true,
      checkpoints: [
        { seq: 2, trusted: true },
        { seq: 5, trusted: true },
      ],
      unwitnessed: 0,
    });
  });

  it("refuses checkpoint() without a TSA or on an empty log, and bad options", async () => {
    const path = fresh();
    await expect(fileCustodyLog(path).checkpoint()).rejects.toThrow(
      /cannot checkpoint an empty log/,
    );
    await fileCustodyLog(path).append(record(1));
    await expect(fileCustodyLog(path).checkpoint()).rejects.toThrow(/no time-stamping authority/);
    expect(() => fileCustodyLog(path, { checkpointEvery: 5 })).toThrow(/needs `tsa`/);
    expect(() => fileCustodyLog(path, { tsa: { url: tsa.url }, checkpointEvery: 0 })).toThrow(
      /`checkpointEvery`/,
    );
    expect(() => fileCustodyLog(path, { tsa: { url: "ftp://x" } })).toThrow(/`tsa.url`/);
  });

  it("never follows a symbolic link at the checkpoints path", async () => {
    const { path } = await witnessed(1, 0);
    const victim = join(mkdtempSync(join(tmpdir(), "medrecords-victim-")), "theirs");
    writeFileSync(victim, "");
    symlinkSync(victim, `${path}.checkpoints`);
    await expect(verifyCustodyLog(fileCustodyLog(path))).rejects.toThrow(
      /custody\.jsonl\.checkpoints is a symbolic link: refusing to follow it/,
    );
    await expect(fileCustodyLog(path, { tsa: { url: tsa.url } }).checkpoint()).rejects.toThrow(
      /checkpoints is a symbolic link/,
    );
    expect(readFileSync(victim, "utf8")).toBe("");
  });

  it("a token signed after the TSA's certificate expired is not trusted, by the library nor by OpenSSL", async () => {
    const expired = await startTestTsa({ tsaDays: 0 });
    try {
      // The certificate's validity ends the second it was issued; the token comes later.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const path = fresh();
      const log = fileCustodyLog(path, { tsa: { url: expired.url } });
      const head = await log.append(record(1));
      const checkpoint = await log.checkpoint();
      for (const trust of [[expired.caPem], [expired.tsaPem]]) {
        const result = await verifyCustodyLog(fileCustodyLog(path), { trust });
        expect(result).toMatchObject({
          ok: false,
          firstBadSeq: 1,
          checkpoints: [{ trusted: false }],
        });
        expect(result.reason).toMatch(/checkpoint 1 .*does not chain/);
      }
      await expect(expired.opensslVerify(checkpoint.token, head.hash)).rejects.toThrow(/expired/);
    } finally {
      await expired.close();
    }
  }, 60_000);

  it("holds the signer to RFC 3161's extended key usage: timeStamping alone, critical", async () => {
    const { timeStampingFault } = await import("../../src/custody/tsa.js");
    const pkijs = await import("pkijs");
    const dir = mkdtempSync(join(tmpdir(), "medrecords-eku-"));
    const certificate = async (ext: string | undefined) => {
      const args = [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=x",
      ];
      const out = join(dir, `${crypto.randomUUID()}.pem`);
      args.push("-keyout", `${out}.key`, "-out", out);
      if (ext) args.push("-addext", ext);
      await promisify(execFile)("openssl", args);
      const pem = readFileSync(out, "utf8").replaceAll(/-----[A-Z ]+-----|\s/g, "");
      return pkijs.Certificate.fromBER(Buffer.from(pem, "base64"));
    };
    expect(
      timeStampingFault(await certificate("extendedKeyUsage=critical,timeStamping")),
    ).toBeUndefined();
    expect(timeStampingFault(await certificate(undefined))).toMatch(/not for time-stamping/);
    expect(timeStampingFault(await certificate("extendedKeyUsage=serverAuth"))).toMatch(
      /not for time-stamping/,
    );
    expect(timeStampingFault(await certificate("extendedKeyUsage=timeStamping"))).toMatch(
      /not timeStamping alone, critical/,
    );
    expect(
      timeStampingFault(await certificate("extendedKeyUsage=critical,timeStamping,serverAuth")),
    ).toMatch(/not timeStamping alone, critical/);
  });
});
