import * as z from "zod";
import type * as Wire from "../types/wire.js";
import { makeCaseCreate } from "./cases.js";
import { dateQuery, IsoDate, IsoDateTime, ListEnvelope, ListParams, openEnum } from "./common.js";
import { ActionRequiredReason, RetrievalStage, RetrievalStatus } from "./events.js";
import { Facility, FacilityCreate } from "./facilities.js";
import { RequestorCreate } from "./requestors.js";

// ---------------------------------------------------------------- limits

/** Action-response message: 1 to 10000 characters after trimming (spec, rule 2). */
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
  id: z.string().meta({ description: "Opaque identifier; a reopened request gets a new one." }),
  message: z
    .string()
    .meta({ description: "What the provider asks of the firm, in the provider's words." }),
  reason: ActionRequiredReason.meta({ description: "Why the request needs the firm." }),
  requires_attachment: z
    .boolean()
    .meta({ description: "The answer must carry an attachment (spec, rule 5)." }),
  requires_pdf: z.boolean().meta({
    description: "The attachment must be a PDF, e.g. a signed HIPAA authorization (spec, rule 5).",
  }),
  opened_at: IsoDateTime.meta({
    description: "When it was opened (or reopened): ISO 8601 date-time.",
  }),
});
export interface PendingActionRequest extends Wire.PendingActionRequest {}

/** Money amounts in `currency` (decimal numbers), null until known. */
export const RetrievalCosts = z.strictObject({
  records_fee: z
    .number()
    .nonnegative()
    .nullable()
    .meta({ description: "The provider's fee for the records." }),
  invoice_total: z
    .number()
    .nonnegative()
    .nullable()
    .meta({ description: "Sum of the provider invoices." }),
  currency: z.string().meta({ description: "ISO 4217 code, e.g. `USD`." }),
});
export interface RetrievalCosts extends Wire.RetrievalCosts {}

/** A retrieved record or a provider invoice. An invoice may be listed before it is `ready`. */
export const RetrievalDocument = z.strictObject({
  id: z.string().meta({
    description: "Opaque identifier, as in `document_ids` of a documents_available event.",
  }),
  kind: openEnum(RETRIEVAL_DOCUMENT_KINDS).meta({
    description: "One of `RETRIEVAL_DOCUMENT_KINDS`, or a value the service added later.",
  }),
  file_name: z.string().meta({ description: "Name of the file." }),
  file_type: z.string().meta({ description: "MIME type." }),
  file_size: z.number().int().nonnegative().meta({ description: "Bytes." }),
  ready: z.boolean().meta({
    description:
      "False while the file cannot be downloaded yet (an invoice before its documents_available).",
  }),
  created_at: IsoDateTime.meta({ description: "ISO 8601 date-time." }),
});
export interface RetrievalDocument extends Wire.RetrievalDocument {}

/** A request to obtain records from a provider (docs/spec-decisions.md, "Retrieval requests and action responses"). */
export const RetrievalRequest = z.strictObject({
  id: z.string().meta({ description: "Opaque identifier." }),
  case_id: z
    .string()
    .nullable()
    .meta({ description: "The case it belongs to; null when it has none." }),
  external_id: z
    .string()
    .nullable()
    .meta({ description: "Your own identifier, when you gave one." }),
  status: RetrievalStatus.meta({
    description: "Where the request stands, e.g. `action_required`.",
  }),
  stage: RetrievalStage.meta({
    description: "The finer step on the request's timeline, e.g. `request_sent`.",
  }),
  action_required_reason: ActionRequiredReason.nullable().meta({
    description: "Set while the request waits on the firm; null otherwise.",
  }),
  pending_action_request: PendingActionRequest.nullable().meta({
    description:
      "The open client action request, answered with `respondToAction`; null when none is open.",
  }),
  public_updated_at: IsoDateTime.meta({
    description:
      "Version of the public state: compare it with a cached copy (spec, Delivery rule 7).",
  }),
  costs: RetrievalCosts.meta({ description: "Fees and invoice total, null until known." }),
  documents: z
    .array(RetrievalDocument)
    .meta({ description: "Released records and provider invoices, oldest first." }),
  facility: Facility.meta({ description: "The provider the records are requested from." }),
  created_at: IsoDateTime.meta({ description: "ISO 8601 date-time." }),
  updated_at: IsoDateTime.meta({
    description:
      "ISO 8601 date-time of the last change; to order versions, compare `public_updated_at`.",
  }),
});
export interface RetrievalRequest extends Wire.RetrievalRequest {}

