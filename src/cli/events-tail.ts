/**
 * `medrecords events tail`: follows the event log with the catch-up poller
 * (docs/spec-decisions.md, "Catch-up poller"), printing one line per event, oldest first.
 *
 * The start position, when no checkpoint was saved: `--since` if given; else
 * the oldest event the log holds with `--once` (catching up on the whole
 * log), and "now" when following (only events newer than the newest one in
 * the log at start, taken from the service rather than this machine's clock,
 * so that clock skew neither drops nor replays events). With `--checkpoint`,
 * the start position is saved at once, so that a later run resumes from it
 * even if no event came in between.
 */
import { MedRecords } from "../client.js";
import {
  APIError,
  AuthenticationError,
  ConnectionError,
  MedRecordsError,
  PermissionError,
  TimeoutError,
} from "../core/errors.js";
import { parseDurationText } from "../internal/duration.js";
import { sleepUnlessAborted } from "../internal/sleep.js";
import type { EventLogGap } from "../poller/catch-up.js";
import { fileCheckpoint } from "../poller/file-checkpoint.js";
import { memoryCheckpoint } from "../poller/memory-checkpoint.js";
import { PAGE_LIMIT_MAX } from "../schemas/common.js";
import {
  type AnyEvent,
  EVENT_LOG_TYPES,
  EVENT_RETENTION_DAYS,
  EVENT_TYPE_FILTER_MAX,
} from "../schemas/event-list.js";
import type { EventType } from "../schemas/events.js";
import {
  type Checkpoint,
  type CheckpointStore,
  compareInstants,
} from "../shared/checkpoint-store.js";
import { parseFlags, shown } from "./args.js";
import { commandLogger } from "./client-logger.js";
import { commandFetch } from "./command-fetch.js";
import { OutputClosedError } from "./process-output.js";
import { parseSince, positionSince, type Since } from "./since.js";
import { terminalSafe, terminalSafeJson } from "./terminal-text.js";
import { CommandError, type CommandIo, UsageError } from "./usage-error.js";

const SEE_HELP = "see medrecords events tail --help";
const DEFAULT_INTERVAL_MS = 5_000;
const MAX_INTERVAL_MS = 24 * 60 * 60 * 1000;
/** Events per page: the most the command holds in memory at once. */
const PAGE_SIZE = PAGE_LIMIT_MAX;

export const EVENTS_TAIL_HELP = `Usage: medrecords events tail [options]

Follows the event log of a Medical Record Retrieval API v2 service (or of a
reference server started with \`medrecords mock\`) and prints one line per
event, oldest first, as events arrive. Ctrl-C (SIGINT) or SIGTERM stops it
cleanly: the page in hand is printed, the checkpoint saved, exit status 0.

Options:
  --base-url <url>        address of the service (default: $MEDRECORDS_BASE_URL)
  --type <type>           only events of this type; repeat the flag or separate
                          types with commas (at most ${EVENT_TYPE_FILTER_MAX})
  --since <when>          where to start when no checkpoint was saved, inclusive:
                          a duration back from the service's time (30m, 2h,
                          1d), an ISO 8601 date-time with offset
                          (2026-06-15T12:00:00Z) or a date (2026-06-15,
                          midnight UTC). The log keeps
                          events for ${EVENT_RETENTION_DAYS} days; an older date prints a warning.
                          Default: now (only new events) when following; the
                          oldest event the log holds with --once.
  --checkpoint <file>     keep the position in <file> (JSON, written atomically
                          after each page) and resume from it on the next run,
                          without printing an event again; a saved position
                          wins over --since. Use one file per --type filter.
  --interval <duration>   time between polls: 500ms, 5s, 1m, 1h (default: 5s)
  --once                  catch up to the newest event, then exit 0
  --json                  print each event as one line of JSON (the whole event
                          as the service sent it) instead of the line below
  -h, --help              show this help

Environment:
  MEDRECORDS_API_KEY      the API key (required). It needs webhooks:read, plus
                          retrievals:read to see retrieval_request.* events
                          (without it they are left out). There is no flag
                          for the key on purpose: command-line arguments are
                          visible to other users in \`ps\` and are kept in shell
                          history.
  MEDRECORDS_BASE_URL     address of the service when --base-url is not given

Output: one line per event, four fields separated by two spaces:
  <created_at>  <type>  <event id>  <object id>
The object id is data.retrieval_request_id or data.webhook_id, "-" when the
event has neither. Warnings go to stderr. Event types this version knows
(the service may add more; they print too):
${EVENT_LOG_TYPES.map((type) => `  ${type}`).join("\n")}

An event prints at least once: after a crash or kill -9 (not after Ctrl-C),
the events of the last unsaved page can print again; use the event id to
skip them. When the reader of the output goes away (| head -1), the command
ends at its next line, which counts as unprinted and prints again on the next
run with the same --checkpoint; lines already written into the pipe count as
printed, read or not.

Exit status: 0 when --once caught up, a signal stopped it or its output was
closed; 1 when the service refused the key or the request, could not be
reached, or the checkpoint file could not be read or written; 2 on a usage
mistake.

Examples:
  read -rs MEDRECORDS_API_KEY && export MEDRECORDS_API_KEY   # paste it: not echoed, not in history
  medrecords events tail --base-url http://127.0.0.1:4010
  medrecords events tail --type retrieval_request.status_changed --json | jq .data.status
  medrecords events tail --once --checkpoint .medrecords/events.json   # e.g. from cron
`;

