/**
 * A checkpoint store for following a service whose clock runs ahead of this
 * machine's: a mock started with `--speed 60`, or with `--now` in the future.
 * The poller refuses a checkpoint more than the timestamp tolerance ahead of
 * this machine's clock (docs/spec-decisions.md, "Catch-up poller"), which is
 * right for the real service and fatal for a fast mock, whose events are
 * hours "in the future" after a few real minutes.
 *
 * This store hands the poller the saved position clamped to what it accepts.
 * The poller then lists from that earlier instant; `covers(event)` tells the
 * caller which of those events lie at or before the real position (already
 * handled: skip them), and a save never moves the real position back. For
 * the real service nothing is clamped and the store is the one it wraps.
 */
import {
  type Checkpoint,
  type CheckpointStore,
  compareInstants,
} from "../shared/checkpoint-store.js";
import { WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS } from "../shared/tolerance.js";

/** Clamped this far below the poller's limit, for the time between load and its check. */
const MARGIN_MS = 60_000;

export interface AheadTolerantStore {
  store: CheckpointStore;
  /** Whether `event` is at or before the real saved position: handled in an earlier run. */
  covers(event: { id: string; created_at: string }): boolean;
}

export function aheadTolerantStore(inner: CheckpointStore): AheadTolerantStore {
  let real: Checkpoint | null = null;
  return {
    store: {
      ...(inner.description === undefined ? {} : { description: inner.description }),
      async load() {
        real = await inner.load();
        if (real === null) return null;
        const limitMs = Date.now() + WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS * 1000 - MARGIN_MS;
        if (Date.parse(real.created_at) <= limitMs) return real;
        return { created_at: new Date(limitMs).toISOString(), ids_at_created_at: [] };
      },
      async save(checkpoint) {
        // Still passing events the real position covers: nothing new to save.
        if (real !== null && compareInstants(checkpoint.created_at, real.created_at) < 0) return;
        real = checkpoint;
        await inner.save(checkpoint);
      },
    },
    covers(event) {
      if (real === null) return false;
      const order = compareInstants(event.created_at, real.created_at);
      return order < 0 || (order === 0 && real.ids_at_created_at.includes(event.id));
    },
  };
}
