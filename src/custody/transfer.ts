/**
 * The resources' door into custody: a file's bytes, a saved file, and an
 * upload's recorder. Small on purpose: it loads the hashing code
 * (./record.ts, ./save.ts) only when a log is attached or a file is saved,
 * so a client without a log carries none of it.
 */
import { fetchContent } from "../core/download.js";
import type { RequestOptions } from "../core/options.js";
import type { Core } from "../core/request.js";
import type { TransferRecorder } from "../core/transfer-recorder.js";
import type { DownloadSource } from "./record.js";
import type { SavedFile, SaveOptions } from "./save.js";

/**
 * `fetchContent` for a resource's file: with a custody log attached, the body
 * is hashed as it streams and the entry appended when it ends.
 */
export async function downloadContent(
  core: Core,
  source: DownloadSource,
  options?: RequestOptions,
): Promise<Response> {
  if (core.options.custodyLog === undefined) {
    return fetchContent(core, source.sign, source.where, options);
  }
  const { recordedContent } = await import("./record.js");
  return recordedContent(core, source, options);
}

/** The file written to `to.path` atomically, hashed as it streams (./save.ts). */
export async function saveContent(
  core: Core,
  source: DownloadSource,
  to: SaveOptions,
  options?: RequestOptions,
): Promise<SavedFile> {
  const { saveToFile } = await import("./save.js");
  return saveToFile(core, source, to, options);
}

/** What records an upload for `signAndPut`: none without a custody log. */
export async function uploadRecorder(core: Core): Promise<TransferRecorder | undefined> {
  if (core.options.custodyLog === undefined) return undefined;
  const { UploadRecorder } = await import("./record.js");
  return new UploadRecorder(core);
}
