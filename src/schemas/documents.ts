import { z } from "zod";
import { IsoDateTime, ListParams } from "./common.js";

/** A file attached to a case. */
export const Document = z.strictObject({
  id: z.string(),
  case_id: z.string(),
  file_name: z.string(),
  file_size: z.number().int().nonnegative(),
  file_type: z.string(),
  path: z.string().nullable().optional(),
  archived: z.boolean(),
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
});
export type Document = z.infer<typeof Document>;

export const DocumentCreate = z.strictObject({
  upload_id: z.string().min(1),
  path: z.string().nullable().optional(),
});
export type DocumentCreate = z.infer<typeof DocumentCreate>;

export const DocumentUpdate = z.strictObject({
  path: z.string().nullable().optional(),
  archived: z.boolean().optional(),
});
export type DocumentUpdate = z.infer<typeof DocumentUpdate>;

export const DownloadResponse = z.strictObject({
  download_url: z.url(),
  expires_in: z.number().int().positive(),
});
export type DownloadResponse = z.infer<typeof DownloadResponse>;

/** Query of GET /v2/documents; `archived` travels as `true`/`false`. */
export const DocumentListParams = ListParams.extend({
  case_id: z.string().min(1).optional(),
  archived: z
    .union([
      z.boolean(),
      z.enum(["true", "false"], { error: "Expected true or false" }).transform((v) => v === "true"),
    ])
    .optional(),
});
export type DocumentListParams = z.input<typeof DocumentListParams>;
