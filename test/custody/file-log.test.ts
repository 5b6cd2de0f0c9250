/** fileCustodyLog: JSON lines, 0600, one chain across processes, and never an append to a broken file. */
import { spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  CustodyLogError,
  type CustodyRecord,
  fileCustodyLog,
  verifyCustodyLog,
} from "../../src/index.js";
import { bundledScript } from "../helpers/bundle.js";

const record = (n: number, actor = "test"): CustodyRecord => ({
  at: new Date(Date.UTC(2026, 5, 15, 12, 0, n)).toISOString(),
  action: "download",
  document_id: `doc_${n}`,
  retrieval_request_id: null,
  case_id: null,
  file_name: `record-${n}.pdf`,
  file_type: "application/pdf",
  bytes: n,
  sha256: "b".repeat(64),
  request_id: `req_${n}`,
  actor,
});

const fresh = () =>
  join(mkdtempSync(join(tmpdir(), "medrecords-custody-")), "logs", "custody.jsonl");
const lines = (path: string) => readFileSync(path, "utf8").split("\n").filter(Boolean);
const rewrite = (path: string, edit: (entries: Record<string, unknown>[]) => void) => {
  const entries = lines(path).map((l) => JSON.parse(l) as Record<string, unknown>);
  edit(entries);
  writeFileSync(path, entries.map((e) => `${JSON.stringify(e)}\n`).join(""));
};

async function filled(count: number) {
  const path = fresh();
  const log = fileCustodyLog(path);
  for (let n = 1; n <= count; n++) await log.append(record(n));
  return path;
}

