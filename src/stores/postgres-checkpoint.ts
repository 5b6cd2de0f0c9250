import { withOwnMethods } from "../internal/own-methods.js";
import {
  CheckpointLeaseLostError,
  type CheckpointLeaseLostReason,
  type CheckpointLeaseStore,
  fenceArgument,
  leaseSecondsOption,
  ownerArgument,
} from "../shared/checkpoint-lease.js";
import type { Checkpoint } from "../shared/checkpoint-store.js";
import { StoreUnavailableError } from "../shared/store-error.js";
import { guardPoolErrors } from "./guards.js";
import { parseCheckpoint } from "./parse-checkpoint.js";
import { type PostgresQueryable, quoteTableName, tableCreator } from "./postgres.js";

/** Options of `postgresCheckpointStore(options)`. */
export interface PostgresCheckpointStoreOptions {
  /**
   * Your `pg` pool or client (`new pg.Pool(...)`); `medrecords` never
   * imports `pg` itself.
   * @example new pg.Pool({ connectionString: process.env.DATABASE_URL })
   */
  pool: PostgresQueryable;
  /**
   * Which checkpoint of the table this store reads and writes: one row per
   * name, so several pollers (say, one per API key) can share the table.
   * Every instance that must take turns on one checkpoint uses the same name.
   * @default "default"
   * @example "events:firm-42"
   */
  name?: string;
  /**
   * The table, created on first use if missing:
   * `(name text PRIMARY KEY, checkpoint jsonb NOT NULL, updated_at timestamptz NOT NULL,
   * lease_owner text, lease_fence bigint NOT NULL, lease_expires_at timestamptz)`;
   * the lease columns are added to a table created by an earlier version.
   * A plain name or `schema.name`, used as written (quoted, so case-sensitive).
   * @default "medrecords_checkpoints"
   * @example "poller.checkpoints"
   */
  table?: string;
  /**
   * Seconds a poller's lease lasts without renewal: the longest another
   * instance waits to take over after the holder died.
   * @default DEFAULT_CHECKPOINT_LEASE_SECONDS
   */
  leaseSeconds?: number;
}

/**
 * A {@link CheckpointLeaseStore} in a PostgreSQL row, for a catch-up poller
 * on several instances (or one that moves between machines): one instance
 * holds the lease and polls, the others wait and take over within
 * `leaseSeconds` after it died. Every operation is one statement, timed on
 * the database's clock: `acquire` takes or renews the lease, `save` writes
 * only for the current fence, within the lease, and forward (never to an
 * earlier `created_at`), durable when it resolves. `load` reads the row back
 * and checks its shape, so a corrupt row is an error rather than a silent
 * restart from the oldest event. The table is created (or given its lease
 * columns) on first use; see docs/stores.md.
 *
 * Failures of the database are `StoreUnavailableError`s naming the store.
 *
 * @example
 * import pg from "pg";
 * import { MedRecords, postgresCheckpointStore } from "medrecords";
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * const poller = new MedRecords().events.catchUp({
 *   checkpoint: postgresCheckpointStore({ pool }),
 *   onEvent: async (event) => handle(event),
 * });
 */
export function postgresCheckpointStore(
  options: PostgresCheckpointStoreOptions,
): CheckpointLeaseStore {
  return withOwnMethods(new PostgresCheckpoint(options));
}

const FN = "postgresCheckpointStore";
// A live lease, on the database's clock.
const LIVE = "c.lease_owner IS NOT NULL AND c.lease_expires_at > now()";
// Forward only. A row made by acquire() before any save holds JSON null. Instants compare as
// timestamptz (to the microsecond, PostgreSQL's precision), never as text.
const FORWARD =
  "(jsonb_typeof(c.checkpoint) <> 'object' OR " +
  "(c.checkpoint->>'created_at')::timestamptz <= $3::timestamptz)";

/** The store `postgresCheckpointStore` returns: one named row of the table. */
class PostgresCheckpoint implements CheckpointLeaseStore {
  readonly description: string;
  readonly leaseSeconds: number;
  readonly #pool: PostgresQueryable;
  readonly #name: string;
  readonly #table: string;
  readonly #storeName: string;
  readonly #ensureTable: () => Promise<void>;

