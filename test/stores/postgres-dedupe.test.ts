/** postgresDedupeStore against a real PostgreSQL (MEDRECORDS_TEST_POSTGRES_URL). */

import { setTimeout as sleep } from "node:timers/promises";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MedRecordsError } from "../../src/core/errors.js";
import { DEFAULT_DEDUPE_LEASE_SECONDS, type DedupeClaim } from "../../src/shared/dedupe-store.js";
import {
  createWebhookHandler,
  type PostgresDedupeStore,
  type PostgresPool,
  type PostgresQueryResult,
  postgresDedupeStore,
  StoreUnavailableError,
  signWebhook,
} from "../../src/webhooks/index.js";
import { freePort } from "../helpers/loopback.js";
import { describeWithServers, postgresPool, uniqueName } from "./servers.js";

function tokenOf(claim: DedupeClaim): string {
  if (claim.state !== "claimed") throw new Error(`expected a claim, got ${claim.state}`);
  return claim.token;
}

/** A pool that only records what it is asked, for tests that need no server. */
function fakePool(): PostgresPool & { sql: string[] } {
  const sql: string[] = [];
  const result: PostgresQueryResult = { rowCount: 1, rows: [] };
  return {
    sql,
    query: async (text) => {
      sql.push(text);
      return result;
    },
    connect: async () => ({ query: async () => result, release: () => {} }),
  };
}

describe("postgresDedupeStore options", () => {
  it("refuses a pool without query() and connect()", () => {
    expect(() => postgresDedupeStore({} as never)).toThrow(/pg\.Pool/);
    expect(() => postgresDedupeStore({ pool: { query: async () => ({}) } } as never)).toThrow(
      /connect\(\)/,
    );
  });

  it.each([
    ["empty", ""],
    ["quote", 'events"; DROP TABLE users; --'],
    ["space", "processed events"],
    ["leading digit", "1events"],
    ["three parts", "a.b.c"],
    ["empty part", "app."],
    ["64 characters", "a".repeat(64)],
    ["not a string", 42],
  ])("refuses a table name: %s", (_, table) => {
    expect(() => postgresDedupeStore({ pool: fakePool(), table: table as string })).toThrow(
      /`table` must be a table name/,
    );
  });

  it("quotes the table name (and its schema) in every statement", async () => {
    const pool = fakePool();
    const store = postgresDedupeStore({ pool, table: "App.Processed_1" });
    await store.claim("evt_1");
    await store.complete("evt_1", "t", 60);
    await store.release("evt_1", "t");
    expect(pool.sql[0]).toContain('CREATE TABLE IF NOT EXISTS "App"."Processed_1"');
    expect(pool.sql.slice(1).every((sql) => sql.includes('"App"."Processed_1"'))).toBe(true);
  });

  it("refuses an empty id and a TTL that is not > 0", async () => {
    const store = postgresDedupeStore({ pool: fakePool() });
    await expect(store.claim("")).rejects.toThrow(/non-empty/);
    await expect(store.complete("evt", "t", -1)).rejects.toThrow(/ttlSeconds/);
    expect(() => postgresDedupeStore({ pool: fakePool(), leaseSeconds: 0 })).toThrow(
      /leaseSeconds/,
    );
    await expect(store.withClaim("evt", 0, async () => 1)).rejects.toThrow(/ttlSeconds/);
  });
});

