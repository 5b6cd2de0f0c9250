/**
 * The provider's side of a retrieval request, which the control API drives
 * (`mock.retrievalRequests`, retrieval-control.ts): status moves, released
 * records, invoices, and the final states. Opening action requests lives in
 * action-requests.ts.
 *
 * Every change here is public: it moves `public_updated_at` (see
 * retrieval-state.ts) and emits its event, with request id null when the
 * control API made it (no API call behind it).
 */
import {
  FINAL_RETRIEVAL_STATUSES,
  type RetrievalDocument,
  type RetrievalRequest,
} from "../../schemas/retrieval-requests.js";
import { notFound } from "../runtime/http-error.js";
import { emitDocumentsAvailable, emitStatusChanged } from "./retrieval-events.js";
import {
  type ActionRequiredReasonValue,
  findRetrievalRequest,
  openActionRequestOf,
  type RetrievalStageValue,
  type RetrievalStatusValue,
  renderRetrievalRequest,
  type StoredRetrievalDocument,
  type StoredRetrievalRequest,
  touchPublic,
} from "./retrieval-requests.js";
import { nextRetrievalId } from "./retrieval-state.js";
import { type ModelContext, nextSequence } from "./state.js";

function isFinal(stored: StoredRetrievalRequest): boolean {
  return (FINAL_RETRIEVAL_STATUSES as readonly string[]).includes(stored.value.status);
}

/** Refuses a status move on a completed or cancelled request (control API misuse). */
export function assertNotFinal(stored: StoredRetrievalRequest): void {
  if (isFinal(stored)) {
    throw new Error(
      `Retrieval request ${stored.value.id} is ${stored.value.status}: a final state does not change.`,
    );
  }
}

/** Closes the open action request unanswered, if any. */
function withdrawOpenActionRequest(stored: StoredRetrievalRequest): void {
  const open = openActionRequestOf(stored);
  if (open !== undefined) open.status = "withdrawn";
  stored.pendingActionRequestId = null;
}

export interface StatusInput {
  status: RetrievalStatusValue;
  stage: RetrievalStageValue;
  action_required_reason?: ActionRequiredReasonValue | null | undefined;
}

/**
 * A new visible status: every call is a public change with its own
 * status_changed, even with the same status and stage (a new update within a
 * stage, spec Events). Moving away from action_required withdraws an open
 * action request; staying there keeps it (and its reason unless one is given).
 */
export function setRetrievalStatus(
  ctx: ModelContext,
  id: string,
  input: StatusInput,
  requestId: string | null = null,
): RetrievalRequest {
  const stored = findRetrievalRequest(ctx, id);
  assertNotFinal(stored);
  const open = openActionRequestOf(stored);
  if (input.status !== "action_required") {
    if (input.action_required_reason != null) {
      throw new TypeError("action_required_reason is only allowed with status action_required.");
    }
    withdrawOpenActionRequest(stored);
  }
  stored.value.status = input.status;
  stored.value.stage = input.stage;
  stored.value.action_required_reason =
    input.status === "action_required"
      ? (input.action_required_reason ?? open?.reason ?? null)
      : null;
  touchPublic(ctx, stored);
  emitStatusChanged(ctx, stored, requestId);
  return renderRetrievalRequest(ctx, stored);
}

/** complete / cancel: the final status and stage of the same name. */
export function finishRetrievalRequest(
  ctx: ModelContext,
  id: string,
  status: "completed" | "cancelled",
): RetrievalRequest {
  return setRetrievalStatus(ctx, id, { status, stage: status });
}

export interface NewFile {
  file_name: string;
  file_type: string;
  bytes: Uint8Array;
}

/** Lists a document on the request; no public change, no event (the callers make those). */
export function addDocument(
  ctx: ModelContext,
  stored: StoredRetrievalRequest,
  kind: "record" | "invoice",
  file: NewInvoice,
  createdAt: string,
): StoredRetrievalDocument {
  const document: StoredRetrievalDocument = {
    seq: nextSequence(ctx.state),
    value: {
      id: nextRetrievalId(ctx, "retrieval_document", "rdoc_"),
      kind,
      file_name: file.file_name,
      file_type: file.file_type,
      file_size: file.bytes.byteLength,
      ready: file.ready,
      created_at: createdAt,
    },
    bytes: file.bytes.slice(),
    amount: file.amount,
    recordsFee: file.records_fee,
  };
  stored.documents.push(document);
  return document;
}

/** Records released by the provider: listed and downloadable at once; one documents_available. */
export function releaseRecords(ctx: ModelContext, id: string, files: readonly NewFile[]): string[] {
  const stored = findRetrievalRequest(ctx, id);
  const createdAt = touchPublic(ctx, stored);
  const record = { ready: true, amount: null, records_fee: null };
  const ids = files.map(
    (file) => addDocument(ctx, stored, "record", { ...file, ...record }, createdAt).value.id,
  );
  emitDocumentsAvailable(ctx, stored, ids, false, null);
  return ids;
}

export interface NewInvoice extends NewFile {
  ready: boolean;
  amount: number | null;
  records_fee: number | null;
}

/**
 * A provider invoice. Listed at once (a public change, without an event
 * while it is not ready); a ready one emits documents_available with
 * `invoice_ids`. Returns the invoice's document id.
 */
export function addInvoice(ctx: ModelContext, id: string, invoice: NewInvoice): string {
  const stored = findRetrievalRequest(ctx, id);
  const document = addDocument(ctx, stored, "invoice", invoice, touchPublic(ctx, stored));
  if (invoice.ready) emitDocumentsAvailable(ctx, stored, [document.value.id], true, null);
  return document.value.id;
}

/** Makes a listed invoice downloadable (documents_available); a ready one is left as it is. */
export function markInvoiceReady(
  ctx: ModelContext,
  id: string,
  invoiceId: string,
): RetrievalDocument {
  const stored = findRetrievalRequest(ctx, id);
  const document = stored.documents.find((d) => d.value.id === invoiceId);
  if (document === undefined || document.value.kind !== "invoice") {
    throw notFound(`Retrieval request ${id} has no invoice ${invoiceId}.`);
  }
  if (!document.value.ready) {
    document.value.ready = true;
    touchPublic(ctx, stored);
    emitDocumentsAvailable(ctx, stored, [invoiceId], true, null);
  }
  return { ...document.value };
}
