import { type CheckpointStore, parseCheckpoint } from "../poller/checkpoint.js";
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
   * @default "default"
   * @example "events:firm-42"
   */
  name?: string;
  /**
   * The table, created on first use if missing:
   * `(name text PRIMARY KEY, checkpoint jsonb NOT NULL, updated_at timestamptz NOT NULL)`.
   * A plain name or `schema.name`, used as written (quoted, so case-sensitive).
   * @default "medrecords_checkpoints"
   * @example "poller.checkpoints"
   */
  table?: string;
}

/**
 * A {@link CheckpointStore} in a PostgreSQL row, for a catch-up poller whose
 * instances come and go (or move between machines): `save` is one upsert,
 * durable when it resolves; `load` reads the row back and checks its shape,
 * so a corrupt row is an error rather than a silent restart from the oldest
 * event. The table is created on first use if missing; see docs/stores.md.
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
export function postgresCheckpointStore(options: PostgresCheckpointStoreOptions): CheckpointStore {
  const { pool } = options ?? {};
  if (typeof pool?.query !== "function") {
    throw new TypeError(
      "postgresCheckpointStore: `pool` must be a pg.Pool or pg.Client (an object with query()).",
    );
  }
  const name = options.name ?? "default";
  if (typeof name !== "string" || name === "") {
    throw new TypeError("postgresCheckpointStore: `name` must be a non-empty string.");
  }
  const rawTable = options.table ?? "medrecords_checkpoints";
  const table = quoteTableName(rawTable, "postgresCheckpointStore");
  const ensureTable = tableCreator(
    pool,
    `CREATE TABLE IF NOT EXISTS ${table} (name text PRIMARY KEY, checkpoint jsonb NOT NULL, ` +
      "updated_at timestamptz NOT NULL DEFAULT now())",
  );
  const where = `The checkpoint ${JSON.stringify(name)} in the table ${rawTable}`;

  return {
    description: where,
    async load() {
      await ensureTable();
      const { rows } = await pool.query(`SELECT checkpoint FROM ${table} WHERE name = $1`, [name]);
      if (rows.length === 0) return null;
      let value: unknown = (rows[0] as { checkpoint: unknown }).checkpoint;
      // A pool whose type parsers leave jsonb as text.
      if (typeof value === "string") {
        try {
          value = JSON.parse(value);
        } catch {
          // parseCheckpoint reports it.
        }
      }
      return parseCheckpoint(value, where);
    },

    async save(checkpoint) {
      const text = JSON.stringify(parseCheckpoint(checkpoint, "The checkpoint to save"));
      await ensureTable();
      await pool.query(
        `INSERT INTO ${table} (name, checkpoint, updated_at) VALUES ($1, $2::jsonb, now()) ` +
          "ON CONFLICT (name) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, updated_at = EXCLUDED.updated_at",
        [name, text],
      );
    },
  };
}
