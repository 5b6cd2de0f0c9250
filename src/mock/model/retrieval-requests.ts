/**
 * Retrieval requests as the firm sees them: creation (inline case, facility
 * and requestor; auth_form and attachments consumed from uploads), reads, the
 * `updated_since` poll, documents and their downloads. The provider-side
 * changes the control API drives live in retrieval-provider.ts, action
 * requests in action-requests.ts.
 */
import type {
  ACTION_REQUIRED_REASONS,
  RETRIEVAL_STAGES,
  RETRIEVAL_STATUSES,
  RetrievalDocument,
  RetrievalRequest,
  RetrievalRequestCreate,
} from "../../schemas/retrieval-requests.js";
import { MockApiError, notFound } from "../runtime/http-error.js";
import { assertCaseExists, createCase } from "./cases.js";
import { type IssuedDownload, issueDownload } from "./downloads.js";
import { createFacility, getFacility } from "./facilities.js";
import { MapListIndex } from "./list-index.js";
import { type Page, type PageRequest, paginate, paginateSorted, seqKey } from "./paginate.js";
import { createRequestor, getRequestor } from "./requestors.js";
import { nextRetrievalId } from "./retrieval-state.js";
import {
  defineSlice,
  type MockState,
  type ModelContext,
  nextSequence,
  nowMs,
  type Stored,
} from "./state.js";
import { checkUpload, type StoredUpload } from "./uploads.js";

export type RetrievalStatusValue = (typeof RETRIEVAL_STATUSES)[number];
export type RetrievalStageValue = (typeof RETRIEVAL_STAGES)[number];
export type ActionRequiredReasonValue = (typeof ACTION_REQUIRED_REASONS)[number];

/** The currency of every amount in the mock. */
export const MOCK_CURRENCY = "USD";

/** A file uploaded to the mock's storage origin and consumed by a request. */
export interface UploadedFile {
  /** The upload_id it was signed under. */
  upload_id: string;
  /** As given when the upload was signed. */
  file_name: string;
  /** MIME type, as given when the upload was signed. */
  file_type: string;
  /** Bytes. */
  file_size: number;
  /** The bytes PUT to the upload address. */
  bytes: Uint8Array;
}

export interface StoredRetrievalDocument extends Stored<RetrievalDocument> {
  readonly bytes: Uint8Array;
  /** Invoice amounts behind `costs`; null for records. */
  readonly amount: number | null;
  readonly recordsFee: number | null;
}

/** One answer to an action request, as the mock recorded it. */
export interface ActionResponseRecord {
  /** Trimmed. */
  message: string;
  /** `requester_email` when given, else the API key's id. */
  responder: string;
  /** As given in the answer; null when left out. */
  requester_email: string | null;
  /** The API key that answered. */
  api_key_id: string;
  /** ISO 8601 date-time on the mock clock. */
  responded_at: string;
  /** X-Request-Id of the call that answered. */
  request_id: string;
  /** The attached file without its bytes; null when none was attached. */
  attachment: Omit<UploadedFile, "bytes"> | null;
}

/** What `openActionRequest` returns: the request's new `pending_action_request`. */
export interface OpenedActionRequest {
  /** Its id; a reopened request keeps the id it had. */
  id: string;
  /** What the provider asks of the firm. */
  message: string;
  /** Why, one of the known action-required reasons. */
  reason: ActionRequiredReasonValue;
  /** The answer must carry an attachment. */
  requires_attachment: boolean;
  /** The attachment must be a PDF. */
  requires_pdf: boolean;
  /** ISO 8601 date-time on the mock clock. */
  opened_at: string;
}

/** An action request as the control API reports it, with every answer it got. */
export interface MockActionRequest extends OpenedActionRequest {
  /** 1 when first opened, one more on each reopening. */
  opening: number;
  /** `withdrawn`: closed unanswered because the request moved on (setStatus, complete, cancel). */
  status: "open" | "responded" | "withdrawn";
  /** The answers it got through the API, oldest first. */
  responses: ActionResponseRecord[];
}

