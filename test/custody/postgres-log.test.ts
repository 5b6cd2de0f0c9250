/** postgresCustodyLog against a real PostgreSQL (MEDRECORDS_TEST_POSTGRES_URL): one chain across instances. */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CustodyLogError,
  type CustodyRecord,
  postgresCustodyLog,
  verifyCustodyLog,
} from "../../src/index.js";
import { startTestTsa } from "../helpers/test-tsa.js";
import { describeWithServers, postgresPool, uniqueName } from "../stores/servers.js";

/** RFC 8785 of a flat entry, written independently of the library. */
const jcs = (value: Record<string, unknown>) =>
  JSON.stringify(Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1))));

const record = (n: number, actor = "test"): CustodyRecord => ({
  at: new Date(Date.UTC(2026, 5, 15, 12, 0, n % 60)).toISOString(),
  action: n % 2 ? "download" : "upload",
  document_id: `doc_${n}`,
  retrieval_request_id: null,
  case_id: "case_1",
  file_name: `record-${n}.pdf`,
  file_type: "application/pdf",
  bytes: n,
  sha256: "c".repeat(64),
  request_id: `req_${n}`,
  actor,
});

describe("postgresCustodyLog options", () => {
  const pool = { query: async () => ({ rowCount: 0, rows: [] }), connect: async () => ({}) };
  it("refuses a missing pool, one without connect(), and a bad table name", () => {
    expect(() => postgresCustodyLog({} as never)).toThrow(/pg\.Pool/);
    expect(() => postgresCustodyLog({ pool: { query: pool.query } } as never)).toThrow(
      /connect\(\)/,
    );
    expect(() => postgresCustodyLog({ pool: pool as never, table: "log; DROP TABLE x" })).toThrow(
      /`table` must be a table name/,
    );
    expect(() => postgresCustodyLog({ pool: pool as never, table: "a.b.c" })).toThrow(/`table`/);
  });

  it("wraps a database failure in a CustodyLogError naming the log", async () => {
    const refusing = {
      query: async () => {
        throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), {
          code: "ECONNREFUSED",
        });
      },
      connect: async () => {
        throw new Error("unused");
      },
    };
    const error = await postgresCustodyLog({ pool: refusing as never, table: "custody" })
      .append(record(1))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CustodyLogError);
    expect((error as Error).message).toMatch(
      /postgresCustodyLog \(table "custody"\): cannot append: connect ECONNREFUSED/,
    );
  });
});

