/**
 * `mock.snapshot()` / `mock.restore(snapshot)` (docs/spec-decisions.md,
 * "Reference server conventions"): the whole model state, the delivery inbox,
 * the clock (time and scheduled tasks) and the API keys, saved by value.
 *
 * The model state is plain data (the creation sequence and each model
 * module's slice: maps, arrays, records, byte arrays), so one
 * `structuredClone` saves it, keeping shared references (the event log's
 * order entries point at its events) as they are; a slice not used yet is
 * not in it, and is created afresh on first use. Restoring clones the saved
 * copy again, so a snapshot never changes: it can be restored any number of
 * times. Not saved: the fault configuration (as `reset()` keeps it), the
 * request journal, and delivery attempts in flight or retries on the clock,
 * which belong to the state they started in and stop once it is replaced.
 */

import type { ApiKeyRecord, ApiKeyStore } from "../model/api-keys.js";
import type { MockState, ModelContext } from "../model/state.js";
import type { MockClockState, RestorableMockClock } from "../runtime/clock.js";
import type { InboxDelivery } from "../runtime/delivery-runtime.js";

const SNAPSHOT = Symbol("medrecords.mock.snapshot");

/** An opaque saved state of a mock, for `mock.restore()`. Restorable only on the mock that made it. */
export interface MockSnapshot {
  /** Brands the value as a snapshot; its content is private to the mock that made it. */
  readonly [SNAPSHOT]: true;
}

interface SavedState extends MockSnapshot {
  readonly owner: object;
  readonly state: MockState;
  readonly inbox: readonly InboxDelivery[];
  readonly clock: MockClockState;
  readonly keys: ReadonlyMap<string, ApiKeyRecord>;
}

export interface SnapshotParts {
  readonly owner: object;
  readonly ctx: ModelContext;
  readonly clock: RestorableMockClock;
  readonly keys: ApiKeyStore;
}

export function takeSnapshot({ owner, ctx, clock, keys }: SnapshotParts): MockSnapshot {
  const saved: SavedState = {
    [SNAPSHOT]: true,
    owner,
    state: structuredClone(ctx.state),
    inbox: structuredClone(ctx.delivery.inbox),
    clock: clock.saveState(),
    keys: keys.save(),
  };
  return Object.freeze(saved);
}

export function restoreSnapshot(
  { owner, ctx, clock, keys }: SnapshotParts,
  snapshot: MockSnapshot,
): void {
  const saved = snapshot as Partial<SavedState> | null | undefined;
  if (typeof saved !== "object" || saved === null || saved[SNAPSHOT] !== true) {
    throw new TypeError("mock.restore: expected a value returned by mock.snapshot().");
  }
  if (saved.owner !== owner) {
    throw new TypeError("mock.restore: this snapshot was taken of another mock service.");
  }
  const full = saved as SavedState;
  ctx.state = structuredClone(full.state);
  ctx.delivery.inbox.splice(0, ctx.delivery.inbox.length, ...structuredClone(full.inbox));
  clock.restoreState(full.clock);
  keys.restore(full.keys);
}
