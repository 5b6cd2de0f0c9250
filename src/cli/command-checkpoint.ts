import { fileCheckpoint } from "../poller/file-checkpoint.js";
import { memoryCheckpoint } from "../poller/memory-checkpoint.js";
import type { CheckpointStore } from "../shared/checkpoint-store.js";
import { messageOf } from "./error-text.js";
import { CommandError } from "./usage-error.js";

/**
 * The position of `listen` or `events tail`: in `path` (`--checkpoint`),
 * kept across runs, whose failures name the file; in memory without it.
 */
export function commandCheckpoint(path: string | undefined): CheckpointStore {
  return path === undefined ? memoryCheckpoint() : describedStore(fileCheckpoint(path), path);
}

/** A checkpoint store whose failures name the file, as one CommandError line. */
function describedStore(store: CheckpointStore, path: string): CheckpointStore {
  const fail = (action: string) => (error: unknown) => {
    const message = messageOf(error);
    throw new CommandError(
      message.includes(path) ? message : `cannot ${action} the checkpoint file ${path}: ${message}`,
    );
  };
  return {
    ...(store.description === undefined ? {} : { description: store.description }),
    load: () => store.load().catch(fail("read")),
    save: (checkpoint) => store.save(checkpoint).catch(fail("write")),
  };
}
