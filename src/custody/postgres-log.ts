import { withOwnMethods } from "../internal/own-methods.js";
import type { PostgresPool, PostgresPoolClient, PostgresQueryable } from "../stores/postgres.js";
import { quoteTableName, tableCreator } from "../stores/postgres.js";
import { ChainVerifier } from "./chain.js";
import {
  CheckpointKeeper,
  type CheckpointOptions,
  type CustodyCheckpoint,
  checkCheckpointOptions,
} from "./checkpoint.js";
import { type CustodyEntry, type CustodyRecord, chainEntry, entryLine } from "./entry.js";
import { custodyFailures } from "./failures.js";
import type { WitnessedCustodyLog } from "./log.js";
import { PostgresCheckpoints } from "./postgres-checkpoints.js";
import { serial } from "./serial.js";

/** Options of `postgresCustodyLog(options)`. */
export interface PostgresCustodyLogOptions extends CheckpointOptions {
  /**
   * Your `pg` pool (`new pg.Pool(...)`): appends need a connection of their
   * own for a transaction. `medrecords` never imports `pg` itself.
   * @example new pg.Pool({ connectionString: process.env.DATABASE_URL })
   */
  pool: PostgresPool;
  /**
   * The table, created on first use if missing:
   * `(seq bigint PRIMARY KEY, entry text NOT NULL, appended_at timestamptz NOT NULL DEFAULT now())`,
   * `entry` holding exactly the entry's canonical form with `hash`
   * (RFC 8785). A plain name or `schema.name`, used as written (quoted, so
   * case-sensitive). Checkpoints go to `<table>_checkpoints`.
   * @default "medrecords_custody_log"
   * @example "evidence.custody_log"
   */
  table?: string;
}

/** Rows read per query when a whole log is read. */
const BATCH = 1000;
/** High half of the advisory lock key ("mrcs"); the low half is the table's oid. */
const LOCK_CLASS = 0x6d726373;

/** What this instance verified: the chain up to `seq`, whose stored text was `text`. */
interface Verified {
  seq: number;
  hash: string;
  text: string;
  canonicalSince: number;
}

/**
 * A custody log in a PostgreSQL table: one linear chain however many
 * instances append. Each append is one transaction holding a transaction
 * advisory lock keyed by the table (`pg_advisory_xact_lock`), so appends are
 * serialised by the database, and `seq` is the primary key, so a chain can
 * never fork. Under the lock an append reads the entries appended since this
 * instance last looked, checks they continue the chain, and inserts; the
 * first append of an instance verifies the whole table. A table that does not
 * verify is never appended to (a `CustodyLogError` naming the first bad `seq`).
 * The lock needs no privilege beyond INSERT and SELECT, so the role the
 * application uses can be denied UPDATE and DELETE (docs/custody.md).
 *
 * @example new MedRecords({ custodyLog: postgresCustodyLog({ pool }) })
 */
export function postgresCustodyLog(options: PostgresCustodyLogOptions): WitnessedCustodyLog {
  return withOwnMethods(new PostgresCustodyLog(options));
}

class PostgresCustodyLog implements WitnessedCustodyLog {
  readonly description: string;
  readonly #pool: PostgresPool;
  readonly #table: string;
  readonly #ensureTable: () => Promise<void>;
  readonly #queue = serial();
  readonly #failures: ReturnType<typeof custodyFailures>;
  readonly #checkpoints: PostgresCheckpoints;
  readonly #keeper: CheckpointKeeper;
  #verified: Verified | undefined;

