/** `medrecords custody verify | export` over a file custody log. */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { type CustodyRecord, fileCustodyLog, postgresCustodyLog } from "../../src/index.js";
import { runCli } from "../helpers/cli.js";
import { makeCa, startTestTsa, type TestTsa } from "../helpers/test-tsa.js";
import { describeWithServers, postgresPool, uniqueName } from "../stores/servers.js";

const record = (n: number, file_name = `record-${n}.pdf`): CustodyRecord => ({
  at: `2026-06-15T12:00:0${n}.000Z`,
  action: "download",
  document_id: `doc_${n}`,
  retrieval_request_id: n === 2 ? "rr_1" : null,
  case_id: "case_1",
  file_name,
  file_type: "application/pdf",
  bytes: 100 * n,
  sha256: String(n).repeat(64),
  request_id: `req_${n}`,
  actor: "paralegal:jdoe",
});

const jcs = (value: Record<string, unknown>) =>
  JSON.stringify(Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1))));

async function logWith(...records: CustodyRecord[]) {
  const path = join(mkdtempSync(join(tmpdir(), "medrecords-cli-custody-")), "custody.jsonl");
  const log = fileCustodyLog(path);
  for (const r of records) await log.append(r);
  return path;
}

async function run(args: string[], env: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const code = await main(args, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env,
    signal: new AbortController().signal,
  });
  return { code, stdout, stderr };
}

describe("medrecords custody verify", () => {
  it("exits 0 with the count and the last hash for a chain that verifies", async () => {
    const path = await logWith(record(1), record(2));
    const last = JSON.parse(readFileSync(path, "utf8").trim().split("\n")[1]!).hash;
    expect(await run(["custody", "verify", path])).toEqual({
      code: 0,
      stdout: `${path}: 2 entries, the chain verifies; last hash ${last}\n`,
      stderr: "",
    });
  });

  it("exits 1 naming the bad entry, for the bundled bin too", async () => {
    const path = await logWith(record(1), record(2), record(3));
    const text = readFileSync(path, "utf8");
    writeFileSync(path, text.replace('"bytes":200', '"bytes":201'));
    const result = await run(["custody", "verify", path]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `medrecords: ${path} does not verify: entry 2 is bad: entry 2's hash does not match its content: the entry was edited\n`,
    );
    const bin = await runCli(["custody", "verify", path]);
    expect(bin.code).toBe(1);
    expect(bin.stderr).toContain("entry 2 is bad");
  }, 60_000);

  it("refuses a missing file, a second argument, an unknown subcommand and a stray flag", async () => {
    const missing = await run(["custody", "verify", "/nonexistent/custody.jsonl"]);
    expect(missing).toMatchObject({ code: 1, stderr: expect.stringMatching(/ENOENT/) });
    expect((await run(["custody", "verify", "a", "b"])).code).toBe(2);
    expect((await run(["custody", "list", "a"])).stderr).toMatch(/unknown command "custody list"/);
    expect((await run(["custody", "verify", "a", "--format", "csv"])).code).toBe(2);
    expect((await run(["custody", "export", "a", "--format", "xml"])).stderr).toMatch(
      /csv, json or packet/,
    );
    expect((await run(["custody", "--help"])).stdout).toMatch(/Usage: medrecords custody verify/);
  });
});

describe("medrecords custody export", () => {
  it("prints one CSV row per entry with the certification's facts, a formula defused", async () => {
    const path = await logWith(record(1, "=HYPERLINK(1)"), record(2, 'chart, "final".pdf'));
    const entries = readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const result = await run(["custody", "export", path]);
    expect(result.code).toBe(0);
    expect(result.stdout.split("\r\n")).toEqual([
      "seq,at,action,document_id,retrieval_request_id,case_id,file_name,file_type,bytes,hash_algorithm,sha256,request_id,actor,prev_hash,entry_hash",
      `1,2026-06-15T12:00:01.000Z,download,doc_1,,case_1,'=HYPERLINK(1),application/pdf,100,SHA-256,${"1".repeat(64)},req_1,paralegal:jdoe,${"0".repeat(64)},${entries[0].hash}`,
      `2,2026-06-15T12:00:02.000Z,download,doc_2,rr_1,case_1,"chart, ""final"".pdf",application/pdf,200,SHA-256,${"2".repeat(64)},req_2,paralegal:jdoe,${entries[0].hash},${entries[1].hash}`,
      "",
    ]);
    expect(result.stderr).toMatch(/exported 2 entries of a chain that verifies/);
  });

  it("prints a JSON array with --format json, and nothing for a log that does not verify", async () => {
    const path = await logWith(record(1), record(2));
    const result = await run(["custody", "export", path, "--format", "json"]);
    const rows = JSON.parse(result.stdout);
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatchObject({
      seq: 2,
      document_id: "doc_2",
      retrieval_request_id: "rr_1",
      hash_algorithm: "SHA-256",
      sha256: "2".repeat(64),
      bytes: 200,
    });
    const empty = await logWith();
    writeFileSync(empty, "");
    expect((await run(["custody", "export", empty, "--format", "json"])).stdout).toBe("[]\n");

    writeFileSync(path, readFileSync(path, "utf8").split("\n").slice(1).join("\n"));
    const broken = await run(["custody", "export", path]);
    expect(broken).toMatchObject({ code: 1, stdout: "" });
    expect(broken.stderr).toMatch(/entry 1 is bad: .* \(nothing exported\)/);
  });
});

