/**
 * State of the retrieval family (retrieval requests, facilities, requestors)
 * and the two things that make its events reproducible:
 *
 * - identifiers from the service's id source, never repeated (a fresh mock
 *   with the same `idSeed` hands out the same ids in the same order);
 * - one `public_updated_at` clock for all retrieval requests, strictly
 *   increasing on the mock clock, so that no two public changes share an
 *   instant and `updated_since` polling can neither skip nor repeat one.
 *
 * Together with the mock clock and an `idSeed` this makes every retrieval
 * event id (a hash of type, request id and occurrence) the same on an
 * identical second run; without one, no two services share an event id.
 */
import type { StoredFacility } from "./facilities.js";
import type { StoredRequestor } from "./requestors.js";
import type { StoredRetrievalRequest } from "./retrieval-requests.js";
import { type ModelContext, nowMs } from "./state.js";

export interface RetrievalState {
  readonly requests: Map<string, StoredRetrievalRequest>;
  readonly facilities: Map<string, StoredFacility>;
  readonly requestors: Map<string, StoredRequestor>;
  /** List-order ordinals handed out so far, per kind (the facility directory's order); ids come from `ctx.ids`. */
  readonly counters: Map<string, number>;
  /** The latest `public_updated_at` handed out, in epoch ms. */
  lastPublicUpdateMs: number;
}

/** The next number of a kind, from 1: the list order of kinds that keep their own (facilities). */
export function nextOrdinal(state: RetrievalState, kind: string): number {
  const next = (state.counters.get(kind) ?? 0) + 1;
  state.counters.set(kind, next);
  return next;
}

/** An opaque id, `prefix` + 24 hex, from the service's id source (never repeated; see id-source.ts). */
export function nextRetrievalId(ctx: ModelContext, kind: string, prefix: string): string {
  return ctx.ids.hex(kind, prefix, 24);
}

/**
 * The `public_updated_at` of a public change: the clock's time, but always
 * after every earlier one (of any retrieval request). Returns epoch ms.
 */
export function nextPublicUpdateMs(ctx: ModelContext): number {
  const retrieval = ctx.state.retrieval;
  const at = Math.max(nowMs(ctx), retrieval.lastPublicUpdateMs + 1);
  retrieval.lastPublicUpdateMs = at;
  return at;
}
