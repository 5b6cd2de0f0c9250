/**
 * `medrecords listen --forward-to <url>`: the local development loop's
 * receiving half (docs/spec-decisions.md, "The local development loop").
 * The service does not deliver to private addresses, so a receiver on a
 * laptop cannot get the real deliveries; this command follows the event log
 * of the service (real or mock) with the catch-up poller and delivers each
 * event to the local URL as the service would, signed with a local secret.
 * It only reads the event log: it never creates a webhook, and nothing leaves
 * this machine but the API calls that read the log.
 */

import { MedRecords } from "../client.js";
import { sleepUnlessAborted } from "../internal/sleep.js";
import type { EventLogGap } from "../poller/catch-up.js";
import { fileCheckpoint } from "../poller/file-checkpoint.js";
import { memoryCheckpoint } from "../poller/memory-checkpoint.js";
import { PAGE_LIMIT_MAX } from "../schemas/common.js";
import { EVENT_RETENTION_DAYS } from "../schemas/event-list.js";
import { type EventType, SUBSCRIBABLE_EVENT_TYPES } from "../schemas/events.js";
import { WEBHOOK_DELIVERY_TIMEOUT_MS } from "../schemas/webhooks.js";
import type { CheckpointStore } from "../shared/checkpoint-store.js";
import { parseFlags, shown } from "./args.js";
import { commandLogger } from "./client-logger.js";
import { commandFetch } from "./command-fetch.js";
import {
  abortableFetch,
  describedStore,
  failure,
  isHttpUrl,
  messageOf,
  parseInterval,
  positionAfterNewest,
  redactor,
} from "./events-tail.js";
import { OutputClosedError } from "./process-output.js";
import { parseSince, positionSince } from "./since.js";
import { terminalSafe } from "./terminal-text.js";
import { CommandError, type CommandIo, UsageError } from "./usage-error.js";
import { createForwarder, LISTEN_RETRY_SPEEDUP, retryDelaysMs } from "./webhook-forwarder.js";

const SEE_HELP = "see medrecords listen --help";
/** Polls once a second by default: a development loop wants to see its event now. */
const DEFAULT_INTERVAL_MS = 1_000;
/** Events per page: the most the command holds in memory at once, whatever the backlog. */
const PAGE_SIZE = PAGE_LIMIT_MAX;

export const LISTEN_HELP = `Usage: medrecords listen --forward-to <url> [options]

Follows the event log of a Medical Record Retrieval API v2 service (the real
one, or a reference server started with \`medrecords mock\`) and delivers each
event to <url> exactly as the service delivers webhooks: POST, the same
headers and body, signed (V1) with a local secret, a ${WEBHOOK_DELIVERY_TIMEOUT_MS / 1000}-second timeout, no
redirects followed, failed attempts retried. For a webhook receiver on your
machine, which the service cannot reach. It only reads the event log: it
never creates a webhook. Ctrl-C (SIGINT) or SIGTERM stops it cleanly
(checkpoint saved, exit status 0).

Options:
  --forward-to <url>      where to POST each event (required), such as
                          http://localhost:3000/webhooks
  --events <types>        comma-separated event types to forward
                          [default: ${SUBSCRIBABLE_EVENT_TYPES.join(", ")}]
  --since <when>          also forward the events since then: a duration back
                          from the service's time (30m, 2h, 1d) or an ISO 8601
                          date-time. Default: only events written after start.
  --secret-file <file>    sign with the secret in <file> (keep one across
                          runs); default: $MEDRECORDS_WEBHOOK_SECRET, else a
                          new secret, printed on start
  --secret <whsec_...>    the secret itself; visible in the process list and
                          shell history (a warning says so): prefer the
                          environment variable or --secret-file
  --checkpoint <file>     keep the position in <file> and resume from it on
                          the next run, without forwarding an event again
  --retry-schedule <s>    "dev": the service's retry delays divided by ${LISTEN_RETRY_SPEEDUP}
                          (1s, 5s, 30s, 2min); "spec": the service's own
                          (1min, 5min, 30min, 2h)            [default: dev]
  --interval <duration>   time between polls of the log      [default: 1s]
  --base-url <url>        address of the service (default: $MEDRECORDS_BASE_URL)
  -h, --help              show this help

Environment:
  MEDRECORDS_API_KEY      the API key (required; never taken as a flag). It
                          needs webhooks:read and retrievals:read.
  MEDRECORDS_BASE_URL     address of the service when --base-url is not given
  MEDRECORDS_WEBHOOK_SECRET  the secret to sign with, when neither --secret
                          nor --secret-file is given

Output: one line when ready (with the secret), then one line per attempt:
  <time>  <type>  <event id>  <retrieval request>  <what>  <status>  <ms>ms
<time> is the event's, on the service's clock (a mock's, however advanced or
sped up: what the receiver sees), not this machine's; <event id> is cut short
(rr- and 8 characters); <what> is the new status/stage, the action request,
or the documents released. <status> is the receiver's HTTP status,
"timeout", or error(<code>); a failed attempt adds when it is retried.
Retries pending when the command stops are listed on stderr (start again
with --since to send them again).

Example, against a mock that accepts your own key (and keeps it across its
restarts):
  export MEDRECORDS_API_KEY=medrecords_sk_live_$(openssl rand -hex 16)
  medrecords mock --autopilot --speed 60 &
  export MEDRECORDS_BASE_URL=http://127.0.0.1:4010
  medrecords listen --forward-to http://localhost:3000/webhooks
`;