interface TailOptions {
  baseUrl: string | undefined;
  types: string[] | undefined;
  since: Since | undefined;
  checkpointPath: string | undefined;
  intervalMs: number;
  once: boolean;
  json: boolean;
}

export async function eventsTail(
  argv: string[],
  io: CommandIo,
  deps: { fetch?: typeof fetch } = {},
): Promise<number> {
  const endOfOptions = argv.indexOf("--");
  const flags = endOfOptions === -1 ? argv : argv.slice(0, endOfOptions);
  if (flags.includes("--help") || flags.includes("-h")) {
    io.stdout(EVENTS_TAIL_HELP);
    return 0;
  }
  const options = parseOptions(argv, io.env);

  const apiKey = io.env.MEDRECORDS_API_KEY;
  if (apiKey === undefined || apiKey.trim() === "") {
    throw new CommandError(
      "MEDRECORDS_API_KEY is not set: export the API key in the environment (it is never taken as a flag).",
    );
  }
  const redact = redactor(apiKey);
  const baseUrl = options.baseUrl ?? io.env.MEDRECORDS_BASE_URL;
  if (baseUrl === undefined || baseUrl.trim() === "") {
    throw new UsageError(
      `no service address: pass --base-url or set MEDRECORDS_BASE_URL; ${SEE_HELP}`,
    );
  }
  const from = options.baseUrl !== undefined ? "--base-url" : "MEDRECORDS_BASE_URL";
  if (!isHttpUrl(baseUrl)) {
    const message = `${from} must be an http or https address such as https://api.example.com`;
    throw options.baseUrl !== undefined
      ? new UsageError(`${message}; ${SEE_HELP}`)
      : new CommandError(`${message}.`);
  }

  const signal = io.signal;
  const apiFetch = abortableFetch(commandFetch(deps.fetch, baseUrl), signal);
  let mr: MedRecords;
  try {
    mr = new MedRecords({ apiKey, baseUrl, logger: commandLogger(io), fetch: apiFetch });
  } catch (error) {
    // Whitespace in the key, for example; messages of the client never hold the key.
    throw new CommandError(redact(`MEDRECORDS_API_KEY: ${messageOf(error)}`));
  }

  const store: CheckpointStore =
    options.checkpointPath === undefined
      ? memoryCheckpoint()
      : describedStore(fileCheckpoint(options.checkpointPath), options.checkpointPath);

  // Awaited, so that an event counts as processed (and the checkpoint passes
  // it) only once its line went out: a line the closed pipe refused prints
  // again on the next run.
  const print = async (event: AnyEvent) => {
    await io.stdout(`${options.json ? terminalSafeJson(event) : humanLine(event)}\n`);
  };
  const warn = (gap: EventLogGap) =>
    io.stderr(
      `medrecords events tail: warning: the position to continue from (${terminalSafe(gap.checkpoint.created_at)}) is older than the event log's ${EVENT_RETENTION_DAYS}-day retention, so events before ${terminalSafe(gap.oldestAvailable)} may be missing (retrieval requests changed meanwhile can be listed with mr.retrievalRequests.changes({ since })); continuing from ${terminalSafe(gap.oldestAvailable)}.\n`,
    );

  try {
    if (signal.aborted) return 0;
    const saved = await store.load();
    if (saved === null) {
      const start = await startPosition(mr, options);
      // Saved at once: a later run with the same --checkpoint resumes here.
      if (start !== null) await store.save(start);
    } else if (options.since !== undefined) {
      io.stderr(
        `medrecords events tail: resuming from the checkpoint in ${options.checkpointPath} (${saved.created_at}); --since is ignored.\n`,
      );
    }

    const poller = mr.events.catchUp({
      checkpoint: store,
      // Names from the command line: the service judges them (a type newer than this SDK works).
      ...(options.types === undefined ? {} : { types: options.types as EventType[] }),
      pageSize: PAGE_SIZE,
      onEvent: print,
      onGap: warn,
    });
    // Ends a run in flight at its next page boundary, with the checkpoint saved.
    const stop = () => void poller.stop();
    signal.addEventListener("abort", stop, { once: true });
    try {
      while (!signal.aborted) {
        await poller.runOnce();
        if (options.once) break;
        await sleepUnlessAborted(options.intervalMs, signal);
      }
    } finally {
      signal.removeEventListener("abort", stop);
    }
    return 0;
  } catch (error) {
    // The reader closed the output: the poller saved the checkpoint of what was printed; main exits 0.
    if (error instanceof OutputClosedError) throw error;
    // A request cut short by the signal: what was printed is saved.
    if (signal.aborted && !(error instanceof CommandError)) return 0;
    throw failure(error, mr.baseUrl, redact);
  }
}

