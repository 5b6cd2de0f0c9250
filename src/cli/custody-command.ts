/** `medrecords custody verify | export`: checks a custody log's chain, and exports it for a certification. */
import { stat } from "node:fs/promises";
import { parseArgs } from "node:util";
import { CustodyLogError } from "../core/errors.js";
import { CustodyEntry, ENTRY_FIELDS } from "../custody/entry.js";
import { fileCustodyLog } from "../custody/file-log.js";
import type { CustodyLog } from "../custody/log.js";
import { postgresCustodyLog } from "../custody/postgres-log.js";
import { verifyCustodyLog } from "../custody/verify.js";
import { quoteTableName } from "../stores/postgres.js";
import { CommandError, type CommandIo, UsageError } from "./usage-error.js";

export const CUSTODY_HELP = `Usage: medrecords custody verify <log>
       medrecords custody export <log> [--format csv|json]

<log> is a custody log file written by fileCustodyLog (JSON lines), or
postgres:<table> for a postgresCustodyLog table (postgres: alone for the
default, medrecords_custody_log), reached through $DATABASE_URL or the PG*
variables (PGHOST, PGUSER, PGPASSWORD, PGDATABASE, ...); needs the pg package.

verify   checks the hash chain: every entry well formed, seq rising by one
         from 1, each prev_hash the hash of the entry before, each hash the
         SHA-256 of the entry's canonical form. Exit status 0 when it verifies
         (printing the count and the last hash, to note down elsewhere);
         1 naming the first bad entry and why.

export   prints one row per entry with the facts a certification of
         authenticity names (when, what, which document, request and case,
         file name and type, size, SHA-256, who), after verifying the chain:
         a log that does not verify is not exported (exit status 1).
         csv (the default): a header row, then RFC 4180 rows; a text cell
         starting with = + - @ is prefixed with ' so that a spreadsheet shows
         it rather than running it. json: an array of row objects.

Options:
  --format <csv|json>   export format (default: csv)
  -h, --help            show this help
`;

/** The export's columns: an entry's facts, in the order a certification reads them. */
const COLUMNS = ENTRY_FIELDS.flatMap((field) =>
  field === "sha256" ? ["hash_algorithm", "sha256"] : field === "hash" ? ["entry_hash"] : [field],
);

type Row = Record<string, string | number | null>;

function rowOf(stored: unknown): Row {
  const entry = CustodyEntry.parse(typeof stored === "string" ? JSON.parse(stored) : stored);
  const row: Row = {};
  for (const column of COLUMNS) {
    row[column] =
      column === "hash_algorithm"
        ? "SHA-256"
        : entry[column === "entry_hash" ? "hash" : (column as (typeof ENTRY_FIELDS)[number])];
  }
  return row;
}

/** C0 and C1 control characters and DEL: terminal escapes and line breaks in a file name. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * One CSV cell (RFC 4180): control characters written as `\xNN` (a file
 * name's terminal escapes never reach a terminal or a spreadsheet raw; the
 * JSON export keeps them exactly), a formula-looking text defused.
 */
function csvCell(value: string | number | null): string {
  if (value === null) return "";
  let text = String(value).replace(
    CONTROL,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
  if (typeof value === "string" && /^[=+\-@]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const FLAGS = {
  format: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export async function custodyCommand(argv: string[], io: CommandIo): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof FLAGS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: FLAGS, strict: true, allowPositionals: true });
  } catch (error) {
    const message = error instanceof Error ? error.message.split(". ")[0] : String(error);
    throw new UsageError(`${message}; see medrecords custody --help`);
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    await io.stdout(CUSTODY_HELP);
    return values.help ? 0 : 2;
  }
  const [sub, path, ...extra] = positionals;
  if (sub !== "verify" && sub !== "export") {
    throw new UsageError(`unknown command "custody ${sub}"; see medrecords custody --help`);
  }
  if (path === undefined || extra.length > 0) {
    throw new UsageError(`custody ${sub} takes one log file; see medrecords custody --help`);
  }
  const format = values.format ?? "csv";
  if (sub === "verify" && values.format !== undefined) {
    throw new UsageError("--format is an option of custody export; see medrecords custody --help");
  }
  if (format !== "csv" && format !== "json") {
    throw new UsageError(`--format must be csv or json, not "${format}"`);
  }
  const { log, close } = await openLog(path, io);
  try {
    return await verifyOrExport(sub, path, log, format, io);
  } finally {
    await close();
  }
}

