/**
 * What the reference server's model shares: the context every model function
 * works against, the creation sequence, time helpers, PATCH, and slices.
 *
 * The state itself is a bag of slices: each model module declares its own
 * (`defineSlice`) and is the only one that reads or writes it; other modules
 * go through that module's functions. The state holds a slice from its first
 * use, so `reset()` (a new state object) empties every slice at once, and
 * `mock.snapshot()` copies them all with one `structuredClone`: a slice is
 * plain data (maps, arrays, records, byte arrays), nothing else. API keys
 * live outside the state on purpose: a reset empties the data but the keys a
 * test suite handed out keep working.
 *
 * This module imports no model module, not even a type, so that none of them
 * is a hub the others depend on (scripts/check-layers.ts keeps it so).
 */
import type { MockClock } from "../runtime/clock.js";
import type { DeliveryRuntime } from "../runtime/delivery-runtime.js";
import type { IdSource } from "../runtime/id-source.js";

/** A resource together with its place in creation order. */
export interface Stored<T> {
  /** Creation sequence, shared by every resource: drives list order and cursors. */
  readonly seq: number;
  value: T;
}

export interface MockState {
  /** The creation sequence, shared by every resource (`nextSequence`). */
  sequence: number;
  /** Each slice by its name, from its first use (`defineSlice`). */
  readonly slices: Map<string, unknown>;
}

/** A fresh, empty state: every slice is created again on first use. */
export function createState(): MockState {
  return { sequence: 0, slices: new Map() };
}

/** One model module's part of the state. */
export interface Slice<T> {
  readonly name: string;
  /** The slice of the context's current state, or of a given state; created on first use. */
  of(owner: ModelContext | MockState): T;
}

const sliceNames = new Set<string>();

/**
 * Declares a model module's slice. `create` makes it empty (or seeded: it
 * may not depend on anything but itself, since a slice is created whenever
 * it is first used). Names are unique across the model: two modules never
 * share a slice.
 */
export function defineSlice<T>(name: string, create: () => T): Slice<T> {
  if (sliceNames.has(name)) throw new Error(`Two model modules define the state slice "${name}".`);
  sliceNames.add(name);
  return {
    name,
    of(owner) {
      const state = "slices" in owner ? owner : owner.state;
      if (state.slices.has(name)) return state.slices.get(name) as T;
      const slice = create();
      state.slices.set(name, slice);
      return slice;
    },
  };
}

/** What every model function works against. `state` is replaced by `reset()`. */
export interface ModelContext {
  readonly clock: MockClock;
  /** API origin, no trailing slash. */
  readonly baseUrl: string;
  /** Presigned upload/download origin, no trailing slash. */
  readonly storageUrl: string;
  readonly allowPrivateWebhookUrls: boolean;
  /** Resolves a webhook host name to its addresses, for the private-address rule (webhook-urls.ts). */
  readonly lookupHost: (hostname: string) => Promise<readonly string[]>;
  /** Every id the service hands out (../runtime/id-source.ts). Survives `reset()` and `restore()`: ids never repeat. */
  readonly ids: IdSource;
  /** How deliveries travel, and the attempts in flight. Survives `reset()`. */
  readonly delivery: DeliveryRuntime;
  state: MockState;
  /** Moves each new retrieval request through its life, when the service was created with one. */
  autopilot?: { adopt(retrievalRequestId: string): void } | undefined;
}

export function nextSequence(state: MockState): number {
  state.sequence += 1;
  return state.sequence;
}

export function nowMs(ctx: ModelContext): number {
  return ctx.clock.now().getTime();
}

export function nowIso(ctx: ModelContext): string {
  return ctx.clock.now().toISOString();
}

/**
 * The updated_at of a change: the clock's time, but always after the previous
 * value, so clients that compare timestamps see every update even when the
 * mock clock stands still between two writes.
 */
export function nextUpdatedAt(ctx: ModelContext, previous: string): string {
  return new Date(Math.max(nowMs(ctx), Date.parse(previous) + 1)).toISOString();
}

/**
 * A partial update (PATCH) of a stored record: each field the validated
 * `patch` supplies (not undefined; null clears) replaces the record's. An
 * empty PATCH changes nothing, so it does not move updated_at either.
 * Returns a copy of the record after the update.
 */
export function applyPatch<T extends { updated_at: string }>(
  ctx: ModelContext,
  stored: { value: T },
  patch: { readonly [K in keyof T]?: T[K] | undefined },
): T {
  const supplied = Object.entries(patch).filter(([, value]) => value !== undefined);
  if (supplied.length === 0) return { ...stored.value };
  const next: T = { ...stored.value, ...Object.fromEntries(supplied) };
  next.updated_at = nextUpdatedAt(ctx, stored.value.updated_at);
  stored.value = next;
  return { ...next };
}