describe("fileCustodyLog", () => {
  it("appends one JSON line per entry to a 0600 file in a 0700 directory it creates", async () => {
    const path = await filled(3);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(path, "..")).mode & 0o777).toBe(0o700);
    const entries = lines(path).map((l) => JSON.parse(l));
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(Object.keys(entries[0])).toEqual([
      "seq",
      "at",
      "action",
      "document_id",
      "retrieval_request_id",
      "case_id",
      "file_name",
      "file_type",
      "bytes",
      "sha256",
      "request_id",
      "actor",
      "prev_hash",
      "hash",
    ]);
    expect(await verifyCustodyLog(fileCustodyLog(path))).toMatchObject({ ok: true, entries: 3 });
    expect(await verifyCustodyLog(fileCustodyLog(fresh()))).toMatchObject({ ok: true, entries: 0 });
  });

  it("refuses a bad path or timeout", () => {
    expect(() => fileCustodyLog("")).toThrow(/`path`/);
    expect(() => fileCustodyLog("x", { lockTimeoutMs: -1 })).toThrow(/`lockTimeoutMs`/);
  });

  const tamperings: [string, (path: string) => void, number, RegExp][] = [
    [
      "an edited entry",
      (p) =>
        rewrite(p, (e) => {
          e[1]!.bytes = 7;
        }),
      2,
      /was edited/,
    ],
    ["a removed entry", (p) => rewrite(p, (e) => void e.splice(1, 1)), 2, /expected seq 2/],
    [
      "reordered entries",
      (p) =>
        rewrite(p, (e) => {
          [e[0], e[1]] = [e[1]!, e[0]!];
        }),
      1,
      /expected seq 1/,
    ],
    [
      "an inserted line",
      (p) => rewrite(p, (e) => void e.splice(1, 0, { ...e[0]!, file_name: "x" })),
      2,
      /seq/,
    ],
    ["a line that is not JSON", (p) => appendFileSync(p, "not json\n"), 4, /malformed/],
    [
      "a torn last line",
      (p) => appendFileSync(p, '{"seq":4,"at"'),
      4,
      /no newline: an append cut short/,
    ],
  ];

  it.each(tamperings)(
    "a process opening a file with %s refuses to append, naming the entry",
    async (_name, tamper, seq, reason) => {
      const path = await filled(3);
      tamper(path);
      const before = readFileSync(path, "utf8");
      const error = await fileCustodyLog(path)
        .append(record(9))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CustodyLogError);
      expect((error as CustodyLogError).firstBadSeq).toBe(seq);
      expect((error as Error).message).toMatch(/refusing to append to a log that does not verify/);
      expect((error as Error).message).toMatch(reason);
      expect(readFileSync(path, "utf8")).toBe(before);
      const result = await verifyCustodyLog(fileCustodyLog(path));
      expect(result).toMatchObject({ ok: false, firstBadSeq: seq });
    },
  );

  it("a process that already verified the file notices an edit or truncation made since", async () => {
    const path = await filled(2);
    const log = fileCustodyLog(path);
    await log.append(record(3));
    rewrite(path, (e) => {
      e[2]!.actor = "someone else";
    });
    await expect(log.append(record(4))).rejects.toThrow(/entry 3 changed since this process/);

    const other = await filled(3);
    const log2 = fileCustodyLog(other);
    await log2.append(record(4));
    writeFileSync(other, `${lines(other).slice(0, 2).join("\n")}\n`);
    await expect(log2.append(record(5))).rejects.toThrow(/shorter than .* entries were removed/);
  });

  it("continues the chain after what another process appended, checking it first", async () => {
    const path = await filled(1);
    const mine = fileCustodyLog(path);
    await mine.append(record(2));
    await fileCustodyLog(path).append(record(3)); // another writer
    await mine.append(record(4));
    expect(lines(path).map((l) => JSON.parse(l).seq)).toEqual([1, 2, 3, 4]);
    expect(await verifyCustodyLog(fileCustodyLog(path))).toMatchObject({ ok: true, entries: 4 });
  });

  it("takes over a lock left by a process that died, and waits out a live one", async () => {
    const path = await filled(1);
    // A lock of a process that no longer exists.
    const dead = spawn(process.execPath, ["-e", ""]);
    await new Promise((resolve) => dead.on("exit", resolve));
    writeFileSync(`${path}.lock`, JSON.stringify({ pid: dead.pid, token: "t" }));
    await fileCustodyLog(path).append(record(2));
    // A lock of a live process (this one): the append waits, then gives up, naming the file.
    writeFileSync(`${path}.lock`, JSON.stringify({ pid: process.pid, token: "t" }));
    const error = await fileCustodyLog(path, { lockTimeoutMs: 50 })
      .append(record(3))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CustodyLogError);
    expect((error as Error).message).toMatch(
      /holds the lock file .*custody\.jsonl\.lock \(process \d+\)/,
    );
    expect(lines(path)).toHaveLength(2);
  });

  it("several processes appending at once make one valid chain holding every entry", async () => {
    const script = await bundledScript("test/custody/append-child.ts");
    const path = fresh();
    const PROCESSES = 4;
    const EACH = 15;
    const go = join(mkdtempSync(join(tmpdir(), "medrecords-custody-go-")), "go");
    const ready: Promise<void>[] = [];
    const runs = Array.from({ length: PROCESSES }, (_, p) => {
      const child = spawn(process.execPath, [script, path, String(EACH), `p${p}`, go], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      ready.push(
        new Promise<void>((resolve) => {
          child.stdout.on("data", (c: Buffer) => {
            out += c;
            if (out.startsWith("ready\n")) resolve();
          });
          child.on("exit", () => resolve());
        }),
      );
      child.stderr.on("data", (c: Buffer) => {
        out += c;
      });
      return new Promise<string>((resolve) => child.on("exit", () => resolve(out)));
    });
    // Every process started before any appends: otherwise, on a loaded machine, one may
    // finish before the next has started, and nothing would be shown about concurrency.
    await Promise.all(ready);
    writeFileSync(go, "");
    const outputs = await Promise.all(runs);
    for (const out of outputs) expect(out).toMatch(/^ready\ndone \d+ \d+\n$/);
    const spans = outputs.map((out) => out.split("\n")[1]!.split(" ").slice(1).map(Number));
    const entries = lines(path).map((l) => JSON.parse(l));
    expect(entries.map((e) => e.seq)).toEqual(
      Array.from({ length: PROCESSES * EACH }, (_, i) => i + 1),
    );
    expect(new Set(entries.map((e) => e.document_id)).size).toBe(PROCESSES * EACH);
    // The processes really appended at the same time: every one had begun before any had
    // finished (the order the lock grants them in is its own affair).
    const lastStart = Math.max(...spans.map(([start]) => start!));
    const firstEnd = Math.min(...spans.map(([, end]) => end!));
    expect(lastStart).toBeLessThan(firstEnd);
    expect(await verifyCustodyLog(fileCustodyLog(path))).toMatchObject({
      ok: true,
      entries: PROCESSES * EACH,
    });
  }, 60_000);
});
