/** postgresCheckpointStore against a real PostgreSQL (MEDRECORDS_TEST_POSTGRES_URL). */
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Checkpoint,
  CheckpointLeaseLostError,
  DEFAULT_CHECKPOINT_LEASE_SECONDS,
  MedRecordsError,
  postgresCheckpointStore,
  StoreUnavailableError,
} from "../../src/index.js";
import {
  checkpointLeaseContract,
  drivesThePollerAcrossRestarts,
} from "./checkpoint-lease-contract.js";
import { describeWithServers, postgresPool, uniqueName } from "./servers.js";

const FIRST: Checkpoint = {
  created_at: "2026-03-01T10:00:00.123456Z",
  ids_at_created_at: ["evt_a", "evt_b"],
};
const SECOND: Checkpoint = {
  created_at: "2026-03-02T08:30:00+02:00",
  ids_at_created_at: ["evt_c"],
};

describe("postgresCheckpointStore options", () => {
  const pool = { query: async () => ({ rowCount: 0, rows: [] }) };

  it("refuses a missing pool, an empty name and a bad table name", () => {
    expect(() => postgresCheckpointStore({} as never)).toThrow(/pg\.Pool/);
    expect(() => postgresCheckpointStore({ pool, name: "" })).toThrow(/`name`/);
    expect(() => postgresCheckpointStore({ pool, table: "checkpoints; DROP TABLE x" })).toThrow(
      /`table` must be a table name/,
    );
  });

  it("refuses a lease of no time", () => {
    expect(() => postgresCheckpointStore({ pool, leaseSeconds: 0 })).toThrow(/`leaseSeconds`/);
    expect(postgresCheckpointStore({ pool }).leaseSeconds).toBe(DEFAULT_CHECKPOINT_LEASE_SECONDS);
  });

  it("wraps a database failure in StoreUnavailableError naming the store", async () => {
    const refusing = {
      query: async () => {
        throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), {
          code: "ECONNREFUSED",
        });
      },
    };
    const store = postgresCheckpointStore({ pool: refusing, table: "cp", name: "events" });
    for (const call of [() => store.load(), () => store.acquire("me")]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as StoreUnavailableError).store).toBe(
        'postgresCheckpointStore (table "cp", name "events")',
      );
      expect((error as Error).message).toContain("ECONNREFUSED");
    }
  });

  it("refuses to save something that is not a checkpoint", async () => {
    const store = postgresCheckpointStore({ pool });
    await expect(store.save({ created_at: "yesterday" } as never)).rejects.toBeInstanceOf(
      MedRecordsError,
    );
  });
});

