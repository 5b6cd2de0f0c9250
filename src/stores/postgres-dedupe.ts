import { withOwnMethods } from "../internal/own-methods.js";
import {
  checkLeaseSeconds,
  type DedupeClaim,
  type DedupeStore,
  newLeaseToken,
} from "../shared/dedupe-store.js";
import { MedRecordsError } from "../shared/errors.js";
import { StoreUnavailableError } from "../shared/store-error.js";
import { guardPoolErrors } from "./guards.js";
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
   * itself. Claims, completions and releases run as single statements on it;
   * `withClaim` checks a connection out for its transaction.
   * @example new pg.Pool({ connectionString: process.env.DATABASE_URL })
   */
  pool: PostgresPool;
  /**
   * The table of event ids, created on first use if missing:
   * `(id text PRIMARY KEY, expires_at timestamptz NOT NULL, lease_token text)`;
   * a table from an earlier version (without `lease_token`) gains the column.
   * A plain name or `schema.name`, used as written (quoted, so case-sensitive).
   * @default "medrecords_processed_events"
   * @example "webhooks.processed_events"
   */
  table?: string;
  /**
   * How long a claim's in-progress lease lasts, in seconds (by the
   * database's clock); then another claim of the id takes it over. Longer
   * than your handler takes, short enough to retry soon after a crash.
   * @default DEFAULT_DEDUPE_LEASE_SECONDS
   */
  leaseSeconds?: number;
}

/** What {@link PostgresDedupeStore.withClaim} resolves to. */
export type ClaimResult<T> =
  | {
      /** The claim was taken: `effect` ran and committed, and the id is done. */
      claimed: true;
      /** What `effect` resolved to. */
      value: T;
    }
  | {
      /** The id is done already: `effect` did not run. */
      claimed: false;
      /** Nothing ran, so nothing resolved. */
      value?: undefined;
    };

/** A {@link DedupeStore} in a PostgreSQL table, plus exactly-once effects in the same database. */
export interface PostgresDedupeStore extends DedupeStore {
  /**
   * Claims `id`, runs `effect` and marks the id done, in one transaction on
   * one connection, and commits them together: writes that `effect` makes
   * through the `client` it is given happen exactly once per id, whatever
   * crashes or duplicate deliveries come. When `effect` throws, everything
   * rolls back, the claim too, so a retry of the event is processed; the
   * error is rethrown. When the id is done already (or a concurrent
   * transaction claims it and commits), `effect` does not run and
   * `{ claimed: false }` resolves. When another caller holds a live lease on
   * the id through `claim()` (a webhook handler or poller sharing the table
   * is processing it right now), `effect` does not run and the call rejects
   * with a `MedRecordsError`, so that the event is retried rather than taken
   * for done.
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
  /** Deletes the rows whose lease or done TTL expired; resolves how many. Run it now and then (an expired row is taken again by a claim either way). */
  purgeExpired(): Promise<number>;
}

/**
 * A {@link DedupeStore} shared by every instance that connects to one
 * PostgreSQL database: one row per event id, whose `lease_token` is set
 * while a claim is in progress (until `expires_at`, `leaseSeconds` after the
 * claim) and null once done (until `expires_at`, the TTL after completion).
 *
 * - `claim` is one `INSERT ... ON CONFLICT (id) DO UPDATE` that takes the row
 *   with a new token when it is missing or expired and leaves it unchanged
 *   otherwise, `RETURNING lease_token`: this claim's token means claimed,
 *   null done, another token in progress. Concurrent claims of one id give
 *   exactly one `claimed`.
 * - `complete` is `UPDATE ... SET lease_token = NULL, expires_at = now() + ttl`.
 * - `release` is `DELETE ... WHERE id = $1 AND lease_token = $2`: a lease
 *   that lapsed and was taken by another caller is left alone.
 *
 * Uses the database's clock for expiry. The table is created on first use if
 * missing, and a table of an earlier version gains the `lease_token` column
 * (its rows count as done); both are safe when several instances start at
 * once. To create it yourself, see docs/stores.md. Failures of the database
 * reject with a `StoreUnavailableError` naming the store and its table.
 *
 * @example
 * import pg from "pg";
 * import { createWebhookHandler, postgresDedupeStore } from "medrecords/webhooks";
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * const handler = createWebhookHandler({ secret, on, dedupe: postgresDedupeStore({ pool }) });
 */
