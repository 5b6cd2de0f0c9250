/**
 * What makes the retrieval family's ids and events reproducible:
 *
 * - identifiers from the service's id source, never repeated (a fresh mock
 *   with the same `idSeed` hands out the same ids in the same order);
 * - one `public_updated_at` clock for all retrieval requests, strictly
 *   increasing on the mock clock, so that no two public changes share an
 *   instant and `updated_since` polling can neither skip nor repeat one
 *   (`nextPublicUpdateMs` in retrieval-requests.ts, which owns the requests).
 *
 * Together with the mock clock and an `idSeed` this makes every retrieval
 * event id (a hash of type, request id and occurrence) the same on an
 * identical second run; without one, no two services share an event id.
 * Each module of the family owns its slice of the state: facilities.ts the
 * directory, requestors.ts the requestors, retrieval-requests.ts the requests.
 */
import type { ModelContext } from "./state.js";

/** An opaque id, `prefix` + 24 hex, from the service's id source (never repeated; see ../runtime/id-source.ts). */
export function nextRetrievalId(ctx: ModelContext, kind: string, prefix: string): string {
  return ctx.ids.hex(kind, prefix, 24);
}
