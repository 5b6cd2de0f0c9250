/**
 * What the PostgreSQL stores need of a `pg` connection, typed structurally so
 * that `medrecords` never imports `pg`: a `pg.Pool` fits as is (and any
 * driver offering the same two calls).
 */

/** The part of a `pg` query result the stores read. */
export interface PostgresQueryResult {
  /** Rows the statement inserted, updated, deleted or returned; null for other commands. */
  rowCount: number | null;
  /** The returned rows, as objects keyed by column name. */
  // biome-ignore lint/suspicious/noExplicitAny: pg types rows as any unless told otherwise.
  rows: any[];
  /** The command tag; `"ROLLBACK"` when a COMMIT found the transaction failed. */
  command?: string;
}

/** Anything that runs a parameterized query: a `pg.Pool`, a `pg.Client`, a pool's client. */
export interface PostgresQueryable {
  /** Runs `text` with `$1`, `$2`, ... bound to `values`. */
  query(text: string, values?: unknown[]): Promise<PostgresQueryResult>;
}

/** A connection checked out of a pool, as `pg.Pool#connect()` resolves it. */
export interface PostgresPoolClient extends PostgresQueryable {
  /** Gives the connection back; with an error, the pool closes it instead. */
  release(error?: Error | boolean): void;
}

/** A `pg.Pool`: queries, and a connection of its own for a transaction. */
export interface PostgresPool extends PostgresQueryable {
  /** Checks a connection out, for statements that must share one (a transaction). */
  connect(): Promise<PostgresPoolClient>;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * A table name as given (`name` or `schema.name`, each part a plain SQL
 * identifier of at most 63 characters), double-quoted for SQL. Anything else
 * is refused, so the name can never inject SQL.
 */
export function quoteTableName(table: unknown, where: string): string {
  const parts = typeof table === "string" ? table.split(".") : [];
  if (parts.length < 1 || parts.length > 2 || !parts.every((part) => IDENTIFIER.test(part))) {
    throw new TypeError(
      `${where}: \`table\` must be a table name such as "medrecords_events" or "app.medrecords_events" ` +
        "(letters, digits and _, not starting with a digit, at most 63 characters per part); " +
        `got ${JSON.stringify(table)}.`,
    );
  }
  return parts.map((part) => `"${part}"`).join(".");
}

const CREATE_RACE_CODES = new Set(["23505", "42710", "42P07"]);

/**
 * Runs `CREATE TABLE IF NOT EXISTS` once per store, on first use. Two
 * instances creating the same table at once can make the loser fail although
 * IF NOT EXISTS was given: 23505 (unique_violation on the catalog), 42710
 * (duplicate_object: the table's row type) or 42P07 (duplicate_table). Then
 * the winner has committed, so the statement is repeated and finds the table. A failed attempt is forgotten, so the next
 * call tries again.
 */
export function tableCreator(queryable: PostgresQueryable, createSql: string): () => Promise<void> {
  let created: Promise<void> | undefined;
  const create = async () => {
    for (let attempt = 1; ; attempt++) {
      try {
        await queryable.query(createSql);
        return;
      } catch (error) {
        const code = (error as { code?: unknown } | null)?.code;
        if (!CREATE_RACE_CODES.has(code as string) || attempt >= 5) throw error;
      }
    }
  };
  return () => {
    created ??= create().catch((error: unknown) => {
      created = undefined;
      throw error;
    });
    return created;
  };
}