export function postgresDedupeStore(options: PostgresDedupeStoreOptions): PostgresDedupeStore {
  return withOwnMethods(new PostgresDedupe(options));
}

/**
 * An error that leaves `withClaim` as it is (the effect's own, or the call's
 * refusal), where every other failure names the store.
 */
class PassThrough {
  constructor(readonly error: unknown) {}
}

/** The store `postgresDedupeStore` returns. */
class PostgresDedupe implements PostgresDedupeStore {
  readonly #pool: PostgresPool;
  readonly #table: string;
  readonly #leaseSeconds: number;
  readonly #name: string;
  readonly #createTable: () => Promise<void>;
  readonly #addLeaseColumn: () => Promise<void>;
  readonly #claimSql: string;
  readonly #completeSql: string;

  constructor(options: PostgresDedupeStoreOptions) {
    const { pool } = options ?? {};
    if (typeof pool?.query !== "function" || typeof pool.connect !== "function") {
      throw new TypeError(
        "postgresDedupeStore: `pool` must be a pg.Pool (an object with query() and connect()).",
      );
    }
    guardPoolErrors(pool);
    this.#pool = pool;
    const tableName = options.table ?? "medrecords_processed_events";
    const table = quoteTableName(tableName, "postgresDedupeStore");
    this.#table = table;
    this.#leaseSeconds = checkLeaseSeconds(options.leaseSeconds, "postgresDedupeStore");
    this.#name = `postgresDedupeStore (table ${JSON.stringify(tableName)})`;
    this.#createTable = tableCreator(
      pool,
      `CREATE TABLE IF NOT EXISTS ${table} (id text PRIMARY KEY, expires_at timestamptz NOT NULL, lease_token text)`,
    );
    // A table of the one-phase store gains the column; its rows (lease_token null) are done.
    // Checked first, so that a table already up to date never waits on ALTER's lock.
    this.#addLeaseColumn = tableCreator(
      pool,
      "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_attribute " +
        `WHERE attrelid = to_regclass('${table}') AND attname = 'lease_token' AND NOT attisdropped) ` +
        `THEN ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS lease_token text; END IF; END $$`,
    );
    // Takes a missing or expired row with this claim's token; leaves a live one as it is.
    this.#claimSql =
      `INSERT INTO ${table} AS held (id, expires_at, lease_token) ` +
      "VALUES ($1, now() + make_interval(secs => $2::double precision), $3) " +
      "ON CONFLICT (id) DO UPDATE SET " +
      "expires_at = CASE WHEN held.expires_at <= now() THEN EXCLUDED.expires_at ELSE held.expires_at END, " +
      "lease_token = CASE WHEN held.expires_at <= now() THEN EXCLUDED.lease_token ELSE held.lease_token END " +
      "RETURNING lease_token";
    this.#completeSql =
      `UPDATE ${table} SET lease_token = NULL, ` +
      "expires_at = now() + make_interval(secs => $2::double precision) WHERE id = $1";
  }

  async claim(id: string): Promise<DedupeClaim> {
    checkId(id);
    return this.#store("claim", () => this.#claimOn(this.#pool, id));
  }

  async complete(id: string, _token: string | undefined, ttlSeconds: number): Promise<void> {
    checkId(id);
    checkTtl(ttlSeconds);
    // Done whoever holds the lease now: the event was processed.
    await this.#store("complete", () => this.#pool.query(this.#completeSql, [id, ttlSeconds]));
  }

  async release(id: string, token: string): Promise<void> {
    checkId(id);
    await this.#store("release", () =>
      this.#pool.query(`DELETE FROM ${this.#table} WHERE id = $1 AND lease_token = $2`, [
        id,
        token,
      ]),
    );
  }

  async withClaim<T, C extends PostgresPoolClient = PostgresPoolClient>(
    id: string,
    ttlSeconds: number,
    effect: (client: C) => Promise<T>,
  ): Promise<ClaimResult<T>> {
    checkId(id);
    checkTtl(ttlSeconds);
    if (typeof effect !== "function") {
      throw new TypeError("postgresDedupeStore.withClaim: `effect` must be a function.");
    }
    const client = await this.#store("withClaim", () => this.#pool.connect());
    // Checked out, it has no pool listening for its `error` either (guards.ts).
    guardPoolErrors(client);
    let broken: Error | undefined;
    try {
      return await this.#transaction(client, id, ttlSeconds, effect);
    } catch (error) {
      broken = await rollback(client);
      if (error instanceof PassThrough) throw error.error;
      throw new StoreUnavailableError(this.#name, "withClaim", error);
    } finally {
      client.release(broken);
    }
  }

  async purgeExpired(): Promise<number> {
    const { rowCount } = await this.#store("purgeExpired", () =>
      this.#pool.query(`DELETE FROM ${this.#table} WHERE expires_at <= now()`),
    );
    return rowCount ?? 0;
  }

  async #store<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      await this.#createTable();
      await this.#addLeaseColumn();
      return await run();
    } catch (error) {
      throw new StoreUnavailableError(this.#name, operation, error);
    }
  }

  async #claimOn(queryable: PostgresQueryable, id: string): Promise<DedupeClaim> {
    const token = newLeaseToken();
    const { rows } = await queryable.query(this.#claimSql, [id, this.#leaseSeconds, token]);
    const held: unknown = rows[0]?.lease_token;
    if (held === token) return { state: "claimed", token };
    return held === null ? { state: "done" } : { state: "in_progress" };
  }

  /** Claim, effect, done and COMMIT on `client`; what is to pass as it is comes as a `PassThrough`. */
  async #transaction<T, C extends PostgresPoolClient>(
    client: PostgresPoolClient,
    id: string,
    ttlSeconds: number,
    effect: (client: C) => Promise<T>,
  ): Promise<ClaimResult<T>> {
    await client.query("BEGIN");
    const claim = await this.#claimOn(client, id);
    if (claim.state !== "claimed") {
      await client.query("ROLLBACK");
      if (claim.state === "done") return { claimed: false };
      throw new PassThrough(
        new MedRecordsError(
          `postgresDedupeStore.withClaim: event ${id} is being processed elsewhere (a live lease ` +
            "taken with claim()); the effect did not run. Retry it later, as the webhook handler " +
            "(409) and the poller (which stops before it) do.",
        ),
      );
    }
    let value: T;
    try {
      // The pool's own client type, as the caller annotated it.
      value = await effect(client as C);
    } catch (error) {
      throw new PassThrough(error);
    }
    await this.#markDoneAndCommit(client, id, ttlSeconds);
    return { claimed: true, value };
  }

  /**
   * A statement of the effect failed (an error the effect caught): the
   * transaction is aborted, so marking done fails (25P02), or COMMIT rolls
   * back without raising. Either way the effect did not happen.
   */
  async #markDoneAndCommit(client: PostgresPoolClient, id: string, ttlSeconds: number) {
    const aborted = () =>
      new PassThrough(
        new Error(
          "postgresDedupeStore.withClaim: the transaction was rolled back at COMMIT because a " +
            "statement in the effect failed; nothing was claimed.",
        ),
      );
    try {
      await client.query(this.#completeSql, [id, ttlSeconds]);
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code === "25P02") throw aborted();
      throw error;
    }
    const committed = await client.query("COMMIT");
    if (committed.command === "ROLLBACK") throw aborted();
  }
}

/** Rolls back; the error when that fails (the connection is unusable: the pool must close it). */
async function rollback(client: PostgresPoolClient): Promise<Error | undefined> {
  try {
    await client.query("ROLLBACK");
    return undefined;
  } catch (rollbackError) {
    return rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
  }
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