/** Response of GET /v2/retrieval-requests: the list envelope plus the poll's next `since`. */
export const RetrievalRequestList = ListEnvelope(RetrievalRequest).extend({
  next_public_updated_since: IsoDateTime.nullable().meta({
    description:
      "The greatest `public_updated_at` on this page, or the given `updated_since` when the page is empty (null when neither exists).",
  }),
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
      case_id: id.optional().meta({ description: "An existing case; or give `case`." }),
      case: makeCaseCreate(now)
        .optional()
        .meta({ description: "A new case, created with the request (needs cases:write)." }),
      facility_id: id.optional().meta({
        description: "A facility of the directory (`mr.facilities.search()`); or give `facility`.",
      }),
      facility: FacilityCreate.optional().meta({
        description: "A provider that is not in the directory.",
      }),
      requestor_id: id
        .optional()
        .meta({ description: "An existing retrieval profile; or give `requestor`." }),
      requestor: RequestorCreate.optional().meta({
        description: "A new retrieval profile, created with the request (needs requestors:write).",
      }),
      auth_form: uploadId.meta({ description: "upload_id of the signed authorization form." }),
      attachments: z.array(uploadId).max(RETRIEVAL_ATTACHMENTS_MAX).optional().meta({
        description: "upload_ids of further files for the provider, at most 20, none repeated.",
      }),
      record_types: z
        .array(z.string().min(1).max(RECORD_TYPE_MAX))
        .max(RECORD_TYPES_MAX)
        .optional()
        .meta({
          description: "What to retrieve, e.g. `medical_records`, `billing_records`, `imaging`.",
        }),
      date_from: IsoDate.optional().meta({
        description: "Start of the period of care to retrieve, `YYYY-MM-DD`.",
      }),
      date_to: IsoDate.optional().meta({
        description: "End of the period, `YYYY-MM-DD`, not before `date_from`.",
      }),
      notes: z
        .string()
        .max(RETRIEVAL_NOTES_MAX)
        .optional()
        .meta({ description: "Instructions for the provider, up to 5000 characters." }),
      external_id: z
        .string()
        .max(RETRIEVAL_EXTERNAL_ID_MAX)
        .optional()
        .meta({ description: "Your own identifier, up to 255 characters." }),
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
  case_id: id.optional().meta({ description: "Only the requests of this case." }),
  status: z
    .enum(RETRIEVAL_STATUSES)
    .optional()
    .meta({ description: "Only requests in this status, one of `RETRIEVAL_STATUSES`." }),
  updated_since: dateQuery("date-time").optional().meta({
    description:
      "Only requests whose `public_updated_at` is after this instant, oldest change first (instead of newest created first). An ISO 8601 date-time or a `Date`.",
  }),
  external_id: z.string().min(1).max(RETRIEVAL_EXTERNAL_ID_MAX).optional().meta({
    description: "Only the requests whose `external_id` is exactly this (1 to 255 characters).",
  }),
});
export interface RetrievalRequestListParams extends Wire.RetrievalRequestListParams {}

/** Query of GET /v2/retrieval-requests/{id}/documents. */
export const RetrievalDocumentListParams = ListParams;
export type RetrievalDocumentListParams = ListParams;

/** Rule 2: trimmed, then 1 to 10000 characters. Also what the reference server judges with. */
export const ActionResponseMessage = z
  .string()
  .trim()
  .min(1, "Must not be empty after trimming whitespace")
  .max(
    ACTION_RESPONSE_MESSAGE_MAX,
    `Must be at most ${ACTION_RESPONSE_MESSAGE_MAX} characters after trimming`,
  );

/** The one optional file of an answer: a case-level upload under the request's case. */
export const ActionResponseAttachment = z.strictObject({
  upload_id: uploadId.meta({
    description:
      "From case-level signing under the retrieval request's case, after the bytes were PUT.",
  }),
});
export interface ActionResponseAttachment extends Wire.ActionResponseAttachment {}

/** Request body of the action-response operation. */
export const ActionResponse = z.strictObject({
  // Its description is the OpenAPI document's statement of the trimming rule (src/openapi/document.ts).
  message: ActionResponseMessage,
  requester_email: z.email().optional().meta({
    description:
      "Who at the firm answered; recorded as the responder. Defaults to the API key's identity.",
  }),
  attachment: ActionResponseAttachment.optional().meta({
    description:
      "Required when `pending_action_request.requires_attachment`; a PDF when `requires_pdf`.",
  }),
});
export interface ActionResponse extends Wire.ActionResponse {}

/** Response of the action-response operation. */
export const ActionRequestAnswer = z.strictObject({
  id: z
    .string()
    .meta({ description: "The answered action request: the former `pending_action_request.id`." }),
  retrieval_request_id: z.string().meta({ description: "The retrieval request it belonged to." }),
  status: openEnum(["responded"]).meta({ description: "`responded`." }),
  responded_at: IsoDateTime.meta({ description: "ISO 8601 date-time." }),
});
export interface ActionRequestAnswer extends Wire.ActionRequestAnswer {}
