/**
 * The three retrieval events (spec, Events), with their deterministic ids:
 * `rr-` + hex SHA-256 of the type, the retrieval request id and the
 * occurrence, joined by newlines (docs/spec-decisions.md, "Retrieval
 * requests and action responses"). The occurrence is
 *
 * - status_changed: the new `public_updated_at`;
 * - action_required: the action request id and its opening (1, 2, ... on reopening);
 * - documents_available: the ids that became downloadable, sorted, joined by commas.
 *
 * Every attempt and redelivery of one occurrence therefore shares an id, and
 * a later occurrence (a reopened action request) gets a new one. Each event
 * is stamped with the `public_updated_at` of the change it reports.
 */

import { sha256HexSync as sha256Hex } from "../../internal/sha256.js";
import { emitEvent } from "./events.js";
import type { ActionRequestRecord, StoredRetrievalRequest } from "./retrieval-requests.js";
import type { ModelContext } from "./state.js";

export const STATUS_CHANGED = "retrieval_request.status_changed";
export const ACTION_REQUIRED = "retrieval_request.action_required";
export const DOCUMENTS_AVAILABLE = "retrieval_request.documents_available";

function baseData(stored: StoredRetrievalRequest) {
  const { id, case_id, public_updated_at } = stored.value;
  return { retrieval_request_id: id, case_id, public_updated_at };
}

/** Emits a retrieval event with its deterministic id, at the request's `public_updated_at`. */
function emitRetrievalEvent(
  ctx: ModelContext,
  stored: StoredRetrievalRequest,
  type: string,
  occurrence: string,
  data: Record<string, unknown>,
  requestId: string | null,
  logData?: Record<string, unknown>,
): string {
  return emitEvent(ctx, type, data, {
    id: `rr-${sha256Hex(`${type}\n${stored.value.id}\n${occurrence}`)}`,
    requestId,
    atMs: Date.parse(stored.value.public_updated_at),
    logData,
  }).id;
}

/** status_changed; the log entry also carries status, stage and action_required_reason. */
export function emitStatusChanged(
  ctx: ModelContext,
  stored: StoredRetrievalRequest,
  requestId: string | null,
): string {
  const data = baseData(stored);
  const { status, stage, action_required_reason } = stored.value;
  const logData = { ...data, status, stage, action_required_reason };
  return emitRetrievalEvent(
    ctx,
    stored,
    STATUS_CHANGED,
    data.public_updated_at,
    data,
    requestId,
    logData,
  );
}

export function emitActionRequired(
  ctx: ModelContext,
  stored: StoredRetrievalRequest,
  actionRequest: ActionRequestRecord,
  requestId: string | null,
): string {
  const occurrence = `${actionRequest.id}\n${actionRequest.opening}`;
  const data = { ...baseData(stored), action_request_id: actionRequest.id };
  return emitRetrievalEvent(ctx, stored, ACTION_REQUIRED, occurrence, data, requestId);
}

/** documents_available for records (`invoice` false) or for invoices, whose ids are also `invoice_ids`. */
export function emitDocumentsAvailable(
  ctx: ModelContext,
  stored: StoredRetrievalRequest,
  documentIds: readonly string[],
  invoice: boolean,
  requestId: string | null,
): string {
  const occurrence = [...documentIds].sort().join(",");
  const data: Record<string, unknown> = { ...baseData(stored), document_ids: [...documentIds] };
  if (invoice) data.invoice_ids = [...documentIds];
  return emitRetrievalEvent(ctx, stored, DOCUMENTS_AVAILABLE, occurrence, data, requestId);
}
