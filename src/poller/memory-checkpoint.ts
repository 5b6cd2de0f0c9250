import {
  acquiredLease,
  CheckpointLeaseLostError,
  type CheckpointLeaseStore,
  fenceArgument,
  type LeaseState,
  leaseSecondsOption,
  ownerArgument,
  refusedSave,
} from "../shared/checkpoint-lease.js";
import { type Checkpoint, compareInstants } from "../shared/checkpoint-store.js";
import { parseCheckpoint } from "../stores/parse-checkpoint.js";

/** Options of `memoryCheckpoint(initial, options)`. */
export interface MemoryCheckpointOptions {
  /**
   * Seconds a poller's lease lasts without renewal.
   * @default DEFAULT_CHECKPOINT_LEASE_SECONDS
   */
  leaseSeconds?: number;
  /**
   * The clock leases are measured on, in epoch ms: for tests that move time.
   * @default Date.now
   */
  now?: () => number;
}

const DESCRIPTION = "The checkpoint of memoryCheckpoint()";

/**
 * A checkpoint kept in memory: lost when the process ends, so a restarted
 * poller starts again at the oldest event the log holds. For tests and
 * short-lived scripts; use `fileCheckpoint` or a database otherwise.
 *
 * Several pollers of one process sharing it take turns: it is a
 * {@link CheckpointLeaseStore} (one holder at a time, fenced forward-only saves).
 */
export function memoryCheckpoint(
  initial: Checkpoint | null = null,
  options: MemoryCheckpointOptions = {},
): CheckpointLeaseStore {
  const where = "memoryCheckpoint";
  const leaseSeconds = leaseSecondsOption(options.leaseSeconds, where);
  const now = options.now ?? Date.now;
  if (typeof now !== "function") throw new TypeError(`${where}: \`now\` must be a function.`);
  let saved = initial === null ? null : parseCheckpoint(initial, "memoryCheckpoint(initial)");
  let lease: LeaseState = { owner: null, fence: 0, expiresAt: 0 };
  return {
    description: DESCRIPTION,
    leaseSeconds,
    async load() {
      return saved === null
        ? null
        : { created_at: saved.created_at, ids_at_created_at: [...saved.ids_at_created_at] };
    },
    async save(checkpoint, fence) {
      const next = parseCheckpoint(checkpoint, "The checkpoint to save");
      const refused = refusedSave(lease, fenceArgument(fence, where), now());
      if (refused !== undefined) throw new CheckpointLeaseLostError(DESCRIPTION, refused);
      if (saved !== null && compareInstants(next.created_at, saved.created_at) < 0) {
        throw new CheckpointLeaseLostError(
          DESCRIPTION,
          "backwards",
          `${next.created_at} is before the saved ${saved.created_at}`,
        );
      }
      saved = next;
    },
    async acquire(owner) {
      const next = acquiredLease(lease, ownerArgument(owner, where), now(), leaseSeconds * 1000);
      if (next === null) return null;
      lease = next;
      return lease.fence;
    },
    async release(owner) {
      if (lease.owner === ownerArgument(owner, where)) lease = { ...lease, owner: null };
    },
  };
}
