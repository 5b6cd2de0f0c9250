import * as z from "zod";
import type * as Wire from "../types/wire.js";
import { IsoDateTime, MimeType } from "./common.js";
import { personal, presignedUrl } from "./sensitive.js";

/**
 * Case-level signing request. The spec gives no length bound at case level;
 * both fields are still required and non-empty, and file_type must be a MIME type.
 */
export const SignUploadRequest = z.strictObject({
  /** Name the document will carry. */
  file_name: personal("file_name", z.string().min(1)),
  /** MIME type, e.g. `application/pdf`: the PUT must send the same `Content-Type`. */
  file_type: MimeType,
});
export interface SignUploadRequest extends Wire.SignUploadRequest {}

/** Longest `file_name` of a retrieval-level signing request. */
export const RETRIEVAL_UPLOAD_FILE_NAME_MAX = 500;
/** Longest `file_type` of a retrieval-level signing request. */
export const RETRIEVAL_UPLOAD_FILE_TYPE_MAX = 200;

/** Retrieval-level signing request: file_name and file_type bounded ({@link RETRIEVAL_UPLOAD_FILE_NAME_MAX}, {@link RETRIEVAL_UPLOAD_FILE_TYPE_MAX}). */
export const RetrievalSignUploadRequest = z.strictObject({
  /** Name of the file, 1 to {@link RETRIEVAL_UPLOAD_FILE_NAME_MAX} characters. */
  file_name: personal("file_name", z.string().min(1).max(RETRIEVAL_UPLOAD_FILE_NAME_MAX)),
  /** MIME type, up to {@link RETRIEVAL_UPLOAD_FILE_TYPE_MAX} characters: the PUT must send the same `Content-Type`. */
  file_type: MimeType.min(1).max(RETRIEVAL_UPLOAD_FILE_TYPE_MAX),
});
export interface RetrievalSignUploadRequest extends Wire.RetrievalSignUploadRequest {}

/** Where to PUT the bytes of a file, and the id that attaches them afterwards. */
export const SignUploadResponse = z.strictObject({
  /** A UUID, usable once within an hour of signing (`expires_at`). */
  upload_id: z.uuid(),
  /** Presigned PUT address: send the bytes within {@link UPLOAD_URL_TTL_MINUTES} minutes, without the API key. */
  upload_url: presignedUrl(z.url()),
  /** When `upload_id` expires: one hour after signing. */
  expires_at: IsoDateTime,
});
export interface SignUploadResponse extends Wire.SignUploadResponse {}

/** How long the presigned PUT address accepts bytes, in minutes. */
export const UPLOAD_URL_TTL_MINUTES = 15;
/** {@link UPLOAD_URL_TTL_MINUTES} in ms. */
export const UPLOAD_URL_TTL_MS = UPLOAD_URL_TTL_MINUTES * 60 * 1000;
/** How long an upload_id may be consumed after signing, in ms (spec, Uploads). */
export const UPLOAD_ID_TTL_MS = 60 * 60 * 1000;
/** Validity of a presigned download address, in seconds. */
export const DOWNLOAD_URL_TTL_SECONDS = 3600;