describe("medrecords custody: control characters, heads, checkpoints and packets", () => {
  let tsa: TestTsa;
  beforeAll(async () => {
    tsa = await startTestTsa();
  }, 60_000);
  afterAll(() => tsa?.close());

  it("writes control characters in CSV as \\xNN (JSON escapes them its own way)", async () => {
    const path = await logWith(record(1, "\u001b[31mred\u0007\r\nline\u009b.pdf"));
    const csv = await run(["custody", "export", path]);
    expect(csv.stdout.split("\r\n")[1]).toContain(",\\x1b[31mred\\x07\\x0d\\x0aline\\x9b.pdf,");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: none may remain.
    expect(csv.stdout.replaceAll("\r\n", "")).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    const json = await run(["custody", "export", path, "--format", "json"]);
    expect(JSON.parse(json.stdout)[0].file_name).toBe("\u001b[31mred\u0007\r\nline\u009b.pdf");
  });

  it("head prints <seq> <hash>; verify --expect-head fails once the chain no longer holds it", async () => {
    const path = await logWith(record(1), record(2), record(3));
    const head = await run(["custody", "head", path]);
    const last = JSON.parse(readFileSync(path, "utf8").trim().split("\n")[2]!).hash;
    expect(head).toEqual({ code: 0, stdout: `3 ${last}\n`, stderr: "" });
    const noted = head.stdout.trim().replace(" ", ":");
    expect((await run(["custody", "verify", path, "--expect-head", noted])).code).toBe(0);
    // Rewritten with every hash recomputed: the chain verifies, the noted head is gone.
    const lines = readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    let prev = "0".repeat(64);
    const text = lines
      .map((entry: Record<string, unknown>, i: number) => {
        const { hash: _h, ...rest } = entry;
        if (i === 1) rest.bytes = 1;
        rest.prev_hash = prev;
        prev = createHash("sha256").update(jcs(rest)).digest("hex");
        return `${jcs({ ...rest, hash: prev })}\n`;
      })
      .join("");
    writeFileSync(path, text);
    expect((await run(["custody", "verify", path])).code).toBe(0);
    const rewritten = await run(["custody", "verify", path, "--expect-head", noted]);
    expect(rewritten).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/entry 3 is not the head noted/),
    });
    writeFileSync(path, `${text.split("\n").slice(0, 2).join("\n")}\n`);
    const cut = await run(["custody", "verify", path, "--expect-head", noted]);
    expect(cut).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/has no entry 3: the chain was cut/),
    });
    expect((await run(["custody", "verify", path, "--expect-head", "3:abc"])).code).toBe(2);
    expect((await run(["custody", "head", path, "--expect-head", noted])).code).toBe(2);
  });

  it("checkpoint --tsa witnesses the head; verify --trust checks the tokens", async () => {
    const path = await logWith(record(1), record(2));
    const dir = mkdtempSync(join(tmpdir(), "medrecords-cli-trust-"));
    const ca = join(dir, "ca.pem");
    writeFileSync(ca, tsa.caPem);
    const checkpoint = await run(["custody", "checkpoint", path, "--tsa", tsa.url]);
    const last = JSON.parse(readFileSync(path, "utf8").trim().split("\n")[1]!).hash;
    expect(checkpoint).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(new RegExp(`^2 ${last} \\d{4}-`)),
    });
    const trusted = await run(["custody", "verify", path, "--trust", ca]);
    expect(trusted).toMatchObject({ code: 0 });
    expect(trusted.stdout).toMatch(new RegExp(`checkpoint 2 ${last} witnessed .*, token trusted`));
    const otherDir = mkdtempSync(join(tmpdir(), "medrecords-cli-other-"));
    const other = readFileSync(await makeCa(otherDir, "Other"), "utf8");
    const otherFile = join(dir, "other.pem");
    writeFileSync(otherFile, other);
    const untrusted = await run(["custody", "verify", path, "--trust", otherFile]);
    expect(untrusted).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/checkpoint 2 .*does not chain/),
    });
    // Several roots after one --trust: one of them suffices.
    expect(await run(["custody", "verify", path, "--trust", otherFile, ca])).toMatchObject({
      stderr: "",
      code: 0,
    });
    expect((await run(["custody", "checkpoint", path])).code).toBe(2);
  });

  it("export --format packet writes entries, tokens and METHOD.md, whose commands re-verify them", async () => {
    const path = await logWith(record(1), record(2));
    expect((await run(["custody", "checkpoint", path, "--tsa", tsa.url])).code).toBe(0);
    await fileCustodyLog(path).append(record(3));
    const dir = join(mkdtempSync(join(tmpdir(), "medrecords-packet-")), "packet");
    const result = await run(["custody", "export", path, "--format", "packet", dir]);
    expect(result).toMatchObject({
      code: 0,
      stderr: expect.stringMatching(/exported 3 entries .* to /),
    });
    expect(readdirSync(dir).sort()).toEqual(["2.tsr", "METHOD.md", "entries.csv", "entries.json"]);
    const rows = JSON.parse(readFileSync(join(dir, "entries.json"), "utf8"));
    expect(rows.map((r: { seq: number }) => r.seq)).toEqual([1, 2, 3]);
    expect(readFileSync(join(dir, "entries.csv"), "utf8")).toBe(
      (await run(["custody", "export", path])).stdout,
    );
    const method = readFileSync(join(dir, "METHOD.md"), "utf8");
    expect(method).toMatch(/RFC 8785/);
    expect(method).toMatch(/Chain rule/);
    expect(method).toMatch(
      /openssl ts -verify -digest <hash of entry 2> -in 2\.tsr -CAfile <ca\.pem>/,
    );
    // The commands METHOD.md gives, run as an expert would.
    const hash = rows[1].entry_hash;
    const ok = await tsa.opensslVerify(readFileSync(join(dir, "2.tsr")), hash);
    expect(ok).toMatch(/Verification: OK/);
    const sed = /^sed -n .*sha256sum$/m
      .exec(method)![0]
      .replace("<seq>", "2")
      .replace("custody.jsonl", path);
    const { stdout } = await promisify(execFile)("sh", ["-c", sed]);
    expect(stdout.split(" ")[0]).toBe(hash);
    const jq = /^jq .*sha256sum$/m.exec(method)![0].replace("<seq>", "2");
    const fromPacket = await promisify(execFile)("sh", ["-c", jq], { cwd: dir });
    expect(fromPacket.stdout.split(" ")[0]).toBe(hash);

    const again = await run(["custody", "export", path, "--format", "packet", dir]);
    expect(again).toMatchObject({ code: 1, stderr: expect.stringMatching(/is not empty/) });
    expect((await run(["custody", "export", path, "--format", "packet"])).code).toBe(2);
  });
});

