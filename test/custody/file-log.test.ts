/** fileCustodyLog: JSON lines, 0600, one chain across processes, and never an append to a broken file. */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
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

/** RFC 8785 of a flat entry, written independently of the library. */
const jcs = (value: Record<string, unknown>) =>
  JSON.stringify(Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1))));

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
    // Stored as the canonical form (RFC 8785: keys sorted, no spaces) with `hash`, marked v 2.
    expect(Object.keys(entries[0])).toEqual([...Object.keys(entries[0])].sort());
    expect(entries[0].v).toBe(2);
    for (const line of lines(path)) expect(line).toBe(jcs(JSON.parse(line)));
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

  it("takes over a lock whose lease lapsed, whatever pid it names, and waits out a renewed one", async () => {
    const path = await filled(1);
    const lapsed = (seconds: number) => {
      const then = new Date(Date.now() - seconds * 1000);
      utimesSync(`${path}.lock`, then, then);
    };
    // Pid 1 is alive in every container: a pid never decides. A lease 31 s old has lapsed.
    writeFileSync(`${path}.lock`, JSON.stringify({ id: "x", host: "other", pid: 1 }));
    lapsed(31);
    await fileCustodyLog(path).append(record(2));
    expect(existsSync(`${path}.lock`)).toBe(false);
    // One renewed 29 s ago still stands (default lease 30 s): the append waits, then gives up, naming it.
    writeFileSync(`${path}.lock`, JSON.stringify({ id: "x", host: "other", pid: 1 }));
    lapsed(29);
    const error = await fileCustodyLog(path, { lockTimeoutMs: 50 })
      .append(record(3))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CustodyLogError);
    expect((error as Error).message).toMatch(
      /holds the lock file .*custody\.jsonl\.lock \(process 1 on other\)/,
    );
    // The holder's own lease counts: 2 s stated, 3 s old.
    writeFileSync(`${path}.lock`, JSON.stringify({ id: "x", host: "h", pid: 1, lease_ms: 2000 }));
    lapsed(3);
    await fileCustodyLog(path).append(record(3));
    expect(lines(path)).toHaveLength(3);
  });

  it("renews its lease while it holds the lock", async () => {
    const path = await filled(1);
    const log = fileCustodyLog(path, { lockLeaseMs: 200 });
    // Hold the lock past several leases by stalling inside the append: a slow disk.
    const { FileLock } = await import("../../src/custody/file-lock.js");
    const lock = new FileLock(`${path}.lock`, {
      timeoutMs: 1000,
      leaseMs: 200,
      fail: (r) => new Error(r),
    });
    const release = await lock.acquire();
    const firstRenewal = statSync(`${path}.lock`).mtimeMs;
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Renewed meanwhile, so another appender waiting past the lease does not take it over.
    expect(statSync(`${path}.lock`).mtimeMs).toBeGreaterThan(firstRenewal);
    const error = await fileCustodyLog(path, { lockTimeoutMs: 250, lockLeaseMs: 200 })
      .append(record(2))
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/holds the lock file/);
    await release();
    expect(existsSync(`${path}.lock`)).toBe(false);
    await log.append(record(2));
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

/** An entry as this library stored it before version 2: no `v`, fields in the documented order. */
async function legacyLines(count: number): Promise<string> {
  const order = [
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
  ];
  let prev = "0".repeat(64);
  let text = "";
  for (let n = 1; n <= count; n++) {
    const entry: Record<string, unknown> = { seq: n, ...record(n), prev_hash: prev };
    const hash = createHash("sha256").update(jcs(entry)).digest("hex");
    text += `${JSON.stringify(Object.fromEntries([...order.map((k) => [k, entry[k]]), ["hash", hash]]))}\n`;
    prev = hash;
  }
  return text;
}

describe("fileCustodyLog: the stored bytes are what is hashed", () => {
  const replaceLine = (path: string, index: number, edit: (line: string) => string) => {
    const all = lines(path);
    all[index] = edit(all[index]!);
    writeFileSync(path, `${all.join("\n")}\n`);
  };
  const attacks: [string, (line: string) => string][] = [
    [
      "a duplicated key before the real one (a reader sees the forged name)",
      (l) => `{"file_name":"Forged name shown to a reader.pdf",${l.slice(1)}`,
    ],
    ["re-spaced", (l) => l.replaceAll(",", ", ").replaceAll('":', '": ')],
    [
      "reordered keys",
      (l) => JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(l)).reverse())),
    ],
    ["a \\u escape", (l) => l.replace('"record-2', '"\\u0072ecord-2')],
  ];

  it.each(attacks)("an entry stored %s is refused, naming it", async (_name, attack) => {
    const path = await filled(3);
    replaceLine(path, 1, attack);
    // The values, and so the hash, are unchanged: only the bytes differ.
    expect(JSON.parse(lines(path)[1]!).hash).toBe(
      JSON.parse(attack(jcs(JSON.parse(lines(path)[1]!)))).hash,
    );
    const result = await verifyCustodyLog(fileCustodyLog(path));
    expect(result).toMatchObject({ ok: false, firstBadSeq: 2, entries: 2 });
    expect(result.reason).toMatch(/entry 2's stored text is not its canonical form \(RFC 8785\)/);
    await expect(fileCustodyLog(path).append(record(4))).rejects.toThrow(
      /refusing to append .*entry 2's stored text/,
    );
  });

  it("a log written before version 2 keeps verifying, and new entries continue its chain", async () => {
    const path = fresh();
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(path, await legacyLines(2), { mode: 0o600 });
    expect(await verifyCustodyLog(fileCustodyLog(path))).toMatchObject({ ok: true, entries: 2 });
    await fileCustodyLog(path).append(record(3));
    const stored = lines(path).map((l) => JSON.parse(l));
    expect(stored.map((e) => e.v)).toEqual([undefined, undefined, 2]);
    expect(stored[2].prev_hash).toBe(stored[1].hash);
    expect(await verifyCustodyLog(fileCustodyLog(path))).toMatchObject({ ok: true, entries: 3 });
    // An old entry stored as its canonical form (exact as well) verifies too.
    const sorted = (await legacyLines(2))
      .split("\n")
      .filter(Boolean)
      .map((l) => `${jcs(JSON.parse(l))}\n`);
    writeFileSync(path, sorted.join(""));
    expect(await verifyCustodyLog(fileCustodyLog(path))).toMatchObject({ ok: true, entries: 2 });
  });

  it("holds old entries to the form they were written in, and never goes back to it", async () => {
    const path = fresh();
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // A duplicated key in an old entry is refused too: the old form was exact as well.
    const old = (await legacyLines(2)).split("\n");
    old[1] = `{"file_name":"Forged.pdf",${old[1]!.slice(1)}`;
    writeFileSync(path, old.join("\n"));
    expect(await verifyCustodyLog(fileCustodyLog(path))).toMatchObject({
      ok: false,
      firstBadSeq: 2,
      reason: expect.stringMatching(/documented order, as written before version 2/),
    });
    // An entry in the old form after a version 2 entry: refused even with a hash that matches.
    writeFileSync(path, await legacyLines(1));
    await fileCustodyLog(path).append(record(2));
    const [first, second] = lines(path).map((l) => JSON.parse(l) as Record<string, unknown>);
    const third: Record<string, unknown> = { ...record(3), seq: 3, prev_hash: second!.hash };
    third.hash = createHash("sha256").update(jcs(third)).digest("hex");
    appendFileSync(path, `${JSON.stringify(third)}\n`);
    expect(first!.v).toBeUndefined();
    expect(await verifyCustodyLog(fileCustodyLog(path))).toMatchObject({
      ok: false,
      firstBadSeq: 3,
      reason: expect.stringMatching(/entry 3 is not a version 2 entry, but entry 2 was/),
    });
  });
});

