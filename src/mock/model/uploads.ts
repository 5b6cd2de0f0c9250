/**
 * Signed uploads: the upload_id (valid 1 h, used once) and its presigned PUT
 * address (valid UPLOAD_URL_TTL_MINUTES), checked like an object store checks a signed URL.
 */
import {
  type SignUploadRequest,
  type SignUploadResponse,
  UPLOAD_ID_TTL_MS,
  UPLOAD_URL_TTL_MINUTES,
  UPLOAD_URL_TTL_MS,
} from "../../schemas/uploads.js";
import { MockApiError, notFound } from "../runtime/http-error.js";
import { randomToken, toHex } from "../runtime/ids.js";
import { defineSlice, type ModelContext, nowMs } from "./state.js";

export interface StoredUpload {
  readonly id: string;
  readonly token: string;
  /** The case it was signed under; null for retrieval-level signing. */
  readonly caseId: string | null;
  readonly fileName: string;
  readonly fileType: string;
  readonly signedAtMs: number;
  bytes: Uint8Array | null;
  consumed: boolean;
}

/** This module's slice of the state: uploads by upload_id, and each presigned PUT token's upload_id. */
const uploadsSlice = defineSlice("uploads", () => ({
  uploads: new Map<string, StoredUpload>(),
  tokens: new Map<string, string>(),
}));

/** Signs an upload under a case, or at retrieval level when `caseId` is null. */
export function signUpload(
  ctx: ModelContext,
  caseId: string | null,
  request: SignUploadRequest,
): SignUploadResponse {
  const signedAtMs = nowMs(ctx);
  const upload: StoredUpload = {
    id: ctx.ids.uuid("upload"),
    token: randomToken(),
    caseId,
    fileName: request.file_name,
    fileType: request.file_type,
    signedAtMs,
    bytes: null,
    consumed: false,
  };
  const { uploads, tokens } = uploadsSlice.of(ctx);
  uploads.set(upload.id, upload);
  tokens.set(upload.token, upload.id);
  return {
    upload_id: upload.id,
    upload_url: `${ctx.storageUrl}/uploads/${upload.token}`,
    expires_at: new Date(signedAtMs + UPLOAD_ID_TTL_MS).toISOString(),
  };
}

export interface UploadPut {
  contentType: string | null;
  contentLength: string | null;
  /** Read only once the headers passed, like a store that refuses before the body. */
  readBody: () => Promise<Uint8Array>;
}

/**
 * Stores the bytes PUT to a presigned address. Checks, in order: the address
 * exists (404), it is at most UPLOAD_URL_TTL_MINUTES old (403), Content-Type equals the
 * signed file_type (400), Content-Length is present (411) and equals the body
 * length (400). A later PUT overwrites the bytes. Returns the ETag.
 */
export async function putUpload(ctx: ModelContext, token: string, put: UploadPut): Promise<string> {
  const { uploads, tokens } = uploadsSlice.of(ctx);
  const uploadId = tokens.get(token);
  const upload = uploadId === undefined ? undefined : uploads.get(uploadId);
  if (upload === undefined) throw notFound("The upload address does not exist.");
  if (nowMs(ctx) > upload.signedAtMs + UPLOAD_URL_TTL_MS) {
    throw new MockApiError(
      403,
      "upload_url_expired",
      `The upload address has expired: it accepts bytes for ${UPLOAD_URL_TTL_MINUTES} minutes after signing. Sign again.`,
    );
  }
  if (!sameMimeType(put.contentType, upload.fileType)) {
    const sent =
      put.contentType === null
        ? "no Content-Type was sent"
        : `got ${JSON.stringify(put.contentType.trim().slice(0, 100))}`;
    throw new MockApiError(
      400,
      "content_type_mismatch",
      `Content-Type must equal the file_type given when signing: expected ${JSON.stringify(upload.fileType)}, ${sent}.`,
    );
  }
  const declared = put.contentLength?.trim() ?? "";
  if (!/^\d+$/.test(declared)) {
    throw new MockApiError(
      411,
      "content_length_required",
      "A Content-Length header with the byte length of the body is required.",
    );
  }
  const bytes = await put.readBody();
  if (bytes.byteLength !== Number(declared)) {
    throw new MockApiError(
      400,
      "content_length_mismatch",
      "The body length differs from the Content-Length header.",
    );
  }
  upload.bytes = bytes;
  return etagOf(bytes);
}

// MIME types are case-insensitive; anything else, parameters included, must match as signed.
function sameMimeType(sent: string | null, signed: string): boolean {
  return sent !== null && sent.trim().toLowerCase() === signed.trim().toLowerCase();
}

async function etagOf(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return `"${toHex(new Uint8Array(digest)).slice(0, 32)}"`;
}

/**
 * Checks an upload without taking it, so that a request using several can
 * check them all before consuming any. Checks, in order: it exists and
 * `accepts` says it may be used here (400 upload_not_found with
 * `notFoundMessage` otherwise), not used yet (upload_consumed), at most one
 * hour old (upload_expired), and its bytes arrived (upload_incomplete).
 * Set `consumed` to take it.
 */
export function checkUpload(
  ctx: ModelContext,
  uploadId: string,
  accepts: (upload: StoredUpload) => boolean,
  notFoundMessage: string,
): StoredUpload {
  const upload = uploadsSlice.of(ctx).uploads.get(uploadId);
  if (upload === undefined || !accepts(upload)) {
    throw new MockApiError(400, "upload_not_found", notFoundMessage);
  }
  if (upload.consumed) {
    throw new MockApiError(400, "upload_consumed", "upload_id has already been used.");
  }
  if (nowMs(ctx) > upload.signedAtMs + UPLOAD_ID_TTL_MS) {
    throw new MockApiError(
      400,
      "upload_expired",
      "upload_id has expired: it must be used within one hour of signing.",
    );
  }
  if (upload.bytes === null) {
    throw new MockApiError(
      400,
      "upload_incomplete",
      "No bytes were uploaded for upload_id: PUT the file to upload_url first.",
    );
  }
  return upload;
}
