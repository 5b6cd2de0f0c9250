/** Case documents: created from a consumed upload, archived, listed, downloaded. */
import type { DocumentCreate, DocumentUpdate } from "../../schemas/documents.js";
import { notFound } from "../runtime/http-error.js";
import { assertCaseExists, caseExists } from "./cases.js";
import { type IssuedDownload, issueDownload } from "./downloads.js";
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
import { checkUpload } from "./uploads.js";

/** A document as the API returns it. */
export interface DocumentRecord {
  id: string;
  case_id: string;
  file_name: string;
  file_size: number;
  file_type: string;
  path: string | null;
  archived: boolean;
  created_at: string;
  updated_at: string;
}

export interface StoredDocument extends Stored<DocumentRecord> {
  /** Taken at creation: a later PUT to the same upload address does not change the document. */
  readonly bytes: Uint8Array;
}

/** This module's slice of the state: the documents by id. */
const documentsSlice = defineSlice("documents", () => new Map<string, StoredDocument>());

/**
 * Documents in creation order, by case, by `archived` (a PATCH moves it) and
 * by both: each filter and their combination reads only what it lists.
 */
const documentIndex = new MapListIndex<StoredDocument>({
  keyOf: (stored) => stored.seq,
  bucketsOf: ({ value }) => [
    `case_id:${value.case_id}`,
    `archived:${value.archived}`,
    `case_id:${value.case_id}:archived:${value.archived}`,
  ],
});

export function createDocument(
  ctx: ModelContext,
  caseId: string,
  input: DocumentCreate,
): DocumentRecord {
  assertCaseExists(ctx, caseId);
  const upload = checkUpload(
    ctx,
    input.upload_id,
    (candidate) => candidate.caseId === caseId,
    "upload_id does not name an upload signed for this case.",
  );
  upload.consumed = true;
  const bytes = upload.bytes as Uint8Array;
  const now = nowIso(ctx);
  const record: DocumentRecord = {
    id: ctx.ids.base62("document", "doc_", 24),
    case_id: caseId,
    file_name: upload.fileName,
    file_size: bytes.byteLength,
    file_type: upload.fileType,
    path: input.path ?? null,
    archived: false,
    created_at: now,
    updated_at: now,
  };
  const documents = documentsSlice.of(ctx);
  const stored: StoredDocument = { seq: nextSequence(ctx.state), value: record, bytes };
  documents.set(record.id, stored);
  documentIndex.added(documents, stored);
  return { ...record };
}

/**
 * Stores a document exactly as given, id included (seeding from a
 * recording), with placeholder bytes of its `file_size`; an id already
 * stored, or one whose case is not stored, is left out.
 */
export function placeDocument(ctx: ModelContext, record: DocumentRecord): void {
  const documents = documentsSlice.of(ctx);
  if (documents.has(record.id) || !caseExists(ctx, record.case_id)) return;
  // Zeros of its size (up to 16 MiB: a recording says how big, never what it held).
  const bytes = new Uint8Array(Math.min(record.file_size, 16 * 1024 * 1024));
  const stored: StoredDocument = { seq: nextSequence(ctx.state), value: { ...record }, bytes };
  documents.set(record.id, stored);
  documentIndex.added(documents, stored);
}

function findDocument(ctx: ModelContext, documentId: string): StoredDocument {
  const stored = documentsSlice.of(ctx).get(documentId);
  if (stored === undefined) throw notFound("The document does not exist.");
  return stored;
}

export function getDocument(ctx: ModelContext, documentId: string): DocumentRecord {
  return { ...findDocument(ctx, documentId).value };
}

export function updateDocument(
  ctx: ModelContext,
  documentId: string,
  patch: DocumentUpdate,
): DocumentRecord {
  const stored = findDocument(ctx, documentId);
  const updated = applyPatch(ctx, stored, patch);
  documentIndex.changed(documentsSlice.of(ctx), stored);
  return updated;
}

export interface DocumentFilters {
  case_id?: string | undefined;
  archived?: boolean | undefined;
}

/** Filters narrow the list; a case_id that matches no case gives an empty page, not a 404. */
export function listDocuments(
  ctx: ModelContext,
  filters: DocumentFilters,
  page: PageRequest,
): Page<DocumentRecord> {
  const { case_id, archived } = filters;
  const bucket = [
    case_id === undefined ? "" : `case_id:${case_id}`,
    archived === undefined ? "" : `archived:${archived}`,
  ]
    .filter(Boolean)
    .join(":");
  const list = documentIndex.of(documentsSlice.of(ctx)).list(bucket === "" ? undefined : bucket);
  const result = paginateSorted(
    list,
    seqKey,
    ({ value }) =>
      (case_id === undefined || value.case_id === case_id) &&
      (archived === undefined || value.archived === archived),
    page,
    1,
  );
  return { ...result, results: result.results.map((stored) => ({ ...stored.value })) };
}

export function downloadDocument(ctx: ModelContext, documentId: string): IssuedDownload {
  const stored = findDocument(ctx, documentId);
  return issueDownload(ctx, {
    bytes: stored.bytes,
    fileType: stored.value.file_type,
    fileName: stored.value.file_name,
  });
}