/** A client action request over its whole life: opened, answered, reopened. */
export interface ActionRequestRecord extends MockActionRequest {
  /** Bytes of each answer's attachment, by upload id. */
  attachments: Map<string, Uint8Array>;
}

/** The public state plus what the request was created with. */
export interface RetrievalRequestRecord {
  id: string;
  case_id: string;
  external_id: string | null;
  status: RetrievalStatusValue;
  stage: RetrievalStageValue;
  action_required_reason: ActionRequiredReasonValue | null;
  facility_id: string;
  requestor_id: string;
  auth_form: UploadedFile;
  attachments: UploadedFile[];
  record_types: string[];
  date_from: string | null;
  date_to: string | null;
  notes: string | null;
  created_at: string;
  updated_at: string;
  public_updated_at: string;
}

export interface StoredRetrievalRequest extends Stored<RetrievalRequestRecord> {
  /** Oldest first. */
  readonly documents: StoredRetrievalDocument[];
  /** Oldest first. */
  readonly actionRequests: ActionRequestRecord[];
  /** The open one, if any; at most one at a time (spec, rule 1). */
  pendingActionRequestId: string | null;
}

/** This module's slice of the state: the requests by id, and the `public_updated_at` clock. */
const requestsSlice = defineSlice("retrievalRequests", () => ({
  requests: new Map<string, StoredRetrievalRequest>(),
  /** The latest `public_updated_at` handed out, in epoch ms. */
  lastPublicUpdateMs: Number.NEGATIVE_INFINITY,
}));

/**
 * Retrieval requests in creation order, by case, status, both, and
 * `external_id`; and, for `updated_since`, by `public_updated_at` (negated:
 * lists show the greatest key first, that order the oldest change first).
 */
const requestIndex = new MapListIndex<StoredRetrievalRequest>({
  keyOf: (stored) => stored.seq,
  bucketsOf: ({ value }) => [
    `case_id:${value.case_id}`,
    `status:${value.status}`,
    `case_id:${value.case_id}:status:${value.status}`,
    ...(value.external_id === null ? [] : [`external_id:${value.external_id}`]),
  ],
});
const changeIndex = new MapListIndex<StoredRetrievalRequest>({
  keyOf: (stored) => -Date.parse(stored.value.public_updated_at),
});

/**
 * The `public_updated_at` of a public change: the clock's time, but always
 * after every earlier one (of any retrieval request; see retrieval-state.ts).
 * Returns epoch ms.
 */
export function nextPublicUpdateMs(ctx: ModelContext): number {
  const slice = requestsSlice.of(ctx);
  const at = Math.max(nowMs(ctx), slice.lastPublicUpdateMs + 1);
  slice.lastPublicUpdateMs = at;
  return at;
}

/** Moves `public_updated_at` (and `updated_at`) for a public change; returns it. */
export function touchPublic(ctx: ModelContext, stored: StoredRetrievalRequest): string {
  const at = new Date(nextPublicUpdateMs(ctx)).toISOString();
  stored.value.public_updated_at = at;
  stored.value.updated_at = at;
  refileRetrievalRequest(ctx, stored);
  return at;
}

/** After a request's status or `public_updated_at` changed: refiled in the lists' indexes. */
export function refileRetrievalRequest(ctx: ModelContext, stored: StoredRetrievalRequest): void {
  const { requests } = requestsSlice.of(ctx);
  requestIndex.changed(requests, stored);
  changeIndex.changed(requests, stored);
}

function fileRetrievalRequest(ctx: ModelContext, stored: StoredRetrievalRequest): void {
  const { requests } = requestsSlice.of(ctx);
  requests.set(stored.value.id, stored);
  requestIndex.added(requests, stored);
  changeIndex.added(requests, stored);
}

