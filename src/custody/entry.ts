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
  /** SHA-256 of the entry's canonical form (see {@link canonicalEntry}), lowercase hex. */
  hash: Hex64,
});
export interface CustodyEntry extends Wire.CustodyEntry {}

/** What the client hands a log to append: an entry before the log numbers and chains it. */
export type CustodyRecord = Omit<CustodyEntry, "seq" | "prev_hash" | "hash">;

/**
 * The canonical form an entry's `hash` covers: every field of the entry but
 * `hash` (so `prev_hash` too, which makes the chain), as JSON with the keys in
 * ascending order, no whitespace, strings escaped as `JSON.stringify` does,
 * integers in plain decimal; the hash is SHA-256 over its UTF-8 bytes. For
 * entries (strings, integers, null) this is exactly RFC 8785, the JSON
 * Canonicalization Scheme, so any JCS library and `sha256sum` recompute it.
 */
export function canonicalEntry(entry: Readonly<Record<string, unknown>>): string {
  const keys = Object.keys(entry)
    .filter((key) => key !== "hash")
    .sort();
  let text = "{";
  for (const key of keys) {
    if (text.length > 1) text += ",";
    text += `${JSON.stringify(key)}:${JSON.stringify(entry[key])}`;
  }
  return `${text}}`;
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
  const unhashed = { seq: prevSeq + 1, ...record, prev_hash: prevHash };
  return { ...unhashed, hash: await entryHash(unhashed) };
}

/**
 * An entry as one JSON line, fields in the documented order (the order does
 * not matter to the hash; it is for the people who read the file).
 */
export function entryLine(entry: CustodyEntry): string {
  const ordered: CustodyEntry = {
    seq: entry.seq,
    at: entry.at,
    action: entry.action,
    document_id: entry.document_id,
    retrieval_request_id: entry.retrieval_request_id,
    case_id: entry.case_id,
    file_name: entry.file_name,
    file_type: entry.file_type,
    bytes: entry.bytes,
    sha256: entry.sha256,
    request_id: entry.request_id,
    actor: entry.actor,
    prev_hash: entry.prev_hash,
    hash: entry.hash,
  };
  return `${JSON.stringify(ordered)}\n`;
}