describe("fileCustodyLog on a shared machine", () => {
  it("never follows a symbolic link at the log or lock path, naming it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medrecords-custody-link-"));
    const victim = join(dir, "someone-elses-file");
    writeFileSync(victim, "theirs\n", { mode: 0o666 });
    const path = join(dir, "custody.jsonl");
    symlinkSync(victim, path);
    await expect(fileCustodyLog(path).append(record(1))).rejects.toThrow(
      /custody\.jsonl is a symbolic link: refusing to follow it/,
    );
    await expect(verifyCustodyLog(fileCustodyLog(path))).rejects.toThrow(/symbolic link/);
    expect(readFileSync(victim, "utf8")).toBe("theirs\n");

    const real = await filled(1);
    symlinkSync(victim, `${real}.lock`);
    await expect(fileCustodyLog(real).append(record(2))).rejects.toThrow(
      /custody\.jsonl\.lock is a symbolic link/,
    );
    expect(readFileSync(victim, "utf8")).toBe("theirs\n");
  });

  it("tightens a log readable by others to 0600, with a warning", async () => {
    const path = await filled(1);
    chmodSync(path, 0o644);
    const warnings: string[] = [];
    await fileCustodyLog(path, { onWarning: (m) => warnings.push(m) }).append(record(2));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(warnings).toEqual([
      expect.stringMatching(
        /custody\.jsonl was readable or writable by others \(mode 0644\); tightened to 0600/,
      ),
    ]);
    await fileCustodyLog(path, { onWarning: (m) => warnings.push(m) }).append(record(3));
    expect(warnings).toHaveLength(1);
  });

  const canUnshare =
    process.getuid?.() === 0 &&
    spawnSync("unshare", ["--pid", "--fork", "--mount-proc", "true"]).status === 0;

  it.skipIf(!canUnshare)(
    "two appenders in two PID namespaces (each pid 1) sharing the file make one chain of 600",
    async () => {
      const script = await bundledScript("test/custody/append-child.ts");
      const path = fresh();
      const go = join(mkdtempSync(join(tmpdir(), "medrecords-custody-go-")), "go");
      const ready: Promise<void>[] = [];
      const runs = ["ns1", "ns2"].map((name) => {
        const child = spawn(
          "unshare",
          [
            "--pid",
            "--fork",
            "--mount-proc",
            process.execPath,
            script,
            path,
            "300",
            name,
            go,
            "pid",
          ],
          { stdio: ["ignore", "pipe", "pipe"] },
        );
        let out = "";
        ready.push(
          new Promise<void>((resolve) => {
            child.stdout.on("data", (c: Buffer) => {
              out += c;
              if (out.includes("done") || out.startsWith("ready")) resolve();
            });
            child.on("exit", () => resolve());
          }),
        );
        child.stderr.on("data", (c: Buffer) => {
          out += c;
        });
        return new Promise<string>((resolve) => child.on("exit", () => resolve(out)));
      });
      await Promise.all(ready);
      writeFileSync(go, "");
      const outputs = await Promise.all(runs);
      // Each saw itself as pid 1: the old pid-based lock forked the chain here.
      for (const out of outputs) expect(out).toMatch(/^ready pid 1\ndone \d+ \d+\n$/);
      const entries = lines(path).map((l) => JSON.parse(l));
      expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: 600 }, (_, i) => i + 1));
      expect(new Set(entries.map((e) => e.document_id)).size).toBe(600);
      expect(await verifyCustodyLog(fileCustodyLog(path))).toMatchObject({
        ok: true,
        entries: 600,
      });
    },
    180_000,
  );
});
