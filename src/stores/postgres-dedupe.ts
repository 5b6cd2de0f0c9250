import type { DedupeStore } from "../webhooks/dedupe.js";
import {
  type PostgresPool,
  type PostgresPoolClient,
  type PostgresQueryable,
  quoteTableName,
  tableCreator,
} from "./postgres.js";

/** Options of `postgresDedupeStore(options)`. */
export interface PostgresDedupeStoreOptions {
  /**
   * Your `pg` pool (`new pg.Pool(...)`); `medrecords` never imports `pg`
   * itself. Claims and releases run as single statements on it;
   * `withClaim` checks a connection out for its transaction.
   * @example new pg.Pool({ connectionString: process.env.DATABASE_URL })
   */
  pool: PostgresPool;
  /**
   * The table of claimed event ids, created on first use if missing:
   * `(id text PRIMARY KEY, expires_at timestamptz NOT NULL)`. A plain name
   * or `schema.name`, used as written (quoted, so case-sensitive).
   * @default "medrecords_processed_events"
   * @example "webhooks.processed_events"
   */
  table?: string;
}

/** What {@link PostgresDedupeStore.withClaim} resolves to. */
export type ClaimResult<T> =
  | {
      /** The claim was taken: `effect` ran and committed. */
      claimed: true;
      /** What `effect` resolved to. */
      value: T;
    }
  | {
      /** The id was claimed already: `effect` did not run. */
      claimed: false;
      /** Nothing ran, so nothing resolved. */
      value?: undefined;
    };

/** A {@link DedupeStore} in a PostgreSQL table, plus exactly-once effects in the same database. */
export interface PostgresDedupeStore extends DedupeStore {
  claim(id: string, ttlSeconds: number): Promise<boolean>;
  release(id: string): Promise<void>;
  /**
   * Claims `id` and runs `effect` in one transaction on one connection, and
   * commits both together: writes that `effect` makes through the `client`
   * it is given happen exactly once per id, whatever crashes or duplicate
   * deliveries come. When `effect` throws, everything rolls back, the claim
   * too, so a retry of the event is processed; the error is rethrown. When
   * the id is already claimed (or a concurrent transaction claims it and
   * commits), `effect` does not run and `{ claimed: false }` resolves.
   *
   * Side effects outside this database (an e-mail, an HTTP call) are not
   * covered: they may run again after a crash before COMMIT.
   *
   * `client` is what `pool.connect()` resolved; annotate it with your
   * driver's type (`pg.PoolClient`) to use its full API.
   *
   * @example
   * const { claimed } = await dedupe.withClaim(event.id, 7 * 24 * 3600, async (client) => {
   *   await client.query("UPDATE matters SET status = $1 WHERE retrieval_request_id = $2", [
   *     event.data.status,
   *     event.data.retrieval_request_id,
   *   ]);
   * });
   */
  withClaim<T, C extends PostgresPoolClient = PostgresPoolClient>(
    id: string,
    ttlSeconds: number,
    effect: (client: C) => Promise<T>,
  ): Promise<ClaimResult<T>>;
  /** Deletes the rows whose claim expired; resolves how many. Run it now and then (a claim past its expiry is taken again either way). */
  purgeExpired(): Promise<number>;
}

/**
 * A {@link DedupeStore} shared by every instance that connects to one
 * PostgreSQL database: one row per claimed event id. A claim is one
 * `INSERT ... ON CONFLICT (id) DO UPDATE ... WHERE expires_at <= now()`, so
 * concurrent claims of one id resolve true exactly once, and an expired claim
 * is taken again. Uses the database's clock for expiry.
 *
 * The table is created on first use if missing (safe when several instances
 * start at once); to create it yourself, see docs/stores.md.
 *
 * @example
 * import pg from "pg";
 * import { createWebhookHandler, postgresDedupeStore } from "medrecords/webhooks";
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * const handler = createWebhookHandler({ secret, on, dedupe: postgresDedupeStore({ pool }) });
 */
export function postgresDedupeStore(options: PostgresDedupeStoreOptions): PostgresDedupeStore {
  const { pool } = options ?? {};
  if (typeof pool?.query !== "function" || typeof pool.connect !== "function") {
    throw new TypeError(
      "postgresDedupeStore: `pool` must be a pg.Pool (an object with query() and connect()).",
    );
  }
  const table = quoteTableName(
    options.table ?? "medrecords_processed_events",
    "postgresDedupeStore",
  );
  const ensureTable = tableCreator(
    pool,
    `CREATE TABLE IF NOT EXISTS ${table} (id text PRIMARY KEY, expires_at timestamptz NOT NULL)`,
  );
  // Inserts the id, or takes over a row whose claim expired; no row is touched otherwise.
  const claimSql =
    `INSERT INTO ${table} AS claimed (id, expires_at) ` +
    "VALUES ($1, now() + make_interval(secs => $2::double precision)) " +
    "ON CONFLICT (id) DO UPDATE SET expires_at = EXCLUDED.expires_at " +
    "WHERE claimed.expires_at <= now()";

  const claimOn = async (queryable: PostgresQueryable, id: string, ttlSeconds: number) => {
    const { rowCount } = await queryable.query(claimSql, [checkId(id), checkTtl(ttlSeconds)]);
    return rowCount === 1;
  };

  return {
    async claim(id, ttlSeconds) {
      await ensureTable();
      return claimOn(pool, id, ttlSeconds);
    },

    async release(id) {
      await ensureTable();
      await pool.query(`DELETE FROM ${table} WHERE id = $1`, [checkId(id)]);
    },

    async withClaim(id, ttlSeconds, effect) {
      checkId(id);
      checkTtl(ttlSeconds);
      if (typeof effect !== "function") {
        throw new TypeError("postgresDedupeStore.withClaim: `effect` must be a function.");
      }
      await ensureTable();
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        try {
          await client.query("BEGIN");
          if (!(await claimOn(client, id, ttlSeconds))) {
            await client.query("ROLLBACK");
            return { claimed: false };
          }
          // The pool's own client type, as the caller annotated it.
          const value = await effect(client as Parameters<typeof effect>[0]);
          const committed = await client.query("COMMIT");
          // COMMIT of a transaction in which a statement failed (an error the
          // effect caught) rolls back without raising: the effect did not happen.
          if (committed.command === "ROLLBACK") {
            throw new Error(
              "postgresDedupeStore.withClaim: the transaction was rolled back at COMMIT because a " +
                "statement in the effect failed; nothing was claimed.",
            );
          }
          return { claimed: true, value };
        } catch (error) {
          try {
            await client.query("ROLLBACK");
          } catch (rollbackError) {
            // The connection is unusable: the pool must close it, not reuse it.
            broken =
              rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
          }
          throw error;
        }
      } finally {
        client.release(broken);
      }
    },

    async purgeExpired() {
      await ensureTable();
      const { rowCount } = await pool.query(`DELETE FROM ${table} WHERE expires_at <= now()`);
      return rowCount ?? 0;
    },
  };
}

function checkId(id: unknown): string {
  if (typeof id !== "string" || id === "") {
    throw new TypeError("postgresDedupeStore: the event id must be a non-empty string.");
  }
  return id;
}

function checkTtl(ttlSeconds: unknown): number {
  if (typeof ttlSeconds !== "number" || !(ttlSeconds > 0) || !Number.isFinite(ttlSeconds)) {
    throw new TypeError("postgresDedupeStore: `ttlSeconds` must be a finite number > 0.");
  }
  return ttlSeconds;
}