export function findRetrievalRequest(ctx: ModelContext, id: string): StoredRetrievalRequest {
  const stored = requestsSlice.of(ctx).requests.get(id);
  if (stored === undefined) throw notFound("The retrieval request does not exist.");
  return stored;
}

/** A request of `state` by id, if it exists there (the autopilot's steps run within the state they began in). */
export function retrievalRequestIn(
  state: MockState,
  id: string,
): StoredRetrievalRequest | undefined {
  return requestsSlice.of(state).requests.get(id);
}

export function openActionRequestOf(
  stored: StoredRetrievalRequest,
): ActionRequestRecord | undefined {
  const id = stored.pendingActionRequestId;
  return id === null ? undefined : stored.actionRequests.find((ar) => ar.id === id);
}

/** An action request as the API shows it: its `pending_action_request` form. */
export function actionRequestFields(actionRequest: ActionRequestRecord) {
  const { id, message, reason, requires_attachment, requires_pdf, opened_at } = actionRequest;
  return { id, message, reason, requires_attachment, requires_pdf, opened_at };
}

const sumOrNull = (values: (number | null)[]): number | null => {
  const known = values.filter((v): v is number => v !== null);
  // Amounts are decimals of the currency: summed in cents so 0.1 + 0.2 is 0.3.
  return known.length === 0 ? null : known.reduce((sum, v) => sum + Math.round(v * 100), 0) / 100;
};

/** The API body of a stored request. */
export function renderRetrievalRequest(
  ctx: ModelContext,
  stored: StoredRetrievalRequest,
): RetrievalRequest {
  const v = stored.value;
  const pending = openActionRequestOf(stored);
  const invoices = stored.documents.filter((d) => d.value.kind === "invoice");
  return {
    id: v.id,
    case_id: v.case_id,
    external_id: v.external_id,
    status: v.status,
    stage: v.stage,
    action_required_reason: v.action_required_reason,
    pending_action_request: pending === undefined ? null : actionRequestFields(pending),
    public_updated_at: v.public_updated_at,
    costs: {
      records_fee: sumOrNull(invoices.map((d) => d.recordsFee)),
      invoice_total: sumOrNull(invoices.map((d) => d.amount)),
      currency: MOCK_CURRENCY,
    },
    documents: stored.documents.map((d) => ({ ...d.value })),
    facility: getFacility(ctx, v.facility_id),
    created_at: v.created_at,
    updated_at: v.updated_at,
  };
}

export function getRetrievalRequest(ctx: ModelContext, id: string): RetrievalRequest {
  return renderRetrievalRequest(ctx, findRetrievalRequest(ctx, id));
}

export interface RetrievalRequestFilters {
  case_id?: string | undefined;
  status?: RetrievalStatusValue | undefined;
  /** ISO date-time: only requests changed after it, oldest change first. */
  updated_since?: string | undefined;
  /** Only the requests with exactly this `external_id`. */
  external_id?: string | undefined;
}

export interface RetrievalRequestPage extends Page<RetrievalRequest> {
  /** Greatest public_updated_at on the page, else the given updated_since, else null. */
  nextPublicUpdatedSince: string | null;
}

/**
 * Without `updated_since`: newest created first, like every list. With it:
 * requests whose public_updated_at is after it, oldest change first, so that
 * a poller can store the last value it processed and resume from it.
 */
