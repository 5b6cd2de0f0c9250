/**
 * The check every checkpoint store applies to what it loads and saves.
 */
import { IsoDateTime } from "../schemas/common.js";
import type { Checkpoint } from "../shared/checkpoint-store.js";
import { instantOf } from "../shared/checkpoint-store.js";
import { MedRecordsError } from "../shared/errors.js";

/** Checks the shape of a loaded checkpoint; a corrupt one is an error, never a silent restart. */
export function parseCheckpoint(value: unknown, where: string): Checkpoint {
  const candidate = value as Partial<Checkpoint> | null;
  if (
    typeof candidate !== "object" ||
    candidate === null ||
    typeof candidate.created_at !== "string" ||
    Number.isNaN(instantOf(candidate.created_at).ms) ||
    !Array.isArray(candidate.ids_at_created_at) ||
    !candidate.ids_at_created_at.every((id) => typeof id === "string")
  ) {
    throw new MedRecordsError(
      `${where} is not a checkpoint: expected { "created_at": "<ISO date-time>", "ids_at_created_at": ["<event id>", ...] }.`,
    );
  }
  // Date.parse reads a date-time without a zone in this machine's zone: the
  // same checkpoint would name different instants on different machines.
  if (!IsoDateTime.safeParse(candidate.created_at).success) {
    throw new MedRecordsError(
      `${where} has created_at ${quote(candidate.created_at)}, which is not an RFC 3339 date-time with a time zone (Z or an offset such as +02:00), so the instant it names would depend on this machine's zone. Write the created_at of the last processed event as the service sent it (e.g. 2026-01-01T00:00:00Z), or remove the checkpoint to start again from the oldest event the log holds.`,
    );
  }
  return { created_at: candidate.created_at, ids_at_created_at: [...candidate.ids_at_created_at] };
}

/** A value for an error message: quoted, and cut short if a corrupt store holds something long. */
export function quote(text: string): string {
  return JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}…` : text);
}
