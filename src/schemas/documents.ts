import * as z from "zod";
import type * as Wire from "../types/wire.js";
import { IsoDateTime, ListParams } from "./common.js";

/** A file attached to a case. */
export const Document = z.strictObject({
  id: z.string().meta({ description: "Opaque identifier." }),
  case_id: z.string().meta({ description: "The case it is attached to." }),
  file_name: z.string().meta({ description: "As given when the upload was signed." }),
  file_size: z.number().int().nonnegative().meta({ description: "Bytes." }),
  file_type: z.string().meta({ description: "MIME type, as given when the upload was signed." }),
  path: z.string().nullable().optional().meta({
    description: "Virtual path used to group documents in a user interface, e.g. `/intake`.",
  }),
  archived: z.boolean().meta({ description: "Set by an update; listings can filter on it." }),
  created_at: IsoDateTime.meta({ description: "ISO 8601 date-time." }),
  updated_at: IsoDateTime.meta({ description: "ISO 8601 date-time; changes with every update." }),
});
export interface Document extends Wire.Document {}

/** Request body that attaches uploaded bytes to a case as a document. */
export const DocumentCreate = z.strictObject({
  upload_id: z.string().min(1).meta({
    description:
      "From case-level signing, after the bytes were PUT; usable once, within an hour of signing.",
  }),
  path: z
    .string()
    .nullable()
    .optional()
    .meta({ description: "Virtual grouping path, e.g. `/intake`." }),
});
export interface DocumentCreate extends Wire.DocumentCreate {}

/** Request body of a partial document update: only supplied fields change. */
export const DocumentUpdate = z.strictObject({
  path: z
    .string()
    .nullable()
    .optional()
    .meta({ description: "Virtual grouping path; null removes it." }),
  archived: z
    .boolean()
    .optional()
    .meta({ description: "True archives the document, false unarchives it." }),
});
export interface DocumentUpdate extends Wire.DocumentUpdate {}

/** A presigned address to download a file from; it needs no API key. */
export const DownloadResponse = z.strictObject({
  download_url: z.url().meta({ description: "Presigned GET address of the bytes." }),
  expires_in: z
    .number()
    .int()
    .positive()
    .meta({ description: "Seconds the address stays valid: 3600." }),
});
export interface DownloadResponse extends Wire.DownloadResponse {}

/** Query of GET /v2/documents; `archived` travels as `true`/`false`. */
export const DocumentListParams = ListParams.extend({
  case_id: z.string().min(1).optional().meta({ description: "Only the documents of this case." }),
  archived: z
    .union([
      z.boolean(),
      z.enum(["true", "false"], { error: "Expected true or false" }).transform((v) => v === "true"),
    ])
    .optional()
    .meta({
      description: "Only archived (true) or only unarchived (false) documents; both when absent.",
    }),
});
export interface DocumentListParams extends Wire.DocumentListParams {}