export function listRetrievalRequests(
  ctx: ModelContext,
  filters: RetrievalRequestFilters,
  page: PageRequest,
): RetrievalRequestPage {
  const sinceMs =
    filters.updated_since === undefined ? undefined : Date.parse(filters.updated_since);
  const { case_id, status, external_id } = filters;
  const matches = ({ value }: StoredRetrievalRequest): boolean =>
    (case_id === undefined || value.case_id === case_id) &&
    (status === undefined || value.status === status) &&
    (external_id === undefined || value.external_id === external_id);
  const { requests } = requestsSlice.of(ctx);
  let result: Page<StoredRetrievalRequest>;
  if (sinceMs === undefined) {
    // The narrowest bucket the filters name; `matches` checks the rest.
    const bucket =
      external_id !== undefined
        ? `external_id:${external_id}`
        : case_id !== undefined && status !== undefined
          ? `case_id:${case_id}:status:${status}`
          : case_id !== undefined
            ? `case_id:${case_id}`
            : status !== undefined
              ? `status:${status}`
              : undefined;
    result = paginateSorted(requestIndex.of(requests).list(bucket), seqKey, matches, page, 1);
  } else {
    // Keyset pagination lists the greatest key first; the negated
    // public_updated_at (unique, see retrieval-state.ts) makes that the
    // oldest change first, and a cursor still names a position. The changes
    // after `updated_since` are the greatest keys: the range ends where the
    // negated key reaches it.
    const changes = changeIndex.of(requests).list();
    const key = (stored: StoredRetrievalRequest) => -Date.parse(stored.value.public_updated_at);
    let lo = 0;
    let hi = changes.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (key(changes[mid] as StoredRetrievalRequest) < -sinceMs) lo = mid + 1;
      else hi = mid;
    }
    result = paginateSorted(changes, (stored) => [key(stored)], matches, page, 1, {
      from: 0,
      to: lo,
    });
  }
  const results = result.results.map((stored) => renderRetrievalRequest(ctx, stored));
  const greatest = results.reduce<string | null>(
    (max, r) =>
      max === null || Date.parse(r.public_updated_at) > Date.parse(max) ? r.public_updated_at : max,
    null,
  );
  return {
    ...result,
    results,
    nextPublicUpdatedSince:
      greatest ?? (sinceMs === undefined ? null : new Date(sinceMs).toISOString()),
  };
}

/** The request's documents, newest first like every list; not-ready invoices included. */
export function listRetrievalDocuments(
  ctx: ModelContext,
  id: string,
  page: PageRequest,
): Page<RetrievalDocument> {
  const stored = findRetrievalRequest(ctx, id);
  const result = paginate(stored.documents, (d) => d.seq, page);
  return { ...result, results: result.results.map((d) => ({ ...d.value })) };
}

/** A presigned address for a record or a ready invoice; 409 document_not_ready before that. */
export function downloadRetrievalDocument(
  ctx: ModelContext,
  id: string,
  documentId: string,
): IssuedDownload {
  const document = findRetrievalRequest(ctx, id).documents.find((d) => d.value.id === documentId);
  if (document === undefined)
    throw notFound("The document does not exist on this retrieval request.");
  if (!document.value.ready) {
    throw new MockApiError(
      409,
      "document_not_ready",
      "The document cannot be downloaded yet; a retrieval_request.documents_available event announces when it can.",
    );
  }
  return issueDownload(ctx, {
    bytes: document.bytes,
    fileType: document.value.file_type,
    fileName: document.value.file_name,
  });
}

/** Where a create or an answer may take an upload from. */
function takeFrom(upload: StoredUpload): UploadedFile {
  const bytes = upload.bytes as Uint8Array;
  return {
    upload_id: upload.id,
    file_name: upload.fileName,
    file_type: upload.fileType,
    file_size: bytes.byteLength,
    bytes,
  };
}

/** Prefixes an upload error with the field it came from, keeping its status and code. */
function inField<T>(field: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof MockApiError) {
      throw new MockApiError(error.status, error.code, `${field}: ${error.message}`);
    }
    throw error;
  }
}

/**
 * Creates a retrieval request. Order: referenced case, facility and requestor
 * exist (404); then every upload passes (400 upload_*: retrieval-level, or
 * case-level under the referenced case; an inline case is new, so only
 * retrieval-level ones can go with it); only then are the inline case,
 * facility and requestor created and the uploads consumed, so a refused
 * request leaves nothing behind. No event: nothing has changed for the
 * provider yet; the request's first public_updated_at is its creation.
 */
