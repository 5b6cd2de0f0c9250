import { type Checkpoint, type CheckpointStore, parseCheckpoint } from "./checkpoint.js";

/**
 * A checkpoint kept in memory: lost when the process ends, so a restarted
 * poller starts again at the oldest event the log holds. For tests and
 * short-lived scripts; use `fileCheckpoint` or a database otherwise.
 */
export function memoryCheckpoint(initial: Checkpoint | null = null): CheckpointStore {
  let saved = initial === null ? null : parseCheckpoint(initial, "memoryCheckpoint(initial)");
  return {
    description: "The checkpoint of memoryCheckpoint()",
    async load() {
      return saved === null
        ? null
        : { created_at: saved.created_at, ids_at_created_at: [...saved.ids_at_created_at] };
    },
    async save(checkpoint) {
      saved = parseCheckpoint(checkpoint, "The checkpoint to save");
    },
  };
}