  constructor(options: PostgresCheckpointStoreOptions) {
    const { pool } = options ?? {};
    if (typeof pool?.query !== "function") {
      throw new TypeError(
        `${FN}: \`pool\` must be a pg.Pool or pg.Client (an object with query()).`,
      );
    }
    guardPoolErrors(pool);
    const name = options.name ?? "default";
    if (typeof name !== "string" || name === "") {
      throw new TypeError(`${FN}: \`name\` must be a non-empty string.`);
    }
    this.leaseSeconds = leaseSecondsOption(options.leaseSeconds, FN);
    const rawTable = options.table ?? "medrecords_checkpoints";
    const table = quoteTableName(rawTable, FN);
    this.#pool = pool;
    this.#name = name;
    this.#table = table;
    // One query string, two statements (simple protocol): the table, then the lease
    // columns for a table an earlier version created.
    this.#ensureTable = tableCreator(
      pool,
      `CREATE TABLE IF NOT EXISTS ${table} (name text PRIMARY KEY, checkpoint jsonb NOT NULL, ` +
        "updated_at timestamptz NOT NULL DEFAULT now()); " +
        `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS lease_owner text, ` +
        "ADD COLUMN IF NOT EXISTS lease_fence bigint NOT NULL DEFAULT 0, " +
        "ADD COLUMN IF NOT EXISTS lease_expires_at timestamptz",
    );
    this.description = `The checkpoint ${JSON.stringify(name)} in the table ${rawTable}`;
    this.#storeName = `${FN} (table ${JSON.stringify(rawTable)}, name ${JSON.stringify(name)})`;
  }

  async load(): Promise<Checkpoint | null> {
    const { rows } = await this.#query(
      "load",
      `SELECT checkpoint FROM ${this.#table} WHERE name = $1`,
      [this.#name],
    );
    let value: unknown = (rows[0] as { checkpoint: unknown } | undefined)?.checkpoint ?? null;
    // A pool whose type parsers leave jsonb as text.
    if (typeof value === "string") {
      try {
        value = JSON.parse(value);
      } catch {
        // parseCheckpoint reports it.
      }
    }
    // No row, or a row acquire() made before the first save.
    if (value === null) return null;
    return parseCheckpoint(value, this.description);
  }

  async save(checkpoint: Checkpoint, fence?: number): Promise<void> {
    const valid = parseCheckpoint(checkpoint, "The checkpoint to save");
    const token = fenceArgument(fence, FN);
    const values = [this.#name, JSON.stringify(valid), valid.created_at];
    const result =
      token === undefined
        ? await this.#query(
            "save",
            `INSERT INTO ${this.#table} AS c (name, checkpoint, updated_at) VALUES ($1, $2::jsonb, now()) ` +
              "ON CONFLICT (name) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, updated_at = now() " +
              `WHERE NOT (${LIVE}) AND ${FORWARD}`,
            values,
          )
        : await this.#query(
            "save",
            `UPDATE ${this.#table} AS c SET checkpoint = $2::jsonb, updated_at = now() ` +
              `WHERE c.name = $1 AND c.lease_fence = $4 AND ${LIVE} AND ${FORWARD}`,
            [...values, token],
          );
    if (result.rowCount === 1) return;
    const reason = await this.#reasonOf(token);
    throw new CheckpointLeaseLostError(
      this.description,
      reason,
      reason === "backwards" ? `${valid.created_at} is before the saved checkpoint` : "",
    );
  }

  async acquire(owner: string): Promise<number | null> {
    const who = ownerArgument(owner, FN);
    // One statement: the row made if missing (checkpoint JSON null until the first save);
    // the same owner keeps its fence, a new one increments it; a live lease of another
    // owner leaves the row alone and returns nothing.
    const { rows } = await this.#query(
      "acquire",
      `INSERT INTO ${this.#table} AS c (name, checkpoint, updated_at, lease_owner, lease_fence, lease_expires_at) ` +
        "VALUES ($1, 'null'::jsonb, now(), $2, 1, now() + $3::double precision * interval '1 second') " +
        "ON CONFLICT (name) DO UPDATE SET " +
        "lease_fence = CASE WHEN c.lease_owner = EXCLUDED.lease_owner THEN c.lease_fence ELSE c.lease_fence + 1 END, " +
        "lease_owner = EXCLUDED.lease_owner, lease_expires_at = EXCLUDED.lease_expires_at " +
        `WHERE c.lease_owner = EXCLUDED.lease_owner OR NOT (${LIVE}) ` +
        "RETURNING c.lease_fence::text AS fence",
      [this.#name, who, this.leaseSeconds],
    );
    const row = rows[0] as { fence: string } | undefined;
    return row === undefined ? null : Number(row.fence);
  }

  async release(owner: string): Promise<void> {
    const who = ownerArgument(owner, FN);
    await this.#query(
      "release",
      `UPDATE ${this.#table} SET lease_owner = NULL, lease_expires_at = NULL WHERE name = $1 AND lease_owner = $2`,
      [this.#name, who],
    );
  }

  async #query(operation: string, text: string, values: unknown[]) {
    try {
      await this.#ensureTable();
      return await this.#pool.query(text, values);
    } catch (error) {
      throw new StoreUnavailableError(this.#storeName, operation, error);
    }
  }

  /** Why a refused save was refused: read after the fact, for the message only. */
  async #reasonOf(fence: number | undefined): Promise<CheckpointLeaseLostReason> {
    const { rows } = await this.#query(
      "save",
      `SELECT c.lease_fence::text AS fence, (${LIVE}) AS live FROM ${this.#table} AS c WHERE c.name = $1`,
      [this.#name],
    );
    const row = rows[0] as { fence: string; live: boolean } | undefined;
    if (fence === undefined) return row?.live ? "held_by_another" : "backwards";
    if (row === undefined || Number(row.fence) !== fence) return "taken_over";
    return row.live ? "backwards" : "expired";
  }
}