export async function listenCommand(
  argv: string[],
  io: CommandIo,
  deps: { fetch?: typeof fetch } = {},
): Promise<number> {
  const flags = parseFlags(
    argv,
    {
      "forward-to": { type: "string" },
      events: { type: "string" },
      since: { type: "string" },
      secret: { type: "string" },
      "secret-file": { type: "string" },
      checkpoint: { type: "string" },
      "retry-schedule": { type: "string" },
      interval: { type: "string" },
      "base-url": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    "listen",
    io.env,
  );
  if (flags.help) {
    io.stdout(LISTEN_HELP);
    return 0;
  }
  const forwardTo = flags["forward-to"];
  if (forwardTo === undefined) throw new UsageError(`--forward-to <url> is required; ${SEE_HELP}`);
  if (!isHttpUrl(forwardTo)) {
    throw new UsageError(
      `--forward-to must be an http or https address such as http://localhost:3000/webhooks, not ${shown(forwardTo, io.env)}; ${SEE_HELP}`,
    );
  }
  const types = eventsFlag(flags.events);
  const schedule = flags["retry-schedule"] ?? "dev";
  if (schedule !== "dev" && schedule !== "spec") {
    throw new UsageError(`--retry-schedule must be "dev" or "spec"; ${SEE_HELP}`);
  }
  const given = await givenSecret(flags.secret, flags["secret-file"], io);
  if (flags.checkpoint !== undefined && flags.checkpoint.trim() === "") {
    throw new UsageError(`--checkpoint needs a file path; ${SEE_HELP}`);
  }
  const since = flags.since === undefined ? undefined : parseSince(flags.since, io.env, SEE_HELP);
  const intervalMs =
    flags.interval === undefined
      ? DEFAULT_INTERVAL_MS
      : parseInterval(flags.interval, io.env, SEE_HELP);

  const apiKey = io.env.MEDRECORDS_API_KEY;
  if (apiKey === undefined || apiKey.trim() === "") {
    throw new CommandError(
      "MEDRECORDS_API_KEY is not set: export the API key in the environment (it is never taken as a flag).",
    );
  }
  const redact = redactor(apiKey);
  const baseUrl = flags["base-url"] ?? io.env.MEDRECORDS_BASE_URL;
  if (baseUrl === undefined || baseUrl.trim() === "" || !isHttpUrl(baseUrl)) {
    throw new UsageError(
      `no service address: pass --base-url or set MEDRECORDS_BASE_URL to an http or https address; ${SEE_HELP}`,
    );
  }

  // Ends everything: Ctrl-C, or a retry's line that met a closed output.
  const fatal = new AbortController();
  let fatalError: unknown;
  const signal = AbortSignal.any([io.signal, fatal.signal]);
  let mr: MedRecords;
  const apiFetch = abortableFetch(commandFetch(deps.fetch, baseUrl), signal);
  try {
    mr = new MedRecords({ apiKey, baseUrl, fetch: apiFetch, logger: commandLogger(io) });
  } catch (error) {
    throw new CommandError(redact(`MEDRECORDS_API_KEY: ${messageOf(error)}`));
  }
  // The poller judges the checkpoint by the service's clock (its Date header): a fast mock needs nothing more.
  const store: CheckpointStore =
    flags.checkpoint === undefined
      ? memoryCheckpoint()
      : describedStore(fileCheckpoint(flags.checkpoint), flags.checkpoint);
  const secret = given?.secret ?? newSecret();
  const forwarder = createForwarder({
    url: forwardTo,
    secret,
    retryDelaysMs: retryDelaysMs(schedule),
    // Awaited by the poller: an event counts as handled once its line went out.
    print: async (line) => {
      await io.stdout(line);
    },
    signal,
    onFatal: (error) => {
      fatalError = error;
      fatal.abort(error);
    },
  });
  const warn = (gap: EventLogGap) =>
    io.stderr(
      `medrecords listen: warning: the position to continue from (${terminalSafe(gap.checkpoint.created_at)}) is older than the event log's ${EVENT_RETENTION_DAYS}-day retention; continuing from ${terminalSafe(gap.oldestAvailable)}.\n`,
    );

  try {
    if (signal.aborted) return 0;
    const saved = await store.load();
    if (saved === null) {
      const start =
        since === undefined ? await positionAfterNewest(mr, types) : await positionSince(mr, since);
      if (start !== null) await store.save(start);
    } else if (since !== undefined) {
      io.stderr(
        `medrecords listen: resuming from the checkpoint in ${flags.checkpoint} (${saved.created_at}); --since is ignored.\n`,
      );
    }
    await io.stdout(
      `Ready: forwarding ${types.length === SUBSCRIBABLE_EVENT_TYPES.length ? "every event" : types.join(", ")} of ${mr.baseUrl} to ${forwardTo}, signed with ${given === undefined ? `the webhook secret ${secret}` : `the secret from ${given.from}`} (Ctrl-C to stop)\n`,
    );

    const poller = mr.events.catchUp({
      checkpoint: store,
      // Checked against the SDK's event types when the flags were parsed.
      types: types as EventType[],
      pageSize: PAGE_SIZE,
      onEvent: (event) => forwarder.deliver(event),
      onGap: warn,
    });
    const stop = () => void poller.stop();
    signal.addEventListener("abort", stop, { once: true });
    try {
      while (!signal.aborted) {
        await poller.runOnce();
        await sleepUnlessAborted(intervalMs, signal);
      }
    } finally {
      signal.removeEventListener("abort", stop);
    }
    if (fatalError !== undefined) throw fatalError;
    return 0;
  } catch (error) {
    if (error instanceof OutputClosedError) throw error;
    if (fatalError instanceof OutputClosedError) throw fatalError;
    // An attempt or a request cut short by Ctrl-C: the checkpoint holds what was delivered.
    if (signal.aborted && !(error instanceof CommandError)) return 0;
    throw failure(error, mr.baseUrl, redact, "listen");
  } finally {
    const pending = forwarder.pending();
    if (pending.length > 0 && !(fatalError instanceof OutputClosedError)) {
      io.stderr(
        `medrecords listen: stopped with ${pending.length} event(s) waiting for a retry, not sent again: ${pending.map(terminalSafe).join(", ")}\n`,
      );
    }
  }
}

function eventsFlag(value: string | undefined): string[] {
  if (value === undefined) return [...SUBSCRIBABLE_EVENT_TYPES];
  const types = [...new Set(value.split(",").map((type) => type.trim()))];
  const known: readonly string[] = SUBSCRIBABLE_EVENT_TYPES;
  const unknown = types.find((type) => !known.includes(type));
  if (unknown !== undefined) {
    throw new UsageError(
      `--events: ${JSON.stringify(unknown)} is not an event type a webhook receives; expected a comma-separated list of ${known.join(", ")}; ${SEE_HELP}`,
    );
  }
  return types;
}

const SECRET_SHAPE = /^whsec_\S+$/;

/**
 * The secret to sign with, if one was given: `--secret` (with a warning: the
 * process list and shell history show it), `--secret-file` (its content, the
 * line end trimmed), or MEDRECORDS_WEBHOOK_SECRET. `from` names the source
 * for the ready line; the secret itself is never printed back.
 */
async function givenSecret(
  flag: string | undefined,
  file: string | undefined,
  io: CommandIo,
): Promise<{ secret: string; from: string } | undefined> {
  if (flag !== undefined && file !== undefined) {
    throw new UsageError(
      `--secret and --secret-file are two ways to give one secret: pass one; ${SEE_HELP}`,
    );
  }
  if (flag !== undefined) {
    if (!SECRET_SHAPE.test(flag)) {
      throw new UsageError(`--secret must look like whsec_<secret>; ${SEE_HELP}`);
    }
    io.stderr(
      "medrecords listen: warning: --secret puts the secret in the process list and shell history; set MEDRECORDS_WEBHOOK_SECRET or pass --secret-file <file> instead.\n",
    );
    return { secret: flag, from: "--secret" };
  }
  if (file !== undefined) {
    if (file.trim() === "") throw new UsageError(`--secret-file needs a file path; ${SEE_HELP}`);
    let text: string;
    try {
      const { readFile } = await import("node:fs/promises");
      text = await readFile(file, "utf8");
    } catch (error) {
      throw new CommandError(`--secret-file: cannot read ${file}: ${messageOf(error)}`);
    }
    const secret = text.trim();
    if (!SECRET_SHAPE.test(secret)) {
      throw new CommandError(
        `--secret-file: ${file} does not hold one secret shaped whsec_<secret> (its content is not shown)`,
      );
    }
    return { secret, from: file };
  }
  const env = io.env.MEDRECORDS_WEBHOOK_SECRET;
  if (env === undefined || env.trim() === "") return undefined;
  if (!SECRET_SHAPE.test(env.trim())) {
    throw new CommandError(
      "MEDRECORDS_WEBHOOK_SECRET is set but is not shaped whsec_<secret> (its value is not shown)",
    );
  }
  return { secret: env.trim(), from: "MEDRECORDS_WEBHOOK_SECRET" };
}

/** `whsec_` and 32 base62 characters, as the service's secrets look. */
function newSecret(): string {
  const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  const bytes = crypto.getRandomValues(new Uint8Array(64));
  let out = "";
  // Rejection sampling keeps every character equally likely.
  for (const byte of bytes) {
    if (byte < 248 && out.length < 32) out += alphabet[byte % 62];
  }
  return out.length === 32 ? `whsec_${out}` : newSecret();
}
