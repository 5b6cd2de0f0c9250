/** `medrecords custody verify | export`: checks a custody log's chain, and exports it for a certification. */
import { readFile, stat } from "node:fs/promises";
import { parseArgs } from "node:util";
import { CustodyLogError } from "../core/errors.js";
import { CustodyEntry, ENTRY_FIELDS } from "../custody/entry.js";
import { fileCustodyLog } from "../custody/file-log.js";
import type { CustodyLog, WitnessedCustodyLog } from "../custody/log.js";
import { postgresCustodyLog } from "../custody/postgres-log.js";
import { type CustodyVerification, verifyCustodyLog } from "../custody/verify.js";
import { quoteTableName } from "../stores/postgres.js";
import { writePacket } from "./custody-packet.js";
import { CommandError, type CommandIo, UsageError } from "./usage-error.js";

export const CUSTODY_HELP = `Usage: medrecords custody verify <log> [--trust <pem>...] [--expect-head <seq>:<hash>]
       medrecords custody head <log>
       medrecords custody checkpoint <log> --tsa <url>
       medrecords custody export <log> [--format csv|json]
       medrecords custody export <log> --format packet <dir>

<log> is a custody log file written by fileCustodyLog (JSON lines), or
postgres:<table> for a postgresCustodyLog table (postgres: alone for the
default, medrecords_custody_log), reached through $DATABASE_URL or the PG*
variables (PGHOST, PGUSER, PGPASSWORD, PGDATABASE, ...); needs the pg package.

verify   checks the hash chain: every entry well formed and stored as its
         canonical form (RFC 8785), seq rising by one from 1, each prev_hash
         the hash of the entry before, each hash the SHA-256 of the entry's
         canonical form; then the checkpoints beside the log: a chain
         rewritten or cut below one fails, naming it. With --trust, each
         checkpoint's token must chain to one of the PEM certificates given
         (the TSA's root or its own). With --expect-head, the chain must hold
         that entry unchanged (a head noted elsewhere earlier). Exit status 0
         when it verifies (printing the count, the last hash and each
         checkpoint); 1 naming the first bad entry and why.

head     verifies the chain and prints its last entry as "<seq> <hash>": the
         line to note somewhere the log's writers cannot change.

checkpoint
         asks the time-stamping authority at <url> (RFC 3161) for a token
         over the head entry's hash and stores it beside the log
         (<log>.checkpoints, or the table <table>_checkpoints).

export   prints one row per entry with the facts a certification of
         authenticity names (when, what, which document, request and case,
         file name and type, size, SHA-256, who), after verifying the chain:
         a log that does not verify is not exported (exit status 1).
         csv (the default): a header row, then RFC 4180 rows; control
         characters are written as \\xNN, and a text cell starting with
         = + - @ is prefixed with ' so that a spreadsheet shows it rather
         than running it. json: an array of row objects. packet: writes the
         directory <dir> (created if absent, refused if not empty) with
         entries.csv, entries.json, each checkpoint's token as <seq>.tsr
         (DER) and METHOD.md, how to re-verify it all with sha256sum and
         openssl.

Options:
  --format <csv|json|packet>  export format (default: csv)
  --trust <pem>               a PEM certificate tokens must chain to (repeatable)
  --expect-head <seq>:<hash>  verify: fail unless the chain holds this entry
  --tsa <url>                 checkpoint: the TSA's RFC 3161 address
  -h, --help                  show this help
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
  trust: { type: "string", multiple: true },
  "expect-head": { type: "string" },
  tsa: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof FLAGS }>>["values"];
const SUBCOMMANDS = ["verify", "export", "head", "checkpoint"] as const;
type Sub = (typeof SUBCOMMANDS)[number];
/** Which subcommand each option belongs to. */
const OPTION_OF: Record<string, Sub> = {
  format: "export",
  trust: "verify",
  "expect-head": "verify",
  tsa: "checkpoint",
};

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
  if (!SUBCOMMANDS.includes(sub as Sub)) {
    throw new UsageError(`unknown command "custody ${sub}"; see medrecords custody --help`);
  }
  const request = checkUsage(sub as Sub, path, extra, values);
  if (sub === "verify" && values.trust !== undefined) {
    request.trust = await readTrust([...values.trust, ...extra]);
  }
  const { log, close } = await openLog(path as string, io, values.tsa);
  try {
    return await runSub(sub as Sub, path as string, log, request, io);
  } finally {
    await close();
  }
}

/** What a subcommand was asked, its options checked. */
interface Request {
  format: "csv" | "json" | "packet";
  dir?: string;
  trust?: string[];
  expectHead?: { seq: number; hash: string };
}

function checkUsage(sub: Sub, path: string | undefined, extra: string[], values: Values): Request {
  for (const [option, owner] of Object.entries(OPTION_OF)) {
    if (values[option as keyof Values] !== undefined && owner !== sub) {
      throw new UsageError(
        `--${option} is an option of custody ${owner}; see medrecords custody --help`,
      );
    }
  }
  const format = values.format ?? "csv";
  if (format !== "csv" && format !== "json" && format !== "packet") {
    throw new UsageError(`--format must be csv, json or packet, not "${format}"`);
  }
  // verify --trust a.pem b.pem: the files after the log are more roots.
  const allowed = format === "packet" ? 1 : sub === "verify" && values.trust ? extra.length : 0;
  if (path === undefined || extra.length !== allowed) {
    throw new UsageError(
      format === "packet"
        ? "custody export --format packet takes a log and a directory; see medrecords custody --help"
        : `custody ${sub} takes one log file; see medrecords custody --help`,
    );
  }
  if (sub === "checkpoint" && values.tsa === undefined) {
    throw new UsageError("custody checkpoint needs --tsa <url>; see medrecords custody --help");
  }
  const request: Request = { format, ...(format === "packet" ? { dir: extra[0] } : {}) };
  const head = values["expect-head"];
  if (head !== undefined) {
    const match = /^([1-9][0-9]*):([0-9a-f]{64})$/.exec(head);
    if (!match)
      throw new UsageError(`--expect-head must be <seq>:<hash> (64 lowercase hex), not "${head}"`);
    request.expectHead = { seq: Number(match[1]), hash: match[2] as string };
  }
  return request;
}

async function readTrust(files: string[]): Promise<string[]> {
  return Promise.all(
    files.map((file) =>
      readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
        throw new CommandError(`cannot read ${file}: ${error.code ?? String(error)}`);
      }),
    ),
  );
}

const POSTGRES = "postgres:";

/** The log `<log>` names: a file, or a PostgreSQL table that must exist. */
async function openLog(
  spec: string,
  io: CommandIo,
  tsaUrl: string | undefined,
): Promise<{ log: WitnessedCustodyLog; close: () => Promise<void> }> {
  const tsa = tsaUrl === undefined ? {} : { tsa: { url: tsaUrl } };
  if (!spec.startsWith(POSTGRES)) {
    try {
      if (!(await stat(spec)).isFile()) throw new CommandError(`${spec} is not a file`);
    } catch (error) {
      if (error instanceof CommandError) throw error;
      throw new CommandError(
        `cannot read ${spec}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      );
    }
    try {
      return { log: fileCustodyLog(spec, tsa), close: async () => {} };
    } catch (error) {
      throw new UsageError((error as Error).message.replace(/^fileCustodyLog: /, ""));
    }
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
    let log: WitnessedCustodyLog;
    try {
      log = postgresCustodyLog({ pool, table, ...tsa });
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

async function runSub(
  sub: Sub,
  path: string,
  log: WitnessedCustodyLog,
  request: Request,
  io: CommandIo,
): Promise<number> {
  if (sub === "checkpoint") {
    const checkpoint = await log.checkpoint().catch((error: unknown) => {
      throw new CommandError(error instanceof CustodyLogError ? error.reason : String(error));
    });
    await io.stdout(`${checkpoint.seq} ${checkpoint.hash} ${checkpoint.time.toISOString()}\n`);
    return 0;
  }
  const result = await verified(sub, path, log, request);
  if (sub === "head") {
    if (result.head === null) throw new CommandError(`${path} has no entries`);
    await io.stdout(`${result.entries} ${result.head}\n`);
    return 0;
  }
  if (sub === "verify") {
    if (request.expectHead) await expectHead(path, log, request.expectHead);
    await io.stdout(verifiedText(path, result));
    return 0;
  }
  if (request.format === "packet") {
    await writePacket(log, result, request.dir as string, { rows: exportRows });
  } else {
    await exportRows(log, result.entries, request.format, (text) => io.stdout(text));
  }
  io.stderr(
    `medrecords: exported ${result.entries} ${result.entries === 1 ? "entry" : "entries"} of a chain that verifies${
      result.head === null ? "" : ` (last hash ${result.head})`
    }${request.format === "packet" ? ` to ${request.dir}` : ""}\n`,
  );
  return 0;
}

/** The log verified (with the trust roots asked for), or a CommandError saying where it breaks. */
async function verified(
  sub: Sub,
  path: string,
  log: WitnessedCustodyLog,
  request: Request,
): Promise<CustodyVerification> {
  const result = await verifyCustodyLog(log, request.trust ? { trust: request.trust } : {}).catch(
    (error: unknown) => {
      throw new CommandError(
        `cannot read ${path}: ${error instanceof CustodyLogError ? error.reason : ((error as Error).message ?? String(error))}`,
      );
    },
  );
  if (!result.ok) {
    throw new CommandError(
      `${path} does not verify: entry ${result.firstBadSeq} is bad: ${result.reason}` +
        (sub === "export" ? " (nothing exported)" : ""),
    );
  }
  return result;
}

function verifiedText(path: string, result: CustodyVerification): string {
  let text =
    `${path}: ${result.entries} ${result.entries === 1 ? "entry" : "entries"}, the chain verifies` +
    `${result.head === null ? "" : `; last hash ${result.head}`}\n`;
  for (const c of result.checkpoints) {
    text += `checkpoint ${c.seq} ${c.hash} witnessed ${c.time?.toISOString()}${c.trusted ? ", token trusted" : " (token not checked: no --trust)"}\n`;
  }
  if (result.checkpoints.length > 0) {
    text += `${result.unwitnessed} ${result.unwitnessed === 1 ? "entry" : "entries"} after the last checkpoint\n`;
  }
  return text;
}

/** Fails unless the chain (already verified) holds entry `seq` with `hash`. */
async function expectHead(
  path: string,
  log: WitnessedCustodyLog,
  expected: { seq: number; hash: string },
): Promise<void> {
  for await (const stored of log.entries()) {
    const entry = CustodyEntry.parse(typeof stored === "string" ? JSON.parse(stored) : stored);
    if (entry.seq !== expected.seq) continue;
    if (entry.hash === expected.hash) return;
    throw new CommandError(
      `${path}: entry ${expected.seq} is not the head noted (its hash is ${entry.hash}, not ${expected.hash}): the chain was rewritten`,
    );
  }
  throw new CommandError(
    `${path} has no entry ${expected.seq}: the chain was cut below the head noted (${expected.seq}:${expected.hash})`,
  );
}

/** The first `count` entries (those verified: a later append is not exported unverified), as rows. */
async function exportRows(
  log: CustodyLog,
  count: number,
  format: "csv" | "json",
  write: (text: string) => void | Promise<void>,
): Promise<void> {
  if (format === "csv") await write(`${COLUMNS.join(",")}\r\n`);
  else await write(count === 0 ? "[]\n" : "[\n");
  let written = 0;
  for await (const value of log.entries()) {
    if (written === count) break;
    const row = rowOf(value);
    written++;
    await write(
      format === "csv"
        ? `${COLUMNS.map((column) => csvCell(row[column] ?? null)).join(",")}\r\n`
        : `${JSON.stringify(row)}${written === count ? "\n]\n" : ",\n"}`,
    );
  }
}
