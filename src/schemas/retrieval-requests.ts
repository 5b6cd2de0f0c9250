import * as z from "zod";
import type * as Wire from "../types/wire.js";
import { makeCaseCreate } from "./cases.js";
import { dateQuery, IsoDate, IsoDateTime, ListEnvelope, ListParams, openEnum } from "./common.js";
import { Email } from "./email.js";
import { ActionRequiredReason, RetrievalStage, RetrievalStatus } from "./events.js";
import { Facility, FacilityCreate } from "./facilities.js";
import { RequestorCreate } from "./requestors.js";
import { personal } from "./sensitive.js";

// ---------------------------------------------------------------- limits

/** Longest action-response message, after trimming (spec, rule 2). */
export const ACTION_RESPONSE_MESSAGE_MAX = 10_000;
/** Upload ids in `attachments` of a retrieval request. */
export const RETRIEVAL_ATTACHMENTS_MAX = 20;
/** Most entries of `record_types`. */
export const RECORD_TYPES_MAX = 20;
/** Longest entry of `record_types`. */
export const RECORD_TYPE_MAX = 100;
/** Longest `notes` of a retrieval request. */
export const RETRIEVAL_NOTES_MAX = 5000;
/** Longest `external_id` of a retrieval request. */
export const RETRIEVAL_EXTERNAL_ID_MAX = 255;

/**
 * The known values of {@link RetrievalStatus}: what a `status` filter accepts
 * (a response may carry a value added later).
 */
export const RETRIEVAL_STATUSES = RetrievalStatus.options[0].options;
/** The known values of {@link RetrievalStage}. */
export const RETRIEVAL_STAGES = RetrievalStage.options[0].options;
/** The known values of {@link ActionRequiredReason}. */
export const ACTION_REQUIRED_REASONS = ActionRequiredReason.options[0].options;
/** Statuses after which a retrieval request no longer changes status. */
export const FINAL_RETRIEVAL_STATUSES = ["completed", "cancelled"] as const;

/** The known values of a retrieval document's `kind`: a released record or a provider invoice. */
export const RETRIEVAL_DOCUMENT_KINDS = ["record", "invoice"] as const;

// ---------------------------------------------------------------- responses

/** The open client action request of a retrieval request. */
export const PendingActionRequest = z.strictObject({
  /** Opaque identifier; a reopened request gets a new one. */
  id: z.string(),
  /** What the provider asks of the firm, in the provider's words. */
  message: personal("text", z.string()),
  /** Why the request needs the firm. */
  reason: ActionRequiredReason,
  /** The answer must carry an attachment (spec, rule 5). */
  requires_attachment: z.boolean(),
  /** The attachment must be a PDF, e.g. a signed HIPAA authorization (spec, rule 5). */
  requires_pdf: z.boolean(),
  /** When it was opened (or reopened): ISO 8601 date-time. */
  opened_at: IsoDateTime,
});
export interface PendingActionRequest extends Wire.PendingActionRequest {}

/** Money amounts in `currency` (decimal numbers), null until known. */
export const RetrievalCosts = z.strictObject({
  /** The provider's fee for the records. */
  records_fee: z.number().nonnegative().nullable(),
  /** Sum of the provider invoices. */
  invoice_total: z.number().nonnegative().nullable(),
  /** ISO 4217 code, e.g. `USD`. */
  currency: z.string(),
});
export interface RetrievalCosts extends Wire.RetrievalCosts {}

/** A retrieved record or a provider invoice. An invoice may be listed before it is `ready`. */
export const RetrievalDocument = z.strictObject({
  /** Opaque identifier, as in `document_ids` of a documents_available event. */
  id: z.string(),
  /** One of {@link RETRIEVAL_DOCUMENT_KINDS}, or a value the service added later. */
  kind: openEnum(RETRIEVAL_DOCUMENT_KINDS),
  /** Name of the file. */
  file_name: personal("file_name", z.string()),
  /** MIME type. */
  file_type: z.string(),
  /** Bytes. */
  file_size: z.number().int().nonnegative(),
  /** False while the file cannot be downloaded yet (an invoice before its documents_available). */
  ready: z.boolean(),
  /** ISO 8601 date-time. */
  created_at: IsoDateTime,
});
export interface RetrievalDocument extends Wire.RetrievalDocument {}

