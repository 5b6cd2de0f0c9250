/**
 * `--since` of `medrecords listen` and `medrecords events tail`, one grammar
 * for both: a duration back from the service's time (src/internal/duration.ts:
 * 30m, 2h, 1d) or an ISO 8601 date-time with offset, or a date (midnight UTC).
 */
import * as z from "zod";
import type { MedRecords } from "../client.js";
import { DURATION_EXAMPLES, parseDurationText } from "../internal/duration.js";
import type { Checkpoint } from "../shared/checkpoint-store.js";
import { WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS } from "../shared/tolerance.js";
import { shown } from "./args.js";
import { CommandError, type CommandIo, UsageError } from "./usage-error.js";

/** Where to start: so long before the service's now, or an instant. */
export type Since = { backMs: number } | { atMs: number };

const SINCE_DATE = z.iso.date();
const SINCE_DATE_TIME = z.iso.datetime({ offset: true });

/** Parses a `--since` value; a UsageError that never echoes what could be a key. */
export function parseSince(value: string, env: CommandIo["env"], seeHelp: string): Since {
  const text = value.trim();
  const backMs = parseDurationText(text);
  if (backMs !== undefined) return { backMs };
  let atMs = Number.NaN;
  if (SINCE_DATE.safeParse(text).success) atMs = Date.parse(`${text}T00:00:00Z`);
  else if (SINCE_DATE_TIME.safeParse(text).success) atMs = Date.parse(text);
  if (Number.isNaN(atMs)) {
    throw new UsageError(
      `--since needs a duration back from the service's time (${DURATION_EXAMPLES}), an ISO 8601 date-time with offset such as 2026-06-15T12:00:00Z, or a date such as 2026-06-15, not ${shown(value, env)}; ${seeHelp}`,
    );
  }
  return { atMs };
}

/**
 * The position a `--since` start names. A duration counts back from the
 * service's time (the Date header of a read of the log, as the poller
 * judges time), not this machine's: a mock's clock may be anywhere. An
 * instant after the service's time (beyond the timestamp tolerance) is
 * refused, as the poller would refuse it as a checkpoint.
 */
export async function positionSince(mr: MedRecords, since: Since): Promise<Checkpoint> {
  const { response } = await mr.events.list({ limit: 1 }).withResponse();
  const headerMs = Date.parse(response.headers.get("date") ?? "");
  const serviceMs = Number.isNaN(headerMs) ? Date.now() : headerMs;
  const atMs = "atMs" in since ? since.atMs : serviceMs - since.backMs;
  if (atMs > serviceMs + 999 + WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS * 1000) {
    throw new CommandError(
      `--since ${new Date(atMs).toISOString()} is after the service's time (${new Date(serviceMs).toISOString()}${Number.isNaN(headerMs) ? ", this machine's clock" : ", its Date header"}): no event is that new yet. Give a time before it, or a duration such as 1h.`,
    );
  }
  // Nothing processed at the instant yet, so events at exactly --since come too.
  return { created_at: new Date(atMs).toISOString(), ids_at_created_at: [] };
}
