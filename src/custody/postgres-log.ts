import { type PostgresPool, quoteTableName, tableCreator } from "../stores/postgres.js";
import { ChainVerifier } from "./chain.js";
import { type CustodyRecord, chainEntry, entryLine } from "./entry.js";
import { custodyFailures } from "./failures.js";
import type { CustodyLog } from "./log.js";
import { serial } from "./serial.js";

/** Options of `postgresCustodyLog(options)`. */
export interface PostgresCustodyLogOptions {
  /**
   * Your `pg` pool (`new pg.Pool(...)`): appends need a connection of their
   * own for a transaction. `medrecords` never imports `pg` itself.
   * @example new pg.Pool({ connectionString: process.env.DATABASE_URL })
   */
  pool: PostgresPool;
  /**
   * The table, created on first use if missing:
   * `(seq bigint PRIMARY KEY, entry text NOT NULL, appended_at timestamptz NOT NULL DEFAULT now())`,
   * `entry` holding the entry's JSON exactly as hashed. A plain name or
   * `schema.name`, used as written (quoted, so case-sensitive).
   * @default "medrecords_custody_log"
   * @example "evidence.custody_log"
   */
  table?: string;
}

/** Rows read per query when a whole log is read. */
const BATCH = 1000;
/** High half of the advisory lock key ("mrcs"); the low half is the table's oid. */
const LOCK_CLASS = 0x6d726373;

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
export function postgresCustodyLog(options: PostgresCustodyLogOptions): CustodyLog {
  const fn = "postgresCustodyLog";
  const { pool } = options ?? {};
  if (typeof pool?.query !== "function" || typeof pool.connect !== "function") {
    throw new TypeError(
      `${fn}: \`pool\` must be a pg.Pool (an object with query() and connect()): an append is a transaction.`,
    );
  }
  const rawTable = options.table ?? "medrecords_custody_log";
  const table = quoteTableName(rawTable, fn);
  const description = `${fn} (table ${JSON.stringify(rawTable)})`;
  const ensureTable = tableCreator(
    pool,
    `CREATE TABLE IF NOT EXISTS ${table} (seq bigint PRIMARY KEY, entry text NOT NULL, ` +
      "appended_at timestamptz NOT NULL DEFAULT now())",
  );
  const queue = serial();
  /** What this instance verified: the chain up to `seq`, whose stored text was `text`. */
  let verified: { seq: number; hash: string; text: string } | undefined;

  const { fail, refuse, appendFailure } = custodyFailures(description);

  const parse = (text: string, seq: number): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      return { unparseable: `entry ${seq}` };
    }
  };

  /** Rows with seq above `after`, in order, a batch at a time. */
  async function* rows(
    queryable: Pick<PostgresPool, "query">,
    after: number,
  ): AsyncGenerator<{ seq: number; entry: string }> {
    for (let last = after; ; ) {
      const { rows: batch } = await queryable.query(
        `SELECT seq, entry FROM ${table} WHERE seq > $1 ORDER BY seq LIMIT ${BATCH}`,
        [last],
      );
      // bigint comes back as a string from pg; seqs stay far below 2^53.
      for (const row of batch) yield { seq: Number(row.seq), entry: String(row.entry) };
      if (batch.length < BATCH) return;
      last = Number(batch[batch.length - 1].seq);
    }
  }

  /** Continues `chain` over the rows after `after`; throws at the first fault. */
  const verifyRows = async (
    queryable: Pick<PostgresPool, "query">,
    chain: ChainVerifier,
    after: number,
  ): Promise<string | undefined> => {
    let text: string | undefined;
    for await (const row of rows(queryable, after)) {
      const fault = await chain.next(parse(row.entry, chain.seq + 1));
      if (fault) throw refuse(fault);
      text = row.entry;
    }
    return text;
  };

  const appendNow = async (record: CustodyRecord) => {
    await ensureTable();
    if (verified === undefined) {
      // The whole table, outside the transaction; what others append meanwhile is read under the lock.
      const chain = new ChainVerifier();
      const text = await verifyRows(pool, chain, 0);
      verified = { seq: chain.seq, hash: chain.hash, text: text ?? "" };
    }
    const known = verified;
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query("BEGIN");
      try {
        await client.query(
          `SELECT pg_advisory_xact_lock((${LOCK_CLASS}::bigint << 32) | $1::regclass::oid::bigint)`,
          [table],
        );
        if (known.seq > 0) {
          const { rows: last } = await client.query(`SELECT entry FROM ${table} WHERE seq = $1`, [
            known.seq,
          ]);
          if (last.length === 0 || String(last[0].entry) !== known.text) {
            throw refuse({
              seq: known.seq,
              reason: `entry ${known.seq} ${last.length === 0 ? "was removed" : "changed"} since this instance verified it`,
            });
          }
        }
        const chain = new ChainVerifier(known.seq, known.hash);
        await verifyRows(client, chain, known.seq);
        const entry = await chainEntry(record, chain.seq, chain.hash);
        const text = entryLine(entry).slice(0, -1);
        await client.query(`INSERT INTO ${table} (seq, entry) VALUES ($1, $2)`, [entry.seq, text]);
        const done = await client.query("COMMIT");
        if (done.command === "ROLLBACK") throw fail("the database rolled the append back");
        verified = { seq: entry.seq, hash: entry.hash, text };
        return entry;
      } catch (error) {
        await client.query("ROLLBACK").catch((rollback: unknown) => {
          broken = rollback as Error;
        });
        throw error;
      }
    } finally {
      client.release(broken);
    }
  };

  return {
    description,
    append: (record) =>
      queue(async () => {
        try {
          return await appendNow(record);
        } catch (error) {
          throw appendFailure(error, () => {
            verified = undefined;
          });
        }
      }),
    async *entries() {
      // Reading creates nothing: a table that does not exist yet is an empty log.
      const { rows: found } = await pool
        .query("SELECT to_regclass($1) IS NOT NULL AS present", [table])
        .catch((error: unknown) => {
          throw fail(`cannot read: ${(error as Error).message}`, { cause: error });
        });
      if (!found[0]?.present) return;
      for await (const row of rows(pool, 0)) {
        try {
          yield JSON.parse(row.entry) as unknown;
        } catch {
          throw fail(`the row with seq ${row.seq} is not JSON`, { firstBadSeq: row.seq });
        }
      }
    },
  };
}