  constructor(options: PostgresCustodyLogOptions) {
    const fn = "postgresCustodyLog";
    const { pool } = options ?? {};
    if (typeof pool?.query !== "function" || typeof pool.connect !== "function") {
      throw new TypeError(
        `${fn}: \`pool\` must be a pg.Pool (an object with query() and connect()): an append is a transaction.`,
      );
    }
    checkCheckpointOptions(fn, options);
    const rawTable = options.table ?? "medrecords_custody_log";
    this.#pool = pool;
    this.#table = quoteTableName(rawTable, fn);
    this.description = `${fn} (table ${JSON.stringify(rawTable)})`;
    this.#ensureTable = tableCreator(
      pool,
      `CREATE TABLE IF NOT EXISTS ${this.#table} (seq bigint PRIMARY KEY, entry text NOT NULL, ` +
        "appended_at timestamptz NOT NULL DEFAULT now())",
    );
    this.#failures = custodyFailures(this.description);
    this.#checkpoints = new PostgresCheckpoints(
      pool,
      `${rawTable}_checkpoints`,
      this.#failures.fail,
    );
    this.#keeper = new CheckpointKeeper(options, this.#checkpoints, this.#failures.fail);
  }

  append(record: CustodyRecord): Promise<CustodyEntry> {
    return this.#queue(async () => {
      try {
        const entry = await this.#transaction((client, known) =>
          this.#insert(client, known, record),
        );
        this.#keeper.after(entry);
        return entry;
      } catch (error) {
        throw this.#failures.appendFailure(error, () => {
          this.#verified = undefined;
        });
      }
    });
  }

  /** A checkpoint of the head as it is now, witnessed by the TSA (`tsa`). */
  checkpoint(): Promise<CustodyCheckpoint> {
    return this.#queue(() =>
      this.#keeper.takeHead(() =>
        this.#transaction((client, known) => this.#catchUp(client, known)).catch(
          (error: unknown) => {
            throw this.#failures.appendFailure(error, () => {
              this.#verified = undefined;
            });
          },
        ),
      ),
    );
  }

  checkpoints(): AsyncIterable<unknown> {
    return this.#checkpoints.read();
  }

  settled(): Promise<void> {
    return this.#keeper.settled();
  }

  async *entries(): AsyncIterable<unknown> {
    // Reading creates nothing: a table that does not exist yet is an empty log.
    const { rows: found } = await this.#pool
      .query("SELECT to_regclass($1) IS NOT NULL AS present", [this.#table])
      .catch((error: unknown) => {
        throw this.#failures.fail(`cannot read: ${(error as Error).message}`, { cause: error });
      });
    if (!found[0]?.present) return;
    // The stored text, as it is: verification holds it to the canonical form.
    for await (const row of this.#rows(this.#pool, 0)) yield row.entry;
  }

  /** Rows with seq above `after`, in order, a batch at a time. */
  async *#rows(
    queryable: PostgresQueryable,
    after: number,
  ): AsyncGenerator<{ seq: number; entry: string }> {
    for (let last = after; ; ) {
      const { rows: batch } = await queryable.query(
        `SELECT seq, entry FROM ${this.#table} WHERE seq > $1 ORDER BY seq LIMIT ${BATCH}`,
        [last],
      );
      // bigint comes back as a string from pg; seqs stay far below 2^53.
      for (const row of batch) yield { seq: Number(row.seq), entry: String(row.entry) };
      if (batch.length < BATCH) return;
      last = Number(batch[batch.length - 1].seq);
    }
  }

  /** Continues `chain` over the rows after `from`; throws at the first fault. */
  async #verifyRows(
    queryable: PostgresQueryable,
    chain: ChainVerifier,
    from: Verified,
  ): Promise<Verified> {
    let text = from.text;
    for await (const row of this.#rows(queryable, from.seq)) {
      const fault = await chain.next(row.entry);
      if (fault) throw this.#failures.refuse(fault);
      text = row.entry;
    }
    return { seq: chain.seq, hash: chain.hash, text, canonicalSince: chain.canonicalSince };
  }

  /** Runs `task` in a transaction holding the table's advisory lock, the table verified first. */
  async #transaction<T>(task: (client: PostgresPoolClient, known: Verified) => Promise<T>) {
    await this.#ensureTable();
    // The whole table, outside the transaction; what others append meanwhile is read under the lock.
    this.#verified ??= await this.#verifyRows(this.#pool, new ChainVerifier(), {
      seq: 0,
      hash: new ChainVerifier().hash,
      text: "",
      canonicalSince: 0,
    });
    const known = this.#verified;
    const client = await this.#pool.connect();
    let broken: Error | undefined;
    try {
      await client.query("BEGIN");
      try {
        await client.query(
          `SELECT pg_advisory_xact_lock((${LOCK_CLASS}::bigint << 32) | $1::regclass::oid::bigint)`,
          [this.#table],
        );
        const result = await task(client, known);
        const done = await client.query("COMMIT");
        if (done.command === "ROLLBACK") throw this.#failures.fail("the database rolled back");
        return result;
      } catch (error) {
        // What this instance thought it had appended may not have been committed.
        this.#verified = undefined;
        await client.query("ROLLBACK").catch((rollback: unknown) => {
          broken = rollback as Error;
        });
        throw error;
      }
    } finally {
      client.release(broken);
    }
  }

  /** Checks the last entry this instance verified is unchanged, and what others appended continues it. */
  async #catchUp(client: PostgresPoolClient, known: Verified): Promise<Verified> {
    if (known.seq > 0) {
      const { rows: last } = await client.query(`SELECT entry FROM ${this.#table} WHERE seq = $1`, [
        known.seq,
      ]);
      if (last.length === 0 || String(last[0].entry) !== known.text) {
        throw this.#failures.refuse({
          seq: known.seq,
          reason: `entry ${known.seq} ${last.length === 0 ? "was removed" : "changed"} since this instance verified it`,
        });
      }
    }
    const chain = new ChainVerifier(known.seq, known.hash, known.canonicalSince);
    this.#verified = await this.#verifyRows(client, chain, known);
    return this.#verified;
  }

  async #insert(
    client: PostgresPoolClient,
    known: Verified,
    record: CustodyRecord,
  ): Promise<CustodyEntry> {
    const head = await this.#catchUp(client, known);
    const entry = await chainEntry(record, head.seq, head.hash);
    const text = entryLine(entry).slice(0, -1);
    await client.query(`INSERT INTO ${this.#table} (seq, entry) VALUES ($1, $2)`, [
      entry.seq,
      text,
    ]);
    // Set only once committed: the caller's COMMIT follows; a rollback resets it (appendFailure).
    this.#verified = {
      seq: entry.seq,
      hash: entry.hash,
      text,
      canonicalSince: head.canonicalSince || entry.seq,
    };
    return entry;
  }
}
