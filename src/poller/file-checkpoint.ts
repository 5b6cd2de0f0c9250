import { MedRecordsError } from "../core/errors.js";
import { type CheckpointStore, parseCheckpoint } from "./checkpoint.js";

/**
 * A checkpoint in a JSON file, written atomically: a temporary file in the
 * same directory is written and fsynced, then renamed over `path` (and the
 * directory fsynced where the platform allows), so a crash leaves either the
 * old checkpoint or the new one, never a torn file. The directory is created
 * on the first save. Node, Bun and Deno; `node:fs` is loaded on first use, so
 * importing `medrecords` elsewhere never pulls it in.
 *
 * @example mr.events.catchUp({ checkpoint: fileCheckpoint(".medrecords/checkpoint.json"), onEvent })
 */
export function fileCheckpoint(path: string): CheckpointStore {
  if (typeof path !== "string" || path === "") {
    throw new TypeError("fileCheckpoint: `path` must be a non-empty file path.");
  }
  return {
    description: `The checkpoint file ${path}`,
    async load() {
      const fs = await import("node:fs/promises");
      let text: string;
      try {
        text = await fs.readFile(path, "utf8");
      } catch (error) {
        if ((error as { code?: unknown }).code === "ENOENT") return null;
        throw error;
      }
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch {
        throw new MedRecordsError(`The checkpoint file ${path} is not JSON.`);
      }
      return parseCheckpoint(data, `The checkpoint file ${path}`);
    },

    async save(checkpoint) {
      const text = `${JSON.stringify(parseCheckpoint(checkpoint, "The checkpoint to save"))}\n`;
      const fs = await import("node:fs/promises");
      const { basename, dirname, join } = await import("node:path");
      const dir = dirname(path);
      await fs.mkdir(dir, { recursive: true });
      const temp = join(dir, `.${basename(path)}.${crypto.randomUUID()}.tmp`);
      try {
        const handle = await fs.open(temp, "wx", 0o600);
        try {
          await handle.writeFile(text, "utf8");
          await handle.sync();
        } finally {
          await handle.close();
        }
        await fs.rename(temp, path);
      } catch (error) {
        await fs.rm(temp, { force: true });
        throw error;
      }
      // Makes the rename itself durable; directories cannot be opened for this on Windows.
      try {
        const handle = await fs.open(dir, "r");
        try {
          await handle.sync();
        } finally {
          await handle.close();
        }
      } catch {
        // Best effort: the file's own content was already synced.
      }
    },
  };
}
