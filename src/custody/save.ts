import type { RequestOptions } from "../core/options.js";
import type { Core } from "../core/request.js";
import { syncDirectory } from "../internal/sync-directory.js";
import type { StreamDigest } from "./hashing-stream.js";
import { type DownloadSource, recordedContent } from "./record.js";

/** Where `documents.save` and `retrievalRequests.saveDocument` write the file. */
export interface SaveOptions {
  /**
   * The file to write, replaced atomically if it exists: the bytes go to a
   * temporary file beside it (permissions 0600: these are medical records),
   * which is fsynced and renamed over `path` only once the whole file came
   * (and, with a custody log, its entry was appended).
   * @example "./matters/doe-v-acme/records.pdf"
   */
  path: string;
}

/** What was saved: where, how many bytes, and their SHA-256 (lowercase hex). */
export interface SavedFile {
  /** The path written, as given. */
  path: string;
  /** The file's size in bytes. */
  bytes: number;
  /** SHA-256 of the bytes written, 64 lowercase hex characters: `sha256sum` gives the same. */
  sha256: string;
}

/**
 * Downloads `source` to `to.path` atomically: a temporary file in the same
 * directory, written as the body streams and hashed on the way, fsynced,
 * then renamed over `path` (the directory fsynced where the platform allows).
 * A failure anywhere (the download, the custody log, the disk) removes the
 * temporary file and leaves `path` as it was. Node, Bun and Deno.
 */
export async function saveToFile(
  core: Core,
  source: DownloadSource,
  to: SaveOptions,
  options?: RequestOptions,
): Promise<SavedFile> {
  const path = to?.path;
  if (typeof path !== "string" || path === "") {
    throw new TypeError(`${source.where}: \`path\` must be a non-empty file path.`);
  }
  const [fs, { dirname, basename, join }] = await Promise.all([
    import("node:fs/promises"),
    import("node:path"),
  ]);
  const dir = dirname(path);
  let digest: StreamDigest | undefined;
  const response = await recordedContent(core, source, options, (d) => {
    digest = d;
  });
  const temp = join(dir, `.${basename(path)}.${crypto.randomUUID()}.tmp`);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  try {
    const handle = await fs.open(temp, "wx", 0o600);
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        await handle.write(value);
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, path);
  } catch (error) {
    await reader.cancel(error).catch(() => undefined);
    await fs.rm(temp, { force: true });
    throw error;
  }
  await syncDirectory(fs, dir);
  const { bytes, sha256 } = digest as StreamDigest;
  return { path, bytes, sha256 };
}
