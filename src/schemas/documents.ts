import * as z from "zod";
import type * as Wire from "../types/wire.js";
import { IsoDateTime, ListParams } from "./common.js";
import { personal, presignedUrl } from "./sensitive.js";

// A document's virtual path names what it holds (`/intake/er-notes`): personal.
const documentPath = personal("document_path", z.string());

/** A file attached to a case. */
export const Document = z.strictObject({
  /** Opaque identifier. */
  id: z.string(),
  /** The case it is attached to. */
  case_id: z.string(),
  /** As given when the upload was signed. */
  file_name: personal("file_name", z.string()),
  /** Bytes. */
  file_size: z.number().int().nonnegative(),
  /** MIME type, as given when the upload was signed. */
  file_type: z.string(),
  /** Virtual path used to group documents in a user interface, e.g. `/intake`. */
  path: documentPath.nullable().optional(),
  /** Set by an update; listings can filter on it. */
  archived: z.boolean(),
  /** ISO 8601 date-time. */
  created_at: IsoDateTime,
  /** ISO 8601 date-time; changes with every update. */
  updated_at: IsoDateTime,
});
export interface Document extends Wire.Document {}

/** Request body that attaches uploaded bytes to a case as a document. */
export const DocumentCreate = z.strictObject({
  /** From case-level signing, after the bytes were PUT; usable once, within an hour of signing. */
  upload_id: z.string().min(1),
  /** Virtual grouping path, e.g. `/intake`. */
  path: documentPath.nullable().optional(),
});
export interface DocumentCreate extends Wire.DocumentCreate {}

/** Request body of a partial document update: only supplied fields change. */
export const DocumentUpdate = z.strictObject({
  /** Virtual grouping path; null removes it. */
  path: documentPath.nullable().optional(),
  /** True archives the document, false unarchives it. */
  archived: z.boolean().optional(),
});
export interface DocumentUpdate extends Wire.DocumentUpdate {}

/** A presigned address to download a file from; it needs no API key. */
export const DownloadResponse = z.strictObject({
  /** Presigned GET address of the bytes. */
  download_url: presignedUrl(z.url()),
  /** Seconds the address stays valid: `DOWNLOAD_URL_TTL_SECONDS`. */
  expires_in: z.number().int().positive(),
});
export interface DownloadResponse extends Wire.DownloadResponse {}

/** Query of GET /v2/documents; `archived` travels as `true`/`false`. */
export const DocumentListParams = ListParams.extend({
  /** Only the documents of this case. */
  case_id: z.string().min(1).optional(),
  /** Only archived (true) or only unarchived (false) documents; both when absent. */
  archived: z
    .union([
      z.boolean(),
      z.enum(["true", "false"], { error: "Expected true or false" }).transform((v) => v === "true"),
    ])
    .optional(),
});
export interface DocumentListParams extends Wire.DocumentListParams {}
