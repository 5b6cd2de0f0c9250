/** `medrecords custody verify | export` over a file custody log. */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { type CustodyRecord, fileCustodyLog, postgresCustodyLog } from "../../src/index.js";
import { runCli } from "../helpers/cli.js";
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
      /csv or json/,
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