/** A request to obtain records from a provider (docs/spec-decisions.md, "Retrieval requests and action responses"). */
export const RetrievalRequest = z.strictObject({
  /** Opaque identifier. */
  id: z.string(),
  /** The case it belongs to; null when it has none. */
  case_id: z.string().nullable(),
  /** Your own identifier, when you gave one. */
  external_id: z.string().nullable(),
  /** Where the request stands, e.g. `action_required`. */
  status: RetrievalStatus,
  /** The finer step on the request's timeline, e.g. `request_sent`. */
  stage: RetrievalStage,
  /** Set while the request waits on the firm; null otherwise. */
  action_required_reason: ActionRequiredReason.nullable(),
  /** The open client action request, answered with `respondToAction`; null when none is open. */
  pending_action_request: PendingActionRequest.nullable(),
  /** Version of the public state: compare it with a cached copy (spec, Delivery rule 7). */
  public_updated_at: IsoDateTime,
  /** Fees and invoice total, null until known. */
  costs: RetrievalCosts,
  /** Released records and provider invoices, oldest first. */
  documents: z.array(RetrievalDocument),
  /** The provider the records are requested from. */
  facility: Facility,
  /** ISO 8601 date-time. */
  created_at: IsoDateTime,
  /** ISO 8601 date-time of the last change; to order versions, compare `public_updated_at`. */
  updated_at: IsoDateTime,
});
export interface RetrievalRequest extends Wire.RetrievalRequest {}

/** Response of GET /v2/retrieval-requests: the list envelope plus the poll's next `since`. */
export const RetrievalRequestList = ListEnvelope(RetrievalRequest).extend({
  /**
   * The greatest `public_updated_at` on this page, or the given `updated_since` when the page is
   * empty (null when neither exists).
   */
  next_public_updated_since: IsoDateTime.nullable(),
});
export interface RetrievalRequestList extends Wire.RetrievalRequestList {}

// ---------------------------------------------------------------- requests

const id = z.string().min(1);
/** An upload_id: retrieval-level, or case-level under the request's case. */
const uploadId = z.string().min(1);

const PAIRS: readonly (readonly [idKey: string, inlineKey: string])[] = [
  ["case_id", "case"],
  ["facility_id", "facility"],
  ["requestor_id", "requestor"],
];

/**
 * Builds the retrieval request creation schema against a clock, because an
 * inline `case` is a CaseCreate, whose `date_of_injury` must lie in the past
 * of whoever validates.
 *
 * Exactly one of `case_id`/`case`, `facility_id`/`facility` and
 * `requestor_id`/`requestor`; `date_from` not after `date_to`; an upload id
 * at most once across `auth_form` and `attachments`.
 *
 * @internal For the reference server; users validate with {@link RetrievalRequestCreate}.
 */
export function makeRetrievalRequestCreate(now: () => number = () => Date.now()) {
  return z
    .strictObject({
      /** An existing case; or give `case`. */
      case_id: id.optional(),
      /** A new case, created with the request (needs cases:write). */
      case: makeCaseCreate(now).optional(),
      /** A facility of the directory (`mr.facilities.search()`); or give `facility`. */
      facility_id: id.optional(),
      /** A provider that is not in the directory. */
      facility: FacilityCreate.optional(),
      /** An existing retrieval profile; or give `requestor`. */
      requestor_id: id.optional(),
      /** A new retrieval profile, created with the request (needs requestors:write). */
      requestor: RequestorCreate.optional(),
      /** upload_id of the signed authorization form. */
      auth_form: uploadId,
      /** upload_ids of further files for the provider, at most {@link RETRIEVAL_ATTACHMENTS_MAX}, none repeated. */
      attachments: z.array(uploadId).max(RETRIEVAL_ATTACHMENTS_MAX).optional(),
      /** What to retrieve, e.g. `medical_records`, `billing_records`, `imaging`. */
      record_types: z
        .array(z.string().min(1).max(RECORD_TYPE_MAX))
        .max(RECORD_TYPES_MAX)
        .optional(),
      /** Start of the period of care to retrieve, `YYYY-MM-DD`. */
      date_from: IsoDate.optional(),
      /** End of the period, `YYYY-MM-DD`, not before `date_from`. */
      date_to: IsoDate.optional(),
      /** Instructions for the provider, up to {@link RETRIEVAL_NOTES_MAX} characters. */
      notes: z.string().max(RETRIEVAL_NOTES_MAX).optional(),
      /** Your own identifier, up to {@link RETRIEVAL_EXTERNAL_ID_MAX} characters. */
      external_id: z.string().max(RETRIEVAL_EXTERNAL_ID_MAX).optional(),
    })
    .superRefine((body, ctx) => {
      const fields = body as Record<string, unknown>;
      for (const [idKey, inlineKey] of PAIRS) {
        const given = [idKey, inlineKey].filter((key) => fields[key] !== undefined);
        if (given.length !== 1) {
          ctx.addIssue({
            code: "custom",
            path: [given.length === 0 ? idKey : inlineKey],
            message: `Give exactly one of ${idKey} or ${inlineKey}`,
          });
        }
      }
      if (body.date_from !== undefined && body.date_to !== undefined) {
        if (body.date_from > body.date_to) {
          ctx.addIssue({
            code: "custom",
            path: ["date_to"],
            message: "Must not be before date_from",
          });
        }
      }
      const seen = new Set([body.auth_form]);
      body.attachments?.forEach((upload, index) => {
        if (seen.has(upload)) {
          ctx.addIssue({
            code: "custom",
            path: ["attachments", index],
            message: "Each upload_id may be used once (auth_form included)",
          });
        }
        seen.add(upload);
      });
    });
}