function parseOptions(argv: string[], env: CommandIo["env"]): TailOptions {
  const values = parseFlags(
    argv,
    {
      "base-url": { type: "string" },
      type: { type: "string", multiple: true },
      since: { type: "string" },
      checkpoint: { type: "string" },
      interval: { type: "string" },
      once: { type: "boolean" },
      json: { type: "boolean" },
    },
    "events tail",
    env,
  );

  let types: string[] | undefined;
  if (values.type !== undefined) {
    const split = values.type.flatMap((value) => value.split(",")).map((type) => type.trim());
    if (split.some((type) => type === "")) {
      throw new UsageError(`--type needs event type names, not an empty one; ${SEE_HELP}`);
    }
    types = [...new Set(split)];
    if (types.length > EVENT_TYPE_FILTER_MAX) {
      throw new UsageError(
        `--type names at most ${EVENT_TYPE_FILTER_MAX} event types; ${SEE_HELP}`,
      );
    }
  }
  if (values.checkpoint !== undefined && values.checkpoint.trim() === "") {
    throw new UsageError(`--checkpoint needs a file path; ${SEE_HELP}`);
  }
  return {
    baseUrl: values["base-url"],
    types,
    since: values.since === undefined ? undefined : parseSince(values.since, env, SEE_HELP),
    checkpointPath: values.checkpoint,
    intervalMs:
      values.interval === undefined ? DEFAULT_INTERVAL_MS : parseInterval(values.interval, env),
    once: values.once ?? false,
    json: values.json ?? false,
  };
}

/** `500ms`, `5s`, `1.5m`, `1h` → milliseconds, in the one duration grammar (src/internal/duration.ts). */
export function parseInterval(
  value: string,
  env: CommandIo["env"],
  seeHelp: string = SEE_HELP,
): number {
  const ms = parseDurationText(value) ?? 0;
  if (ms < 1 || ms > MAX_INTERVAL_MS) {
    throw new UsageError(
      `--interval needs a duration from 1ms to 24h with a unit, such as 500ms, 5s or 1m, not ${shown(value, env)}; ${seeHelp}`,
    );
  }
  return ms;
}