describeWithServers(
  ["postgres"],
  "postgresCheckpointStore on a real PostgreSQL",
  ({ postgres: url }) => {
    let pool: pg.Pool;
    const tables: string[] = [];
    const table = () => {
      const name = uniqueName("checkpoints");
      tables.push(name);
      return name;
    };

    beforeAll(() => {
      pool = postgresPool(url);
    });
    afterAll(async () => {
      for (const name of tables) await pool?.query(`DROP TABLE IF EXISTS "${name}"`);
      await pool?.end();
    });

    it("loads null before any save, then what was saved, exactly", async () => {
      const store = postgresCheckpointStore({ pool, table: table() });
      expect(await store.load()).toBeNull();
      await store.save(FIRST);
      expect(await store.load()).toEqual(FIRST);
      // A new store (a restarted process) reads the same row.
      expect(await postgresCheckpointStore({ pool, table: tables.at(-1)! }).load()).toEqual(FIRST);
    });

    it("save replaces the row (an upsert): one row per name", async () => {
      const name = table();
      const store = postgresCheckpointStore({ pool, table: name });
      await store.save(FIRST);
      await store.save(SECOND);
      expect(await store.load()).toEqual(SECOND);
      const { rows } = await pool.query(`SELECT name, checkpoint FROM "${name}"`);
      expect(rows).toEqual([{ name: "default", checkpoint: SECOND }]);
    });

    it("creates its table with the documented columns; uses medrecords_checkpoints by default", async () => {
      const name = table();
      await postgresCheckpointStore({ pool, table: name }).load();
      const { rows } = await pool.query(
        "SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position",
        [name],
      );
      expect(rows).toEqual([
        { column_name: "name", data_type: "text", is_nullable: "NO" },
        { column_name: "checkpoint", data_type: "jsonb", is_nullable: "NO" },
        { column_name: "updated_at", data_type: "timestamp with time zone", is_nullable: "NO" },
        { column_name: "lease_owner", data_type: "text", is_nullable: "YES" },
        { column_name: "lease_fence", data_type: "bigint", is_nullable: "NO" },
        {
          column_name: "lease_expires_at",
          data_type: "timestamp with time zone",
          is_nullable: "YES",
        },
      ]);

      const own = uniqueName("poller");
      const store = postgresCheckpointStore({ pool, name: own });
      await store.save(FIRST);
      const saved = await pool.query(
        "SELECT checkpoint FROM medrecords_checkpoints WHERE name = $1",
        [own],
      );
      expect(saved.rows).toEqual([{ checkpoint: FIRST }]);
      await pool.query("DELETE FROM medrecords_checkpoints WHERE name = $1", [own]);
    });

    it("gives a table of an earlier version its lease columns, keeping its checkpoint", async () => {
      const name = table();
      await pool.query(
        `CREATE TABLE "${name}" (name text PRIMARY KEY, checkpoint jsonb NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())`,
      );
      await pool.query(`INSERT INTO "${name}" (name, checkpoint) VALUES ('default', $1)`, [FIRST]);
      const store = postgresCheckpointStore({ pool, table: name });
      const fence = (await store.acquire("owner-a")) as number;
      expect(fence).toBe(1);
      expect(await store.load()).toEqual(FIRST);
      await store.save(SECOND, fence);
      expect(await store.load()).toEqual(SECOND);
    });

    describe("leases", () => {
      checkpointLeaseContract(() => {
        const name = table();
        return {
          // The database's clock runs between two steps: "just before" is a second before.
          marginMs: 1_000,
          async stores(count, leaseSeconds) {
            return Array.from({ length: count }, () =>
              postgresCheckpointStore({ pool, table: name, leaseSeconds }),
            );
          },
          async elapse(ms) {
            await pool.query(
              `UPDATE "${name}" SET lease_expires_at = lease_expires_at - $1::double precision * interval '1 millisecond'`,
              [ms],
            );
          },
        };
      });
    });

    it("names and tables isolate checkpoints", async () => {
      const name = table();
      const a = postgresCheckpointStore({ pool, table: name, name: "a" });
      const b = postgresCheckpointStore({ pool, table: name, name: "b" });
      const other = postgresCheckpointStore({ pool, table: table(), name: "a" });
      await a.save(FIRST);
      await b.save(SECOND);
      expect(await a.load()).toEqual(FIRST);
      expect(await b.load()).toEqual(SECOND);
      expect(await other.load()).toBeNull();
    });

    it("stores created at once with the table missing all work, and concurrent saves end at the newest", async () => {
      const name = table();
      const pools = Array.from({ length: 6 }, () => postgresPool(url, 1));
      try {
        const stores = pools.map((p) => postgresCheckpointStore({ pool: p, table: name }));
        const saved = stores.map((_, i) => ({
          created_at: `2026-03-0${i + 1}T00:00:00Z`,
          ids_at_created_at: [`evt_${i}`],
        }));
        const outcomes = await Promise.allSettled(stores.map((store, i) => store.save(saved[i]!)));
        // A save that lost the race to a newer one was refused rather than moving the row back.
        for (const outcome of outcomes) {
          if (outcome.status === "rejected") {
            expect(outcome.reason).toBeInstanceOf(CheckpointLeaseLostError);
            expect(outcome.reason.reason).toBe("backwards");
          }
        }
        expect(await stores[0]!.load()).toEqual(saved.at(-1));
        const { rows } = await pool.query(`SELECT count(*)::int AS n FROM "${name}"`);
        expect(rows).toEqual([{ n: 1 }]);
      } finally {
        await Promise.all(pools.map((p) => p.end()));
      }
    });

    it("a corrupt row is an error naming it, never a silent restart", async () => {
      const name = table();
      const store = postgresCheckpointStore({ pool, table: name, name: "events" });
      await store.save(FIRST);
      await pool.query(`UPDATE "${name}" SET checkpoint = '{"created_at": 42}'::jsonb`);
      const error = await store.load().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MedRecordsError);
      expect((error as Error).message).toContain(`The checkpoint "events" in the table ${name}`);
    });

    drivesThePollerAcrossRestarts(() => {
      const name = table();
      return () => postgresCheckpointStore({ pool, table: name });
    });
  },
);
