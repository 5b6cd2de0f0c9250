/**
 * Client action requests of a retrieval request: opened and reopened by the
 * provider (control API), answered by the firm (action-response rules 1 to 6).
 */
import {
  type ActionRequestAnswer,
  ActionResponseMessage,
} from "../../schemas/retrieval-requests.js";
import { MockApiError, validationError } from "../runtime/http-error.js";
import { emitActionRequired, emitStatusChanged } from "./retrieval-events.js";
import { assertNotFinal } from "./retrieval-provider.js";
import {
  type ActionRequestRecord,
  actionRequestFields,
  findRetrievalRequest,
  type MockActionRequest,
  type OpenedActionRequest,
  openActionRequestOf,
  refileRetrievalRequest,
  type StoredRetrievalRequest,
  touchPublic,
} from "./retrieval-requests.js";
import { nextRetrievalId } from "./retrieval-state.js";
import type { ModelContext } from "./state.js";
import { checkUpload, type StoredUpload } from "./uploads.js";

export type OpenActionRequestInput = Omit<OpenedActionRequest, "id" | "opened_at">;

/**
 * Opens a client action request, or reopens the latest closed one with the
 * same reason (same id, next opening, so a new action_required event id).
 * The request moves to status action_required with that reason: a public
 * change with status_changed, then action_required. Refused while one is
 * open (at most one, spec rule 1) and on a completed or cancelled request.
 */
export function openActionRequest(
  ctx: ModelContext,
  retrievalRequestId: string,
  input: OpenActionRequestInput,
): OpenedActionRequest {
  const stored = findRetrievalRequest(ctx, retrievalRequestId);
  assertNotFinal(stored);
  const open = openActionRequestOf(stored);
  if (open !== undefined) {
    throw new Error(
      `Retrieval request ${retrievalRequestId} already has an open action request (${open.id}); it must be answered first.`,
    );
  }
  const openedAt = touchPublic(ctx, stored);
  const previous = stored.actionRequests.findLast((ar) => ar.reason === input.reason);
  let actionRequest: ActionRequestRecord;
  if (previous === undefined) {
    actionRequest = {
      id: nextRetrievalId(ctx, "action_request", "ar_"),
      ...input,
      opened_at: openedAt,
      opening: 1,
      status: "open",
      responses: [],
      attachments: new Map(),
    };
    stored.actionRequests.push(actionRequest);
  } else {
    actionRequest = previous;
    Object.assign(actionRequest, input, {
      opened_at: openedAt,
      opening: previous.opening + 1,
      status: "open",
    });
  }
  stored.pendingActionRequestId = actionRequest.id;
  stored.value.status = "action_required";
  stored.value.action_required_reason = actionRequest.reason;
  refileRetrievalRequest(ctx, stored);
  emitStatusChanged(ctx, stored, null);
  emitActionRequired(ctx, stored, actionRequest, null);
  return actionRequestFields(actionRequest);
}

/**
 * Puts an open action request on a request already in status action_required
 * with the same reason (seeding, src/mock/controls/seed.ts): first opening, opened at
 * the request's public_updated_at, no event.
 */
export function placeActionRequest(
  ctx: ModelContext,
  stored: StoredRetrievalRequest,
  input: OpenActionRequestInput,
): ActionRequestRecord {
  const actionRequest: ActionRequestRecord = {
    id: nextRetrievalId(ctx, "action_request", "ar_"),
    ...input,
    opened_at: stored.value.public_updated_at,
    opening: 1,
    status: "open",
    responses: [],
    attachments: new Map(),
  };
  stored.actionRequests.push(actionRequest);
  stored.pendingActionRequestId = actionRequest.id;
  return actionRequest;
}

export interface ActionResponseInput {
  /** As sent: trimmed and judged here, so a bad one is a rejection, not a validation error. */
  message: string;
  requester_email?: string | undefined;
  attachment?: { upload_id: string } | undefined;
}

export interface Responder {
  apiKeyId: string;
  requestId: string;
}

const PDF_MAGIC = [0x25, 0x50, 0x44, 0x46, 0x2d]; // "%PDF-"

function isPdf(fileType: string, bytes: Uint8Array): boolean {
  const base = fileType.split(";")[0]?.trim().toLowerCase();
  return base === "application/pdf" && PDF_MAGIC.every((byte, i) => bytes[i] === byte);
}