describeWithServers(
  ["postgres"],
  "postgresDedupeStore on a real PostgreSQL",
  ({ postgres: url }) => {
    let pool: pg.Pool;
    const tables: string[] = [];
    const table = (base = "dedupe") => {
      const name = uniqueName(base);
      tables.push(name);
      return name;
    };
    const count = async (name: string, where = "true") =>
      Number((await pool.query(`SELECT count(*) AS n FROM "${name}" WHERE ${where}`)).rows[0].n);

    beforeAll(() => {
      pool = postgresPool(url, 30);
    });
    afterAll(async () => {
      for (const name of tables) await pool?.query(`DROP TABLE IF EXISTS "${name}"`);
      await pool?.end();
    });

    it("accepts a pg.Pool as is", () => {
      const typed: PostgresPool = pool;
      expect(typeof typed.connect).toBe("function");
    });

    it("creates its table on first use, with the documented columns", async () => {
      const name = table();
      const store = postgresDedupeStore({ pool, table: name });
      tokenOf(await store.claim("evt_1"));
      const { rows } = await pool.query(
        "SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position",
        [name],
      );
      expect(rows).toEqual([
        { column_name: "id", data_type: "text", is_nullable: "NO" },
        { column_name: "expires_at", data_type: "timestamp with time zone", is_nullable: "NO" },
        { column_name: "lease_token", data_type: "text", is_nullable: "YES" },
      ]);
    });

    it("a table of the one-phase store gains lease_token, and its rows are done", async () => {
      const name = table("legacy");
      await pool.query(
        `CREATE TABLE "${name}" (id text PRIMARY KEY, expires_at timestamptz NOT NULL)`,
      );
      await pool.query(`INSERT INTO "${name}" VALUES ('evt_old', now() + interval '1 hour')`);
      const store = postgresDedupeStore({ pool, table: name });
      expect(await store.claim("evt_old")).toEqual({ state: "done" });
      tokenOf(await store.claim("evt_new"));
      expect(await count(name, "lease_token IS NOT NULL")).toBe(1);
    });

    it("uses medrecords_processed_events by default", async () => {
      const id = uniqueName("evt");
      tokenOf(await postgresDedupeStore({ pool }).claim(id));
      expect(await count("medrecords_processed_events", `id = '${id}'`)).toBe(1);
      await pool.query("DELETE FROM medrecords_processed_events WHERE id = $1", [id]);
    });

    it("a claim is in progress for leaseSeconds (60 by default) until completed, then done for the TTL", async () => {
      const name = table();
      const store = postgresDedupeStore({ pool, table: name });
      const token = tokenOf(await store.claim("evt_1"));
      const lease = await pool.query(
        `SELECT lease_token, extract(epoch FROM expires_at - now())::float AS left FROM "${name}"`,
      );
      expect(lease.rows[0].lease_token).toBe(token);
      expect(lease.rows[0].left).toBeGreaterThan(DEFAULT_DEDUPE_LEASE_SECONDS - 5);
      expect(lease.rows[0].left).toBeLessThanOrEqual(DEFAULT_DEDUPE_LEASE_SECONDS);
      expect(await store.claim("evt_1")).toEqual({ state: "in_progress" });
      await store.complete("evt_1", token, 3_600);
      const done = await pool.query(
        `SELECT lease_token, extract(epoch FROM expires_at - now())::float AS left FROM "${name}"`,
      );
      expect(done.rows[0].lease_token).toBeNull();
      expect(done.rows[0].left).toBeGreaterThan(3_590);
      expect(await store.claim("evt_1")).toEqual({ state: "done" });
    });

    it("a lapsed lease is taken over; the old holder's release leaves the new lease alone", async () => {
      const name = table();
      // A short lease for the holder that dies; the taker's own lease outlasts the test.
      const dying = postgresDedupeStore({ pool, table: name, leaseSeconds: 0.2 });
      const store = postgresDedupeStore({ pool, table: name });
      const old = tokenOf(await dying.claim("evt_1"));
      expect(await store.claim("evt_1")).toEqual({ state: "in_progress" });
      await expect
        .poll(async () => (await store.claim("evt_1")).state, { timeout: 3_000, interval: 50 })
        .toBe("claimed");
      await dying.release("evt_1", old);
      expect(await store.claim("evt_1")).toEqual({ state: "in_progress" });
    });

    it("a done id is claimed again once its TTL has run out", async () => {
      const store = postgresDedupeStore({ pool, table: table() });
      await store.complete("evt_1", tokenOf(await store.claim("evt_1")), 0.3);
      expect(await store.claim("evt_1")).toEqual({ state: "done" });
      await expect
        .poll(async () => (await store.claim("evt_1")).state, { timeout: 3_000, interval: 50 })
        .toBe("claimed");
    });

    it("release gives the lease back; after complete it leaves the id done; purgeExpired deletes only expired rows", async () => {
      const name = table();
      const store = postgresDedupeStore({ pool, table: name, leaseSeconds: 0.2 });
      await store.release("evt_1", tokenOf(await store.claim("evt_1")));
      const token = tokenOf(await store.claim("evt_1"));
      await store.complete("evt_1", token, 60);
      await store.release("evt_1", token);
      expect(await store.claim("evt_1")).toEqual({ state: "done" });
      tokenOf(await store.claim("evt_short"));
      await sleep(300);
      expect(await store.purgeExpired()).toBe(1);
      expect(await count(name)).toBe(1);
    });

    it("200 parallel claims of one id: exactly one is claimed", async () => {
      const name = table();
      const stores = [
        postgresDedupeStore({ pool, table: name }),
        postgresDedupeStore({ pool, table: name }),
      ];
      for (let round = 0; round < 3; round++) {
        const results = await Promise.all(
          Array.from({ length: 200 }, (_, i) => stores[i % 2]!.claim(`evt_${round}`)),
        );
        expect(results.filter((claim) => claim.state === "claimed")).toHaveLength(1);
        expect(results.filter((claim) => claim.state === "in_progress")).toHaveLength(199);
      }
    });

    it("parallel claims of a lapsed lease: exactly one takes it over", async () => {
      const name = table();
      // A short lease for the holder that dies; the takers' own leases outlast the test.
      const dying = postgresDedupeStore({ pool, table: name, leaseSeconds: 0.1 });
      const store = postgresDedupeStore({ pool, table: name });
      tokenOf(await dying.claim("evt_1"));
      await sleep(200);
      const results = await Promise.all(Array.from({ length: 50 }, () => store.claim("evt_1")));
      expect(results.filter((claim) => claim.state === "claimed")).toHaveLength(1);
    });

    it("tables isolate: the same id is claimed once in each", async () => {
      const a = postgresDedupeStore({ pool, table: table("a") });
      const b = postgresDedupeStore({ pool, table: table("b") });
      expect((await a.claim("evt_1")).state).toBe("claimed");
      expect((await b.claim("evt_1")).state).toBe("claimed");
      expect((await a.claim("evt_1")).state).toBe("in_progress");
    });

    it("stores created at once on separate pools, with the table missing, all work", async () => {
      const name = table("race");
      const pools = Array.from({ length: 8 }, () => postgresPool(url, 2));
      try {
        for (let round = 0; round < 10; round++) {
          await pool.query(`DROP TABLE IF EXISTS "${name}"`);
          const stores = pools.map((p) => postgresDedupeStore({ pool: p, table: name }));
          const results = await Promise.all(stores.map((store) => store.claim(`evt_${round}`)));
          expect(results.filter((claim) => claim.state === "claimed")).toHaveLength(1);
        }
      } finally {
        await Promise.all(pools.map((p) => p.end()));
      }
    });

    it("a database that cannot be reached: every operation rejects with a StoreUnavailableError naming the table", async () => {
      const closed = postgresPool(`postgres://nobody@127.0.0.1:${await freePort()}/none`, 1);
      try {
        const store = postgresDedupeStore({ pool: closed, table: "billing_events" });
        for (const [operation, run] of [
          ["claim", () => store.claim("evt_1")],
          ["complete", () => store.complete("evt_1", "t", 60)],
          ["release", () => store.release("evt_1", "t")],
          ["withClaim", () => store.withClaim("evt_1", 60, async () => 1)],
          ["purgeExpired", () => store.purgeExpired()],
        ] as const) {
          const error = await run().catch((e: unknown) => e);
          expect(error).toBeInstanceOf(StoreUnavailableError);
          expect(error).toMatchObject({ operation });
          expect((error as Error).message).toContain(
            'postgresDedupeStore (table "billing_events")',
          );
        }
      } finally {
        await closed.end();
      }
    });

    it("a database that cannot be reached: the handler answers 503 naming the table, and nothing is marked done", async () => {
      const name = table("down");
      const secret = "whsec_postgres_store_down";
      const body = JSON.stringify({
        id: "evt_down",
        type: "retrieval_request.status_changed",
        created_at: new Date().toISOString(),
        api_version: "v2",
        data: {
          retrieval_request_id: "rr_1",
          case_id: null,
          public_updated_at: new Date().toISOString(),
          status: "processing",
          stage: "request_sent",
          action_required_reason: null,
        },
      });
      let calls = 0;
      const on = {
        "retrieval_request.status_changed": () => {
          calls += 1;
        },
      };
      const deliver = async (dedupe: PostgresDedupeStore) => {
        const errors: unknown[] = [];
        const handler = createWebhookHandler({
          secret,
          on,
          dedupe,
          onError: (error) => errors.push(error),
        });
        const headers = await signWebhook({ payload: body, secret });
        const response = await handler(
          new Request("https://receiver.test/hook", { method: "POST", headers, body }),
        );
        return { status: response.status, body: await response.json(), errors };
      };
      const closed = postgresPool(`postgres://nobody@127.0.0.1:${await freePort()}/none`, 1);
      try {
        const down = await deliver(postgresDedupeStore({ pool: closed, table: name }));
        expect(down).toMatchObject({ status: 503, body: { error: "store_unavailable" } });
        expect(down.errors[0]).toBeInstanceOf(StoreUnavailableError);
        expect((down.errors[0] as Error).message).toContain(
          `postgresDedupeStore (table "${name}")`,
        );
        expect(calls).toBe(0);
      } finally {
        await closed.end();
      }
      const up = await deliver(postgresDedupeStore({ pool, table: name }));
      expect(up).toMatchObject({ status: 200, body: { received: true } });
      expect(calls).toBe(1);
    });

    describe("withClaim", () => {
      async function effectsTable() {
        const name = table("effects");
        await pool.query(`CREATE TABLE "${name}" (event_id text NOT NULL, n integer NOT NULL)`);
        return name;
      }

      it("claims and commits the effect together; a second call does not run it", async () => {
        const effects = await effectsTable();
        const store = postgresDedupeStore({ pool, table: table() });
        const run = () =>
          // Annotated with the driver's own type: the pool's client is handed over as is.
          store.withClaim("evt_1", 60, async (client: pg.PoolClient) => {
            await client.query(`INSERT INTO "${effects}" VALUES ($1, 1)`, ["evt_1"]);
            return "done";
          });
        expect(await run()).toEqual({ claimed: true, value: "done" });
        expect(await run()).toEqual({ claimed: false });
        expect(await count(effects)).toBe(1);
        expect(await store.claim("evt_1")).toEqual({ state: "done" });
      });

      it("refuses an id leased through claim() elsewhere without running the effect, and runs it once the lease is released", async () => {
        const effects = await effectsTable();
        const store = postgresDedupeStore({ pool, table: table() });
        const elsewhere = tokenOf(await store.claim("evt_1"));
        const run = () =>
          store.withClaim("evt_1", 60, async (client) => {
            await client.query(`INSERT INTO "${effects}" VALUES ($1, 1)`, ["evt_1"]);
          });
        const refused = await run().catch((e: unknown) => e);
        expect(refused).toBeInstanceOf(MedRecordsError);
        expect((refused as Error).message).toMatch(/being processed elsewhere/);
        expect(await count(effects)).toBe(0);
        await store.release("evt_1", elsewhere);
        expect(await run()).toEqual({ claimed: true, value: undefined });
        expect(await count(effects)).toBe(1);
      });

      it("rolls the claim back with the effect when it throws, so a retry is processed", async () => {
        const effects = await effectsTable();
        const store = postgresDedupeStore({ pool, table: table() });
        const failure = new Error("the effect failed");
        await expect(
          store.withClaim("evt_1", 60, async (client) => {
            await client.query(`INSERT INTO "${effects}" VALUES ($1, 1)`, ["evt_1"]);
            throw failure;
          }),
        ).rejects.toBe(failure);
        expect(await count(effects)).toBe(0);
        const retry = await store.withClaim("evt_1", 60, async (client) => {
          await client.query(`INSERT INTO "${effects}" VALUES ($1, 2)`, ["evt_1"]);
          return 2;
        });
        expect(retry).toEqual({ claimed: true, value: 2 });
        expect(await count(effects, "n = 2")).toBe(1);
        expect(await count(effects)).toBe(1);
      });

      it("a statement that failed inside the effect, even caught, fails the call and claims nothing", async () => {
        const effects = await effectsTable();
        const store = postgresDedupeStore({ pool, table: table() });
        await expect(
          store.withClaim("evt_1", 60, async (client) => {
            await client.query(`INSERT INTO "${effects}" VALUES ($1, 1)`, ["evt_1"]);
            await client.query("SELECT 1/0").catch(() => undefined);
          }),
        ).rejects.toThrow(/rolled back at COMMIT/);
        expect(await count(effects)).toBe(0);
        expect((await store.claim("evt_1")).state).toBe("claimed");
      });

      it("20 concurrent calls per id run each effect exactly once, also when some fail", async () => {
        const effects = await effectsTable();
        const name = table();
        const stores = [
          postgresDedupeStore({ pool, table: name }),
          postgresDedupeStore({ pool, table: name }),
        ];
        const tries = new Map<string, number>();
        const ids = Array.from({ length: 10 }, (_, i) => `evt_${i}`);
        const calls = ids.flatMap((id, index) =>
          Array.from({ length: 20 }, (_, i) =>
            stores[i % 2]!.withClaim(id, 60, async (client) => {
              const attempt = (tries.get(id) ?? 0) + 1;
              tries.set(id, attempt);
              await client.query(`INSERT INTO "${effects}" VALUES ($1, $2)`, [id, attempt]);
              await sleep(5);
              // The first attempt at every other id fails and must leave nothing behind.
              if (index % 2 === 0 && attempt === 1) throw new Error("flaky");
            }),
          ),
        );
        const outcomes = await Promise.allSettled(calls);
        const claimed = outcomes.filter((o) => o.status === "fulfilled" && o.value.claimed);
        expect(claimed).toHaveLength(ids.length);
        const { rows } = await pool.query(
          `SELECT event_id, count(*)::int AS n FROM "${effects}" GROUP BY event_id ORDER BY event_id`,
        );
        expect(rows).toEqual(ids.map((id) => ({ event_id: id, n: 1 })));
        expect(outcomes.filter((o) => o.status === "rejected")).toHaveLength(ids.length / 2);
        // Failed attempts held no connection back.
        expect(pool.totalCount - pool.idleCount).toBe(0);
      });

      it("gives the connection back to the pool after each outcome", async () => {
        const small = postgresPool(url, 1);
        try {
          const store = postgresDedupeStore({ pool: small, table: table() });
          for (let i = 0; i < 3; i++) {
            await store.withClaim(`ok_${i}`, 60, async () => i);
            await store.withClaim(`ok_${i}`, 60, async () => i);
            await store
              .withClaim(`fail_${i}`, 60, async () => {
                throw new Error("no");
              })
              .catch(() => undefined);
          }
          expect((await store.claim("last")).state).toBe("claimed");
        } finally {
          await small.end();
        }
      });
    });
  },
);
