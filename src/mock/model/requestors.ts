/** Retrieval profiles (requestors): created alone or inline in a retrieval request. */
import type { Requestor, RequestorCreate, RequestorUpdate } from "../../schemas/requestors.js";
import { notFound } from "../runtime/http-error.js";
import { MapListIndex } from "./list-index.js";
import { type Page, type PageRequest, paginateSorted, seqKey } from "./paginate.js";
import { nextRetrievalId } from "./retrieval-state.js";
import {
  applyPatch,
  defineSlice,
  type ModelContext,
  nextSequence,
  nowIso,
  type Stored,
} from "./state.js";

export type StoredRequestor = Stored<Requestor>;

/** This module's slice of the state: the requestors by id. */
const requestorsSlice = defineSlice("requestors", () => new Map<string, StoredRequestor>());

/** Requestors in creation order. */
const requestorIndex = new MapListIndex<StoredRequestor>({ keyOf: (stored) => stored.seq });

export function createRequestor(ctx: ModelContext, input: RequestorCreate): Requestor {
  const now = nowIso(ctx);
  const requestor: Requestor = {
    id: nextRetrievalId(ctx, "requestor", "rqtr_"),
    name: input.name,
    email: input.email,
    organization: input.organization ?? null,
    phone: input.phone ?? null,
    created_at: now,
    updated_at: now,
  };
  const stored: StoredRequestor = { seq: nextSequence(ctx.state), value: requestor };
  const requestors = requestorsSlice.of(ctx);
  requestors.set(requestor.id, stored);
  requestorIndex.added(requestors, stored);
  return { ...requestor };
}

/** Stores a requestor exactly as given, id included (seeding from a recording); an id already stored is left as it is. */
export function placeRequestor(ctx: ModelContext, requestor: Requestor): void {
  const requestors = requestorsSlice.of(ctx);
  if (requestors.has(requestor.id)) return;
  const stored: StoredRequestor = { seq: nextSequence(ctx.state), value: { ...requestor } };
  requestors.set(requestor.id, stored);
  requestorIndex.added(requestors, stored);
}

function findRequestor(ctx: ModelContext, requestorId: string): StoredRequestor {
  const stored = requestorsSlice.of(ctx).get(requestorId);
  if (stored === undefined) throw notFound("The requestor does not exist.");
  return stored;
}

/** The first requestor created with this email, if any. */
export function findRequestorByEmail(ctx: ModelContext, email: string): Requestor | undefined {
  for (const { value } of requestorsSlice.of(ctx).values()) {
    if (value.email === email) return { ...value };
  }
  return undefined;
}

export function getRequestor(ctx: ModelContext, requestorId: string): Requestor {
  return { ...findRequestor(ctx, requestorId).value };
}

export function updateRequestor(
  ctx: ModelContext,
  requestorId: string,
  patch: RequestorUpdate,
): Requestor {
  return applyPatch(ctx, findRequestor(ctx, requestorId), patch);
}

export function listRequestors(ctx: ModelContext, page: PageRequest): Page<Requestor> {
  const list = requestorIndex.of(requestorsSlice.of(ctx)).list();
  const result = paginateSorted(list, seqKey, () => true, page, 1);
  return { ...result, results: result.results.map((stored) => ({ ...stored.value })) };
}