function rejected(why: string): MockApiError {
  return new MockApiError(
    400,
    "action_response_rejected",
    `${why} The action request stays open; answer it again.`,
  );
}

/** Rule 4: a case-level upload under the request's case; any upload_* reason rejects the answer. */
function takeAttachment(
  ctx: ModelContext,
  stored: StoredRetrievalRequest,
  uploadId: string,
): StoredUpload {
  try {
    return checkUpload(
      ctx,
      uploadId,
      (upload) => upload.caseId === stored.value.case_id,
      "upload_id does not name an upload signed under the retrieval request's case (case-level signing).",
    );
  } catch (error) {
    if (!(error instanceof MockApiError)) throw error;
    throw rejected(`attachment.upload_id: ${error.message} (${error.code}).`);
  }
}

/**
 * Answers the open action request (spec, rules 1 to 6). A message that is
 * not 1 to ACTION_RESPONSE_MESSAGE_MAX characters after trimming is 400 validation_error, before
 * anything else. Rejected with 400 action_response_rejected, leaving it open,
 * when: none is open; a required attachment is missing; the attachment is not a usable case-level upload under the
 * request's case (the upload_* reason is named); a PDF is required and the
 * file is not `application/pdf` starting with `%PDF-`. Accepted: the answer is
 * recorded (message trimmed; responder = requester_email, else the key's id),
 * the upload consumed, and the request moves to processing with no pending
 * action request: a public change with status_changed.
 */
export function respondToActionRequest(
  ctx: ModelContext,
  retrievalRequestId: string,
  input: ActionResponseInput,
  responder: Responder,
): ActionRequestAnswer {
  // The message rule holds whatever the state, so it is a validation error,
  // as the client reports it (docs/spec-decisions.md, Retrieval requests).
  const message = ActionResponseMessage.safeParse(input.message);
  if (!message.success) {
    throw validationError(
      message.error.issues.map((issue) => ({ ...issue, path: ["message", ...issue.path] })),
      "body",
    );
  }
  const stored = findRetrievalRequest(ctx, retrievalRequestId);
  const open = openActionRequestOf(stored);
  if (open === undefined) {
    throw new MockApiError(
      400,
      "action_response_rejected",
      "The retrieval request has no open action request to answer.",
    );
  }
  const attachment =
    input.attachment === undefined
      ? undefined
      : takeAttachment(ctx, stored, input.attachment.upload_id);
  if (attachment === undefined && open.requires_attachment) {
    throw rejected(
      open.requires_pdf
        ? "attachment: This action request must be answered with a signed PDF."
        : "attachment: This action request must be answered with an attachment.",
    );
  }
  if (
    attachment !== undefined &&
    open.requires_pdf &&
    !isPdf(attachment.fileType, attachment.bytes!)
  ) {
    throw rejected(
      "attachment: This action request must be answered with a PDF (file_type application/pdf, content starting with %PDF-).",
    );
  }

  const respondedAt = touchPublic(ctx, stored);
  if (attachment !== undefined) {
    attachment.consumed = true;
    open.attachments.set(attachment.id, attachment.bytes!);
  }
  open.status = "responded";
  open.responses.push({
    message: message.data,
    responder: input.requester_email ?? responder.apiKeyId,
    requester_email: input.requester_email ?? null,
    api_key_id: responder.apiKeyId,
    responded_at: respondedAt,
    request_id: responder.requestId,
    attachment:
      attachment === undefined
        ? null
        : {
            upload_id: attachment.id,
            file_name: attachment.fileName,
            file_type: attachment.fileType,
            file_size: attachment.bytes!.byteLength,
          },
  });
  stored.pendingActionRequestId = null;
  stored.value.status = "processing";
  stored.value.action_required_reason = null;
  refileRetrievalRequest(ctx, stored);
  emitStatusChanged(ctx, stored, responder.requestId);
  return {
    id: open.id,
    retrieval_request_id: stored.value.id,
    status: "responded",
    responded_at: respondedAt,
  };
}

/** Every action request of a retrieval request, oldest first. */
export function listActionRequests(
  ctx: ModelContext,
  retrievalRequestId: string,
): MockActionRequest[] {
  return findRetrievalRequest(ctx, retrievalRequestId).actionRequests.map((ar) => ({
    ...actionRequestFields(ar),
    opening: ar.opening,
    status: ar.status,
    responses: ar.responses.map((r) => ({
      ...r,
      attachment: r.attachment === null ? null : { ...r.attachment },
    })),
  }));
}