/** Request body of retrieval request creation (validated against the caller's clock). */
export const RetrievalRequestCreate = makeRetrievalRequestCreate();
export interface RetrievalRequestCreate extends Wire.RetrievalRequestCreate {}

/** Query of GET /v2/retrieval-requests. */
export const RetrievalRequestListParams = ListParams.extend({
  /** Only the requests of this case. */
  case_id: id.optional(),
  /** Only requests in this status, one of {@link RETRIEVAL_STATUSES}. */
  status: z.enum(RETRIEVAL_STATUSES).optional(),
  /**
   * Only requests whose `public_updated_at` is after this instant, oldest change first (instead of
   * newest created first). An ISO 8601 date-time or a `Date`.
   */
  updated_since: dateQuery("date-time").optional(),
  /** Only the requests whose `external_id` is exactly this (1 to {@link RETRIEVAL_EXTERNAL_ID_MAX} characters). */
  external_id: z.string().min(1).max(RETRIEVAL_EXTERNAL_ID_MAX).optional(),
});
export interface RetrievalRequestListParams extends Wire.RetrievalRequestListParams {}

/** Query of GET /v2/retrieval-requests/{id}/documents. */
export const RetrievalDocumentListParams = ListParams;
export type RetrievalDocumentListParams = ListParams;

/**
 * A non-whitespace character: what makes an action-response `message` not
 * blank after trimming. `\S` is the complement of the characters `trim()`
 * removes (ECMAScript WhiteSpace and LineTerminator), the regex dialect of
 * JSON Schema too, so the OpenAPI document states the rule as this `pattern`.
 */
export const NON_BLANK_PATTERN = /\S/;

/** Rule 2: trimmed, then 1 to {@link ACTION_RESPONSE_MESSAGE_MAX} characters. Also what the reference server judges with. */
export const ActionResponseMessage = personal(
  "text",
  z
    .string()
    // On the raw string: its trimmed form has a character exactly when it has one of these.
    .regex(NON_BLANK_PATTERN, "Must not be empty after trimming whitespace")
    .trim()
    .max(
      ACTION_RESPONSE_MESSAGE_MAX,
      `Must be at most ${ACTION_RESPONSE_MESSAGE_MAX} characters after trimming`,
    ),
);

/** The one optional file of an answer: a case-level upload under the request's case. */
export const ActionResponseAttachment = z.strictObject({
  /** From case-level signing under the retrieval request's case, after the bytes were PUT. */
  upload_id: uploadId,
});
export interface ActionResponseAttachment extends Wire.ActionResponseAttachment {}

/** Request body of the action-response operation. */
export const ActionResponse = z.strictObject({
  /** The answer, 1 to {@link ACTION_RESPONSE_MESSAGE_MAX} characters after trimming. */
  message: ActionResponseMessage,
  /** Who at the firm answered; recorded as the responder. Defaults to the API key's identity. */
  requester_email: Email.optional(),
  /** Required when `pending_action_request.requires_attachment`; a PDF when `requires_pdf`. */
  attachment: ActionResponseAttachment.optional(),
});
export interface ActionResponse extends Wire.ActionResponse {}

/** Response of the action-response operation. */
export const ActionRequestAnswer = z.strictObject({
  /** The answered action request: the former `pending_action_request.id`. */
  id: z.string(),
  /** The retrieval request it belonged to. */
  retrieval_request_id: z.string(),
  /** `responded`. */
  status: openEnum(["responded"]),
  /** ISO 8601 date-time. */
  responded_at: IsoDateTime,
});
export interface ActionRequestAnswer extends Wire.ActionRequestAnswer {}