const POSTGRES = "postgres:";

/** The log `<log>` names: a file, or a PostgreSQL table that must exist. */
async function openLog(
  spec: string,
  io: CommandIo,
): Promise<{ log: CustodyLog; close: () => Promise<void> }> {
  if (!spec.startsWith(POSTGRES)) {
    try {
      if (!(await stat(spec)).isFile()) throw new CommandError(`${spec} is not a file`);
    } catch (error) {
      if (error instanceof CommandError) throw error;
      throw new CommandError(
        `cannot read ${spec}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      );
    }
    return { log: fileCustodyLog(spec), close: async () => {} };
  }
  const table = spec.slice(POSTGRES.length) || "medrecords_custody_log";
  let Pool: typeof import("pg").Pool;
  try {
    // CommonJS: the module object is its default export under ESM.
    Pool = (await import("pg")).default.Pool;
  } catch {
    throw new CommandError("reading a PostgreSQL custody log needs the pg package: npm install pg");
  }
  const url = io.env.DATABASE_URL;
  const pool = new Pool(url ? { connectionString: url, max: 1 } : { max: 1 });
  // A connection lost while idle must not crash the command; the query that needs it fails instead.
  pool.on("error", () => {});
  const close = () => pool.end().catch(() => undefined);
  try {
    let log: CustodyLog;
    try {
      log = postgresCustodyLog({ pool, table });
    } catch (error) {
      throw new UsageError((error as Error).message.replace(/^postgresCustodyLog: /, ""));
    }
    const { rows } = await pool
      .query("SELECT to_regclass($1) IS NOT NULL AS present", [quoteTableName(table, "custody")])
      .catch((error: unknown) => {
        throw new CommandError(`cannot reach PostgreSQL: ${(error as Error).message}`);
      });
    if (!rows[0]?.present) throw new CommandError(`there is no table ${table}`);
    return { log, close };
  } catch (error) {
    await close();
    throw error;
  }
}

async function verifyOrExport(
  sub: "verify" | "export",
  path: string,
  log: CustodyLog,
  format: "csv" | "json",
  io: CommandIo,
): Promise<number> {
  const result = await verifyCustodyLog(log).catch((error: unknown) => {
    throw new CommandError(
      `cannot read ${path}: ${error instanceof CustodyLogError ? error.reason : String(error)}`,
    );
  });
  if (!result.ok) {
    throw new CommandError(
      `${path} does not verify: entry ${result.firstBadSeq} is bad: ${result.reason}` +
        (sub === "export" ? " (nothing exported)" : ""),
    );
  }
  if (sub === "verify") {
    await io.stdout(
      `${path}: ${result.entries} ${result.entries === 1 ? "entry" : "entries"}, the chain verifies` +
        `${result.head === null ? "" : `; last hash ${result.head}`}\n`,
    );
    return 0;
  }
  await exportRows(log, result.entries, format, io);
  io.stderr(
    `medrecords: exported ${result.entries} ${result.entries === 1 ? "entry" : "entries"} of a chain that verifies${
      result.head === null ? "" : ` (last hash ${result.head})`
    }\n`,
  );
  return 0;
}

/** The first `count` entries (those verified: a later append is not exported unverified), as rows. */
async function exportRows(
  log: CustodyLog,
  count: number,
  format: "csv" | "json",
  io: CommandIo,
): Promise<void> {
  if (format === "csv") await io.stdout(`${COLUMNS.join(",")}\r\n`);
  else await io.stdout(count === 0 ? "[]\n" : "[\n");
  let written = 0;
  for await (const value of log.entries()) {
    if (written === count) break;
    const row = rowOf(value);
    written++;
    await io.stdout(
      format === "csv"
        ? `${COLUMNS.map((column) => csvCell(row[column] ?? null)).join(",")}\r\n`
        : `${JSON.stringify(row)}${written === count ? "\n]\n" : ",\n"}`,
    );
  }
}
