/** The flags and environment of `medrecords listen`, checked before anything is sent. */
import { SUBSCRIBABLE_EVENT_TYPES } from "../schemas/events.js";
import { parseFlags, shown } from "./args.js";
import { messageOf } from "./error-text.js";
import { isHttpUrl } from "./http-url.js";
import { parseInterval } from "./interval.js";
import { parseSince, type Since } from "./since.js";
import { CommandError, type CommandIo, UsageError } from "./usage-error.js";

export const LISTEN_SEE_HELP = "see medrecords listen --help";
const SEE_HELP = LISTEN_SEE_HELP;
/** Polls once a second by default: a development loop wants to see its event now. */
const DEFAULT_INTERVAL_MS = 1_000;

export interface ListenOptions {
  forwardTo: string;
  types: string[];
  schedule: "dev" | "spec";
  /** The secret given (`from` names its source, never the secret), or none: a new one. */
  given: { secret: string; from: string } | undefined;
  checkpointPath: string | undefined;
  since: Since | undefined;
  intervalMs: number;
  baseUrl: string | undefined;
}

/** The options of a run, or "help" when `--help` was asked for. */
export async function parseListenOptions(
  argv: string[],
  io: CommandIo,
): Promise<ListenOptions | "help"> {
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
  if (flags.help) return "help";
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
  return {
    forwardTo,
    types,
    schedule,
    given,
    checkpointPath: flags.checkpoint,
    since: flags.since === undefined ? undefined : parseSince(flags.since, io.env, SEE_HELP),
    intervalMs:
      flags.interval === undefined
        ? DEFAULT_INTERVAL_MS
        : parseInterval(flags.interval, io.env, SEE_HELP),
    baseUrl: flags["base-url"],
  };
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
  if (file !== undefined) return secretFromFile(file);
  const env = io.env.MEDRECORDS_WEBHOOK_SECRET;
  if (env === undefined || env.trim() === "") return undefined;
  if (!SECRET_SHAPE.test(env.trim())) {
    throw new CommandError(
      "MEDRECORDS_WEBHOOK_SECRET is set but is not shaped whsec_<secret> (its value is not shown)",
    );
  }
  return { secret: env.trim(), from: "MEDRECORDS_WEBHOOK_SECRET" };
}

async function secretFromFile(file: string): Promise<{ secret: string; from: string }> {
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

/** `whsec_` and 32 base62 characters, as the service's secrets look. */
export function newSecret(): string {
  const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  const bytes = crypto.getRandomValues(new Uint8Array(64));
  let out = "";
  // Rejection sampling keeps every character equally likely.
  for (const byte of bytes) {
    if (byte < 248 && out.length < 32) out += alphabet[byte % 62];
  }
  return out.length === 32 ? `whsec_${out}` : newSecret();
}
