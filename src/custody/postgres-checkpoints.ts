import type { CustodyLogError } from "../core/errors.js";
import { type PostgresPool, quoteTableName, tableCreator } from "../stores/postgres.js";
import type { CheckpointStore, StoredCheckpoint } from "./checkpoint.js";

/**
 * A PostgreSQL log's checkpoints: the table `<table>_checkpoints`, created
 * on the first checkpoint: `(seq bigint PRIMARY KEY, hash text, time
 * timestamptz, token text)`, the token in base64, one row per witnessed seq.
 */
export class PostgresCheckpoints implements CheckpointStore {
  readonly #pool: PostgresPool;
  readonly #table: string;
  readonly #ensureTable: () => Promise<void>;
  readonly #fail: (reason: string, extra?: { cause?: unknown }) => CustodyLogError;
  #unusable: Error | undefined;

  constructor(
    pool: PostgresPool,
    table: string,
    fail: (reason: string, extra?: { cause?: unknown }) => CustodyLogError,
  ) {
    this.#pool = pool;
    // A log table whose name leaves no room for the suffix still works; only checkpoints are refused.
    let quoted: string;
    try {
      quoted = quoteTableName(table, "postgresCustodyLog (checkpoints)");
    } catch (error) {
      quoted = "";
      this.#unusable = error as Error;
    }
    this.#table = quoted;
    this.#fail = fail;
    this.#ensureTable = tableCreator(
      pool,
      `CREATE TABLE IF NOT EXISTS ${this.#table} (seq bigint PRIMARY KEY, hash text NOT NULL, ` +
        "time timestamptz NOT NULL, token text NOT NULL)",
    );
  }

  async *read(): AsyncIterable<unknown> {
    if (this.#unusable !== undefined) return;
    const { rows: found } = await this.#pool
      .query("SELECT to_regclass($1) IS NOT NULL AS present", [this.#table])
      .catch((error: unknown) => {
        throw this.#fail(`cannot read checkpoints: ${(error as Error).message}`, { cause: error });
      });
    if (!found[0]?.present) return;
    const { rows } = await this.#pool.query(
      `SELECT seq, hash, time, token FROM ${this.#table} ORDER BY seq`,
    );
    for (const row of rows) {
      yield {
        seq: Number(row.seq),
        hash: String(row.hash),
        time: new Date(row.time).toISOString(),
        token: String(row.token),
      } satisfies StoredCheckpoint;
    }
  }

  async write(checkpoint: StoredCheckpoint): Promise<void> {
    if (this.#unusable !== undefined) throw this.#fail(this.#unusable.message);
    await this.#ensureTable();
    // Two instances witnessing the same head keep the first token.
    await this.#pool.query(
      `INSERT INTO ${this.#table} (seq, hash, time, token) VALUES ($1, $2, $3, $4) ON CONFLICT (seq) DO NOTHING`,
      [checkpoint.seq, checkpoint.hash, checkpoint.time, checkpoint.token],
    );
  }
}
