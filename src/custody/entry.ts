import * as z from "zod";
import type * as Wire from "../types/wire.js";
import { sha256Hex } from "./sha256.js";

/** 64 lowercase hex characters: a SHA-256 digest as every custody field writes it. */
const Hex64 = z.string().regex(/^[0-9a-f]{64}$/, "Expected 64 lowercase hex characters");

/** The `prev_hash` of entry 1: there is no entry before it. */
export const CUSTODY_GENESIS_HASH = "0".repeat(64);

/**
 * One entry of a custody log: a file the client downloaded or uploaded,
 * appended when its stream completed. Together the entries are a hash chain:
 * each `hash` covers the entry's fields and the previous entry's `hash`.
 */
export const CustodyEntry = z.object({
  /** Position in the log: 1 for the first entry, then one more for each. */
  seq: z.number().int().positive(),
  /** When the stream completed, ISO 8601 UTC with milliseconds (this machine's clock). */
  at: z.iso.datetime({ offset: false, precision: 3 }),
  /** `"download"`: the client received the file; `"upload"`: the client sent it (the service stored it). */
  action: z.enum(["download", "upload"]),
  /** The case document or retrieval document, when the operation names one (null otherwise). */
  document_id: z.string().nullable(),
  /** The retrieval request the document belongs to, when known. */
  retrieval_request_id: z.string().nullable(),
  /** The case, when known. */
  case_id: z.string().nullable(),
  /** The file's name as the service gave it or the upload was signed with (`"[redacted]"` under `redactFileNames`). */
  file_name: z.string(),
  /** MIME type, as the service gave it or the upload was signed with. */
  file_type: z.string(),
  /** Bytes that streamed. */
  bytes: z.number().int().nonnegative(),
  /** SHA-256 of exactly those bytes, lowercase hex. */
  sha256: Hex64,
  /** `X-Request-Id` of the API call that issued the presigned address the bytes went through. */
  request_id: z.string().nullable(),
  /** Who handled the file: `custodyActor`, else the API key's redacted identity (never the key). */
  actor: z.string(),
  /** `hash` of the entry before, or 64 zeros for entry 1. */
  prev_hash: Hex64,
  /**
   * The rule the entry is stored under: `2`, its stored text is exactly its
   * canonical form (RFC 8785) with `hash`. Absent from entries written before
   * that rule, whose text is their fields in the documented order.
   */
  v: z.literal(2).optional(),
  /** SHA-256 of the entry's canonical form without `hash` (see {@link canonicalEntry}), lowercase hex. */
  hash: Hex64,
});
export interface CustodyEntry extends Wire.CustodyEntry {}

/** What the client hands a log to append: an entry before the log numbers and chains it. */
export type CustodyRecord = Omit<CustodyEntry, "seq" | "prev_hash" | "hash" | "v">;

/** The `v` of every entry written now: stored as its canonical form. */
export const CUSTODY_ENTRY_VERSION = 2;

/**
 * An entry's fields in the order people read them: the export's columns,
 * and the order entries were stored in before version 2.
 */
export const ENTRY_FIELDS = [
  "seq",
  "at",
  "action",
  "document_id",
  "retrieval_request_id",
  "case_id",
  "file_name",
  "file_type",
  "bytes",
  "sha256",
  "request_id",
  "actor",
  "prev_hash",
  "hash",
] as const;

/**
 * RFC 8785, the JSON Canonicalization Scheme, of a JSON value: object keys
 * sorted by UTF-16 code units, no whitespace, strings and numbers as
 * ECMAScript's `JSON.stringify` writes them (which is what RFC 8785 defines).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const object = value as Record<string, unknown>;
    const members = Object.keys(object)
      .sort()
      .filter((key) => object[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key])}`);
    return `{${members.join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * The canonical form an entry's `hash` covers: RFC 8785 of every field of the
 * entry but `hash` (so `prev_hash` too, which makes the chain); the hash is
 * SHA-256 over its UTF-8 bytes, so any JCS library and `sha256sum` recompute it.
 */
export function canonicalEntry(entry: Readonly<Record<string, unknown>>): string {
  const { hash: _hash, ...rest } = entry;
  return canonicalJson(rest);
}

/** The `hash` an entry must carry: SHA-256 hex of its canonical form. */
export function entryHash(entry: Readonly<Record<string, unknown>>): Promise<string> {
  return sha256Hex(canonicalEntry(entry));
}

/** Numbers and chains `record` after the entry whose hash is `prevHash` (seq `prevSeq`). */
export async function chainEntry(
  record: CustodyRecord,
  prevSeq: number,
  prevHash: string,
): Promise<CustodyEntry> {
  const unhashed = {
    seq: prevSeq + 1,
    ...record,
    prev_hash: prevHash,
    v: CUSTODY_ENTRY_VERSION as 2,
  };
  return { ...unhashed, hash: await entryHash(unhashed) };
}

/**
 * The text an entry is stored as: under version 2, its canonical form with
 * `hash` (RFC 8785 of the whole entry, so a reader, `grep` and the hash see
 * the same bytes); before, its fields in the documented order as
 * `JSON.stringify` wrote them.
 */
export function entryText(entry: Readonly<Record<string, unknown>>): string {
  if (entry.v === CUSTODY_ENTRY_VERSION) return canonicalJson(entry);
  return JSON.stringify(Object.fromEntries(ENTRY_FIELDS.map((field) => [field, entry[field]])));
}

/** An entry as one line of a file log. */
export function entryLine(entry: CustodyEntry): string {
  return `${entryText(entry as unknown as Record<string, unknown>)}\n`;
}
