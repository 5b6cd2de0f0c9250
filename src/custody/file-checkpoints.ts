import type { CustodyLogError } from "../core/errors.js";
import type { CheckpointStore, StoredCheckpoint } from "./checkpoint.js";
import { fileLines } from "./file-lines.js";
import { openNoFollow } from "./no-follow.js";

/**
 * A file log's checkpoints: `<path>.checkpoints`, JSON lines of `seq`,
 * `hash`, `time` and `token` (base64), appended one whole line per write,
 * created 0600, never through a link.
 */
export class FileCheckpoints implements CheckpointStore {
  readonly #path: string;
  readonly #fail: (reason: string, extra?: { firstBadSeq?: number }) => CustodyLogError;

  constructor(
    path: string,
    fail: (reason: string, extra?: { firstBadSeq?: number }) => CustodyLogError,
  ) {
    this.#path = path;
    this.#fail = fail;
  }

  async *read(): AsyncIterable<unknown> {
    const fs = await import("node:fs/promises");
    const handle = await openNoFollow(fs, this.#path, "read", this.#fail);
    if (handle === undefined) return;
    try {
      const { size } = await handle.stat();
      for await (const line of fileLines(handle, 0, size)) {
        // A line cut short by a crash witnessed nothing.
        if (!line.complete) return;
        try {
          yield JSON.parse(line.text) as unknown;
        } catch {
          throw this.#fail(`${this.#path}: line ${line.number} is not JSON`);
        }
      }
    } finally {
      await handle.close();
    }
  }

  async write(checkpoint: StoredCheckpoint): Promise<void> {
    const fs = await import("node:fs/promises");
    const handle = await openNoFollow(fs, this.#path, "append", this.#fail);
    try {
      await handle?.write(`${JSON.stringify(checkpoint)}\n`);
      await handle?.sync();
    } finally {
      await handle?.close();
    }
  }
}