export function createRetrievalRequest(
  ctx: ModelContext,
  input: RetrievalRequestCreate,
): RetrievalRequest {
  if (input.case_id !== undefined) assertCaseExists(ctx, input.case_id);
  if (input.facility_id !== undefined) getFacility(ctx, input.facility_id);
  if (input.requestor_id !== undefined) getRequestor(ctx, input.requestor_id);

  const uploadCase = input.case_id ?? null;
  const accepts = (upload: StoredUpload) => upload.caseId === null || upload.caseId === uploadCase;
  const notFoundMessage =
    "upload_id does not name an upload signed at retrieval level or under the request's case.";
  const uploads = [
    ["auth_form", input.auth_form] as const,
    ...(input.attachments ?? []).map((id, i) => [`attachments[${i}]`, id] as const),
  ].map(([field, uploadId]) =>
    inField(field, () => checkUpload(ctx, uploadId, accepts, notFoundMessage)),
  );

  const caseId = input.case_id ?? createCase(ctx, input.case!).id;
  const facilityId = input.facility_id ?? createFacility(ctx, input.facility!).id;
  const requestorId = input.requestor_id ?? createRequestor(ctx, input.requestor!).id;
  for (const upload of uploads) upload.consumed = true;
  const [authForm, ...attachments] = uploads.map(takeFrom);

  const stored = storeRetrievalRequest(ctx, {
    case_id: caseId,
    external_id: input.external_id ?? null,
    status: "pending",
    stage: "intake",
    action_required_reason: null,
    facility_id: facilityId,
    requestor_id: requestorId,
    auth_form: authForm!,
    attachments,
    record_types: input.record_types ?? [],
    date_from: input.date_from ?? null,
    date_to: input.date_to ?? null,
    notes: input.notes ?? null,
  });
  ctx.autopilot?.adopt(stored.value.id);
  return renderRetrievalRequest(ctx, stored);
}

/** What `placeRetrievalRequest` puts in place: a request as it stands after a history not replayed. */
export interface PlacedRetrievalRequest {
  case_id: string;
  facility_id: string;
  requestor_id: string;
  external_id: string | null;
  status: RetrievalStatusValue;
  stage: RetrievalStageValue;
  action_required_reason: ActionRequiredReasonValue | null;
  auth_form: UploadedFile;
}

/**
 * Stores a retrieval request directly in a given status and stage (seeding,
 * src/mock/controls/seed.ts): no upload is consumed and no event emitted. Its case,
 * facility and requestor must exist; the caller checked the combination.
 */
export function placeRetrievalRequest(
  ctx: ModelContext,
  input: PlacedRetrievalRequest,
): StoredRetrievalRequest {
  assertCaseExists(ctx, input.case_id);
  getFacility(ctx, input.facility_id);
  getRequestor(ctx, input.requestor_id);
  return storeRetrievalRequest(ctx, {
    ...input,
    attachments: [],
    record_types: [],
    date_from: null,
    date_to: null,
    notes: null,
  });
}

/** The fields a new request is given; its id and times are the model's. */
type NewRetrievalRequest = Omit<
  RetrievalRequestRecord,
  "id" | "created_at" | "updated_at" | "public_updated_at"
>;

/**
 * The one place a request record is built and filed (created through the
 * API or placed by seeding): a fresh id and sequence, created, updated and
 * public-updated at the next `public_updated_at`, no documents or action
 * requests yet.
 */
function storeRetrievalRequest(
  ctx: ModelContext,
  fields: NewRetrievalRequest,
): StoredRetrievalRequest {
  const now = new Date(nextPublicUpdateMs(ctx)).toISOString();
  const stored: StoredRetrievalRequest = {
    seq: nextSequence(ctx.state),
    value: {
      id: nextRetrievalId(ctx, "retrieval_request", "ret_"),
      ...fields,
      created_at: now,
      updated_at: now,
      public_updated_at: now,
    },
    documents: [],
    actionRequests: [],
    pendingActionRequestId: null,
  };
  fileRetrievalRequest(ctx, stored);
  return stored;
}