/**
 * Where a run without a saved checkpoint starts. `null` is the poller's own
 * start: the oldest event the log holds.
 */
async function startPosition(mr: MedRecords, options: TailOptions): Promise<Checkpoint | null> {
  if (options.since !== undefined) return positionSince(mr, options.since);
  if (options.once) return null;
  return positionAfterNewest(mr, options.types);
}

/**
 * "Now" on the service's log: just after the newest event, with every event
 * at its instant marked as seen (they list together, newest first). An empty
 * log: null, from its start. Also `medrecords listen`'s start.
 */
export async function positionAfterNewest(
  mr: MedRecords,
  types: string[] | undefined,
): Promise<Checkpoint | null> {
  let page = await mr.events.list({
    limit: PAGE_SIZE,
    ...(types === undefined ? {} : { type: types }),
  });
  const newest = page.results[0];
  if (newest === undefined) return null;
  const ids: string[] = [];
  for (;;) {
    for (const event of page.results) {
      if (compareInstants(event.created_at, newest.created_at) !== 0) {
        return { created_at: newest.created_at, ids_at_created_at: ids };
      }
      ids.push(event.id);
    }
    if (!page.hasNextPage()) return { created_at: newest.created_at, ids_at_created_at: ids };
    page = await page.getNextPage();
  }
}

/** `<created_at>  <type>  <event id>  <object id or ->`, each field terminal-safe. */
function humanLine(event: AnyEvent): string {
  const data = event.data as Record<string, unknown>;
  const objectId = [data.retrieval_request_id, data.webhook_id].find(
    (value): value is string => typeof value === "string" && value !== "",
  );
  return [event.created_at, event.type, event.id, objectId ?? "-"]
    .map((field) => terminalSafe(String(field)))
    .join("  ");
}

/** A checkpoint store whose failures name the file, as one CommandError line. */
export function describedStore(store: CheckpointStore, path: string): CheckpointStore {
  const fail = (action: string) => (error: unknown) => {
    const message = messageOf(error);
    throw new CommandError(
      message.includes(path) ? message : `cannot ${action} the checkpoint file ${path}: ${message}`,
    );
  };
  return {
    ...(store.description === undefined ? {} : { description: store.description }),
    load: () => store.load().catch(fail("read")),
    save: (checkpoint) => store.save(checkpoint).catch(fail("write")),
  };
}

/** `fetch` whose requests the signal aborts too, so that Ctrl-C never waits for a hung request. */
export function abortableFetch(base: typeof fetch, signal: AbortSignal): typeof fetch {
  return (input, init) => {
    const own = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    return base(input, { ...init, signal: own ? AbortSignal.any([own, signal]) : signal });
  };
}

export function failure(
  error: unknown,
  baseUrl: string,
  redact: (text: string) => string,
  command = "events tail",
): Error {
  if (error instanceof CommandError || error instanceof UsageError) {
    return new CommandError(redact(terminalSafe(oneLine(error.message))));
  }
  const message = messageOf(error);
  let line: string;
  if (error instanceof AuthenticationError) {
    line = `the service at ${baseUrl} refused the API key in MEDRECORDS_API_KEY: ${message}`;
  } else if (error instanceof PermissionError) {
    line = `the API key may not read the event log (it needs webhooks:read, and retrievals:read for retrieval events): ${message}`;
  } else if (error instanceof ConnectionError || error instanceof TimeoutError) {
    line = `cannot reach the service at ${baseUrl}: ${message}`;
  } else if (error instanceof APIError) {
    line = `the service at ${baseUrl} refused the request: ${message}`;
  } else if (error instanceof MedRecordsError) {
    line = message;
  } else {
    line = `${command} failed: ${message}`;
  }
  // The message may quote the service's own words: nothing in it reaches the terminal raw.
  return new CommandError(redact(terminalSafe(oneLine(line))));
}

export function redactor(apiKey: string): (text: string) => string {
  return (text) => (apiKey.length < 4 ? text : text.split(apiKey).join("[redacted]"));
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

export function isHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === "http:" || protocol === "https:";
}
