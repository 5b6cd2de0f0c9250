import { z } from "zod";
import { IsoDateTime, MimeType } from "./common.js";

/**
 * Case-level signing request. The spec gives no length bound at case level;
 * both fields are still required and non-empty, and file_type must be a MIME type.
 */
export const SignUploadRequest = z.strictObject({
  file_name: z.string().min(1),
  file_type: MimeType,
});
export type SignUploadRequest = z.infer<typeof SignUploadRequest>;

/** Retrieval-level signing request: file_name 1 to 500, file_type 1 to 200. */
export const RetrievalSignUploadRequest = z.strictObject({
  file_name: z.string().min(1).max(500),
  file_type: MimeType.min(1).max(200),
});
export type RetrievalSignUploadRequest = z.infer<typeof RetrievalSignUploadRequest>;

export const SignUploadResponse = z.strictObject({
  upload_id: z.uuid(),
  upload_url: z.url(),
  expires_at: IsoDateTime,
});
export type SignUploadResponse = z.infer<typeof SignUploadResponse>;

/** How long the presigned PUT address accepts bytes: 15 minutes. */
export const UPLOAD_URL_TTL_MS = 15 * 60 * 1000;
/** How long an upload_id may be consumed after signing: 1 hour. */
export const UPLOAD_ID_TTL_MS = 60 * 60 * 1000;
/** Validity of a presigned download address, in seconds. */
export const DOWNLOAD_URL_TTL_SECONDS = 3600;