describeWithServers(
  ["postgres"],
  "medrecords custody on a PostgreSQL table",
  ({ postgres: url }) => {
    const pool = postgresPool(url, 2);
    const table = uniqueName("cli_custody");
    afterAll(async () => {
      await pool.query(`DROP TABLE IF EXISTS ${table}`);
      await pool.end();
    });

    it("verifies and exports postgres:<table> through DATABASE_URL, and names a missing table", async () => {
      const log = postgresCustodyLog({ pool, table });
      await log.append(record(1));
      await log.append(record(2));
      const env = { DATABASE_URL: url };
      const verified = await run([`custody`, "verify", `postgres:${table}`], env);
      expect(verified).toMatchObject({
        code: 0,
        stdout: expect.stringMatching(/2 entries, the chain verifies/),
      });
      const exported = await run(
        ["custody", "export", `postgres:${table}`, "--format", "json"],
        env,
      );
      expect(JSON.parse(exported.stdout).map((r: { seq: number }) => r.seq)).toEqual([1, 2]);

      await pool.query(
        `UPDATE ${table} SET entry = replace(entry, 'doc_1', 'doc_9') WHERE seq = 1`,
      );
      const broken = await run(["custody", "verify", `postgres:${table}`], env);
      expect(broken.code).toBe(1);
      expect(broken.stderr).toMatch(/entry 1 is bad: .*was edited/);

      const missing = await run(["custody", "verify", `postgres:${table}_none`], env);
      expect(missing).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/there is no table/),
      });
      expect((await run(["custody", "verify", "postgres:bad;name"], env)).code).toBe(2);
      expect(missing.stderr + broken.stderr).not.toContain("medrecords:medrecords@");
    });
  },
);
