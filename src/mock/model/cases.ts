/** Case rules: creation defaults, case numbers, partial updates. */
import type { CaseCategory, CaseCreate, CaseStatus, CaseUpdate } from "../../schemas/cases.js";
import { notFound } from "../runtime/http-error.js";
import { MapListIndex } from "./list-index.js";
import { type Page, type PageRequest, paginateSorted, seqKey } from "./paginate.js";
import {
  applyPatch,
  defineSlice,
  type ModelContext,
  nextSequence,
  nowIso,
  type Stored,
} from "./state.js";

/** A case as the API returns it: every field present, unset ones null. */
export interface CaseRecord {
  id: string;
  case_number: string;
  title: string;
  client_name: string;
  description: string | null;
  client_date_of_birth: string | null;
  client_address: string | null;
  client_phone: string | null;
  client_email: string | null;
  date_of_injury: string | null;
  deposition_date: string | null;
  case_category: CaseCategory;
  status: CaseStatus;
  external_id: string | null;
  created_at: string;
  updated_at: string;
}

/** This module's slice of the state: the cases, and the last case number handed out. */
const casesSlice = defineSlice("cases", () => ({
  cases: new Map<string, Stored<CaseRecord>>(),
  caseNumber: 0,
}));

/** Cases in creation order, and by `external_id` (a filter, and a PATCH can change it). */
const caseIndex = new MapListIndex<Stored<CaseRecord>>({
  keyOf: (stored) => stored.seq,
  bucketsOf: ({ value }) =>
    value.external_id === null ? [] : [`external_id:${value.external_id}`],
});

export function createCase(ctx: ModelContext, input: CaseCreate): CaseRecord {
  const slice = casesSlice.of(ctx);
  slice.caseNumber += 1;
  const now = nowIso(ctx);
  const record: CaseRecord = {
    id: ctx.ids.base62("case", "case_", 24),
    case_number: `MR-${String(slice.caseNumber).padStart(6, "0")}`,
    title: input.title,
    client_name: input.client_name,
    description: input.description ?? null,
    client_date_of_birth: input.client_date_of_birth ?? null,
    client_address: input.client_address ?? null,
    client_phone: input.client_phone ?? null,
    client_email: input.client_email ?? null,
    date_of_injury: input.date_of_injury ?? null,
    deposition_date: input.deposition_date ?? null,
    case_category: input.case_category ?? "personal_injury",
    status: input.status ?? "active",
    external_id: input.external_id ?? null,
    created_at: now,
    updated_at: now,
  };
  const stored = { seq: nextSequence(ctx.state), value: record };
  slice.cases.set(record.id, stored);
  caseIndex.added(slice.cases, stored);
  return { ...record };
}

/**
 * Stores a case exactly as given, id included (a server seeded from a
 * recording); an id already stored is left as it is. Case numbers handed out
 * later follow the highest one placed.
 */
export function placeCase(ctx: ModelContext, record: CaseRecord): void {
  const slice = casesSlice.of(ctx);
  if (slice.cases.has(record.id)) return;
  const number = /^MR-(\d+)$/.exec(record.case_number)?.[1];
  if (number !== undefined) slice.caseNumber = Math.max(slice.caseNumber, Number(number));
  const stored = { seq: nextSequence(ctx.state), value: { ...record } };
  slice.cases.set(record.id, stored);
  caseIndex.added(slice.cases, stored);
}

function findCase(ctx: ModelContext, caseId: string): Stored<CaseRecord> {
  const stored = casesSlice.of(ctx).cases.get(caseId);
  if (stored === undefined) throw notFound("The case does not exist.");
  return stored;
}

/** Whether the case exists. */
export function caseExists(ctx: ModelContext, caseId: string): boolean {
  return casesSlice.of(ctx).cases.has(caseId);
}

/** Throws 404 unless the case exists. */
export function assertCaseExists(ctx: ModelContext, caseId: string): void {
  findCase(ctx, caseId);
}

export function getCase(ctx: ModelContext, caseId: string): CaseRecord {
  return { ...findCase(ctx, caseId).value };
}

export function updateCase(ctx: ModelContext, caseId: string, patch: CaseUpdate): CaseRecord {
  const stored = findCase(ctx, caseId);
  const updated = applyPatch(ctx, stored, patch);
  caseIndex.changed(casesSlice.of(ctx).cases, stored);
  return updated;
}

export interface CaseFilters {
  /** Only the cases with exactly this `external_id`. */
  external_id?: string | undefined;
}

export function listCases(
  ctx: ModelContext,
  filters: CaseFilters,
  page: PageRequest,
): Page<CaseRecord> {
  const { external_id } = filters;
  const list = caseIndex
    .of(casesSlice.of(ctx).cases)
    .list(external_id === undefined ? undefined : `external_id:${external_id}`);
  const result = paginateSorted(
    list,
    seqKey,
    (stored) => external_id === undefined || stored.value.external_id === external_id,
    page,
    1,
  );
  return { ...result, results: result.results.map((stored) => ({ ...stored.value })) };
}
