/**
 * Presigned download addresses, issued the same way for case documents and
 * for retrieval documents (records and invoices).
 */
import { DOWNLOAD_URL_TTL_SECONDS } from "../../schemas/uploads.js";
import { MockApiError, notFound } from "../runtime/http-error.js";
import { randomToken } from "../runtime/ids.js";
import { defineSlice, type ModelContext, nowMs } from "./state.js";

export interface DownloadFile {
  readonly bytes: Uint8Array;
  readonly fileType: string;
  readonly fileName: string;
}

export interface StoredDownload {
  readonly issuedAtMs: number;
  readonly file: DownloadFile;
}

/** This module's slice of the state: each issued download by its presigned token. */
const downloadsSlice = defineSlice("downloads", () => new Map<string, StoredDownload>());

export interface IssuedDownload {
  download_url: string;
  expires_in: number;
}

export function issueDownload(ctx: ModelContext, file: DownloadFile): IssuedDownload {
  const token = randomToken();
  downloadsSlice.of(ctx).set(token, { issuedAtMs: nowMs(ctx), file });
  return {
    download_url: `${ctx.storageUrl}/downloads/${token}`,
    expires_in: DOWNLOAD_URL_TTL_SECONDS,
  };
}

/** The file behind a presigned download token; exactly DOWNLOAD_URL_TTL_SECONDS after issue still works. */
export function redeemDownload(ctx: ModelContext, token: string): DownloadFile {
  const stored = downloadsSlice.of(ctx).get(token);
  if (stored === undefined) throw notFound("The download address does not exist.");
  if (nowMs(ctx) > stored.issuedAtMs + DOWNLOAD_URL_TTL_SECONDS * 1000) {
    throw new MockApiError(403, "download_url_expired", "The download address has expired.");
  }
  return stored.file;
}