describeWithServers(["postgres"], "postgresCustodyLog", ({ postgres: url }) => {
  const pool = postgresPool(url, 20);
  const schema = uniqueName("custody");
  beforeAll(async () => {
    await pool.query(`CREATE SCHEMA ${schema}`);
  });
  afterAll(async () => {
    await pool.query(`DROP SCHEMA ${schema} CASCADE`);
    await pool.end();
  });

  it("creates its table on first use and stores each entry's JSON as hashed", async () => {
    const table = `${schema}.log_a`;
    const log = postgresCustodyLog({ pool, table });
    const first = await log.append(record(1));
    const second = await log.append(record(2));
    expect([first.seq, second.seq, second.prev_hash]).toEqual([1, 2, first.hash]);
    const { rows } = await pool.query(`SELECT seq::int AS seq, entry FROM ${table} ORDER BY seq`);
    expect(rows.map((r) => JSON.parse(r.entry))).toEqual([first, second]);
    // Exactly the canonical form (RFC 8785: keys sorted, no spaces) with `hash`.
    for (const row of rows) expect(row.entry).toBe(jcs(JSON.parse(row.entry)));
    expect(await verifyCustodyLog(postgresCustodyLog({ pool, table }))).toMatchObject({
      ok: true,
      entries: 2,
      head: second.hash,
    });
  });

  it("several instances, each with its own pool, appending at once make one linear chain", async () => {
    const table = `${schema}.log_concurrent`;
    const pools = Array.from({ length: 4 }, () => postgresPool(url, 3));
    try {
      const instances = pools.map((p) => postgresCustodyLog({ pool: p, table }));
      const EACH = 12;
      await Promise.all(
        instances.map(async (log, i) => {
          // Several appends in flight per instance, too.
          await Promise.all(
            Array.from({ length: EACH }, (_, n) =>
              log.append(record(i * 100 + n, `instance-${i}`)),
            ),
          );
        }),
      );
      const result = await verifyCustodyLog(postgresCustodyLog({ pool, table }));
      expect(result).toMatchObject({ ok: true, entries: 4 * EACH });
      const { rows } = await pool.query(`SELECT entry FROM ${table} ORDER BY seq`);
      const actors = rows.map((r) => JSON.parse(r.entry).actor as string);
      expect(new Set(actors).size).toBe(4);
      expect(actors.filter((a, i) => i > 0 && a !== actors[i - 1]).length).toBeGreaterThan(3);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  });

  it("an instance opening an edited table refuses to append; one that verified notices later edits", async () => {
    const table = `${schema}.log_tampered`;
    const writer = postgresCustodyLog({ pool, table });
    for (let n = 1; n <= 4; n++) await writer.append(record(n));
    // Someone with UPDATE on the table edits entry 2's size.
    await pool.query(
      `UPDATE ${table} SET entry = replace(entry, '"bytes":2,', '"bytes":20,') WHERE seq = 2`,
    );
    const fresh = await postgresCustodyLog({ pool, table })
      .append(record(5))
      .catch((e: unknown) => e);
    expect(fresh).toBeInstanceOf(CustodyLogError);
    expect((fresh as CustodyLogError).firstBadSeq).toBe(2);
    expect((fresh as Error).message).toMatch(/refusing to append .* entry 2's hash does not match/);
    expect(await verifyCustodyLog(writer)).toMatchObject({ ok: false, firstBadSeq: 2 });

    // The instance that verified before the edit checks its last entry under the lock.
    await pool.query(`UPDATE ${table} SET entry = replace(entry, 'doc_4', 'doc_x') WHERE seq = 4`);
    await expect(writer.append(record(5))).rejects.toThrow(/entry 4 changed since this instance/);
    await pool.query(`DELETE FROM ${table} WHERE seq = 4`);
    await expect(writer.append(record(5))).rejects.toThrow(CustodyLogError);
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM ${table}`);
    expect(rows[0].n).toBe(3);
  });

  it("a removed row is found by verification and by the next instance", async () => {
    const table = `${schema}.log_removed`;
    const writer = postgresCustodyLog({ pool, table });
    for (let n = 1; n <= 3; n++) await writer.append(record(n));
    await pool.query(`DELETE FROM ${table} WHERE seq = 2`);
    expect(await verifyCustodyLog(postgresCustodyLog({ pool, table }))).toMatchObject({
      ok: false,
      firstBadSeq: 2,
      reason: expect.stringMatching(/expected seq 2 after seq 1, found seq 3/),
    });
  });

  const attacks: [string, (text: string) => string][] = [
    ["a duplicated key before the real one", (t) => `{"file_name":"Forged.pdf",${t.slice(1)}`],
    ["re-spaced", (t) => t.replaceAll(",", ", ")],
    [
      "reordered keys",
      (t) => JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(t)).reverse())),
    ],
    ["a \\u escape", (t) => t.replace('"record-2', '"\\u0072ecord-2')],
  ];
  it.each(attacks)(
    "an entry column stored with %s is refused, naming the entry",
    async (name, attack) => {
      const table = `${schema}.log_text_${name.replaceAll(/\W/g, "_").slice(0, 20)}`;
      const writer = postgresCustodyLog({ pool, table });
      for (let n = 1; n <= 3; n++) await writer.append(record(n));
      const { rows } = await pool.query(`SELECT entry FROM ${table} WHERE seq = 2`);
      await pool.query(`UPDATE ${table} SET entry = $1 WHERE seq = 2`, [attack(rows[0].entry)]);
      const result = await verifyCustodyLog(postgresCustodyLog({ pool, table }));
      expect(result).toMatchObject({ ok: false, firstBadSeq: 2 });
      expect(result.reason).toMatch(/entry 2's stored text is not its canonical form/);
      await expect(postgresCustodyLog({ pool, table }).append(record(4))).rejects.toThrow(
        /refusing to append .*entry 2's stored text/,
      );
    },
  );

  it("a table written before version 2 keeps verifying, and new entries continue its chain", async () => {
    const table = `${schema}.log_legacy`;
    await postgresCustodyLog({ pool, table }).append(record(1));
    // Rewrite entry 1 as the library stored it before: no v, documented order, hash without v.
    const { rows } = await pool.query(`SELECT entry FROM ${table} WHERE seq = 1`);
    const { v: _v, hash: _hash, ...rest } = JSON.parse(rows[0].entry);
    const hash = createHash("sha256").update(jcs(rest)).digest("hex");
    const order = ["seq", "at", "action", "document_id", "retrieval_request_id", "case_id"];
    const more = ["file_name", "file_type", "bytes", "sha256", "request_id", "actor", "prev_hash"];
    const legacy = JSON.stringify({
      ...Object.fromEntries([...order, ...more].map((k) => [k, rest[k]])),
      hash,
    });
    await pool.query(`UPDATE ${table} SET entry = $1 WHERE seq = 1`, [legacy]);
    const log = postgresCustodyLog({ pool, table });
    const second = await log.append(record(2));
    expect(second.prev_hash).toBe(hash);
    expect(await verifyCustodyLog(log)).toMatchObject({ ok: true, entries: 2 });
  });

  it("keeps checkpoints in <table>_checkpoints; a chain rewritten or cut below one fails, naming it", async () => {
    const tsa = await startTestTsa();
    try {
      const table = `${schema}.log_witnessed`;
      const log = postgresCustodyLog({ pool, table, tsa: { url: tsa.url } });
      for (let n = 1; n <= 3; n++) await log.append(record(n));
      const checkpoint = await log.checkpoint();
      await log.append(record(4));
      const { rows } = await pool.query(
        `SELECT seq::int AS seq, hash, token FROM ${table}_checkpoints`,
      );
      expect(rows).toEqual([
        { seq: 3, hash: checkpoint.hash, token: Buffer.from(checkpoint.token).toString("base64") },
      ]);
      expect(await tsa.opensslVerify(checkpoint.token, checkpoint.hash)).toMatch(
        /Verification: OK/,
      );
      expect(
        await verifyCustodyLog(postgresCustodyLog({ pool, table }), { trust: [tsa.caPem] }),
      ).toMatchObject({
        ok: true,
        checkpoints: [{ seq: 3, hash: checkpoint.hash, time: checkpoint.time, trusted: true }],
        unwitnessed: 1,
      });
      // Rewritten with recomputed hashes from entry 2 on: the chain alone would verify.
      const { rows: entries } = await pool.query(`SELECT entry FROM ${table} ORDER BY seq`);
      let prev = JSON.parse(entries[0].entry).hash as string;
      for (let i = 1; i < entries.length; i++) {
        const { hash: _hash, ...rest } = JSON.parse(entries[i].entry);
        if (i === 1) rest.actor = "someone else";
        rest.prev_hash = prev;
        const hash = createHash("sha256").update(jcs(rest)).digest("hex");
        await pool.query(`UPDATE ${table} SET entry = $1 WHERE seq = $2`, [
          jcs({ ...rest, hash }),
          i + 1,
        ]);
        prev = hash;
      }
      const rewritten = await verifyCustodyLog(postgresCustodyLog({ pool, table }));
      expect(rewritten).toMatchObject({ ok: false, firstBadSeq: 3 });
      expect(rewritten.reason).toMatch(
        /^checkpoint 3 .*entry 3's hash is not the one the TSA witnessed/,
      );
      await pool.query(`DELETE FROM ${table} WHERE seq >= 3`);
      const cut = await verifyCustodyLog(postgresCustodyLog({ pool, table }));
      expect(cut.reason).toMatch(/^checkpoint 3 .*the log ends at seq 2.*entries were cut/);
    } finally {
      await tsa.close();
    }
  }, 60_000);
});
