/**
 * `mock.seed`: state put in place directly for tests, as a thin layer over
 * the model (docs/spec-decisions.md, "Reference server conventions"). No API
 * call, no upload, and no event unless `{ emit: true }`; each call returns
 * the resource exactly as the API renders it. Arguments are checked with
 * zod: a bad one, or a combination the service could never be in (status
 * action_required without a reason, a reason on another status, a final
 * status on another stage), throws a TypeError naming the field.
 */
import * as z from "zod";
import type { Case } from "../../schemas/cases.js";
import { type CaseCreate, CaseStatus, makeCaseCreate } from "../../schemas/cases.js";
import {
  ACTION_REQUIRED_REASONS,
  FINAL_RETRIEVAL_STATUSES,
  RETRIEVAL_EXTERNAL_ID_MAX,
  RETRIEVAL_STAGES,
  RETRIEVAL_STATUSES,
  type RetrievalRequest,
} from "../../schemas/retrieval-requests.js";
import { placeActionRequest } from "../model/action-requests.js";
import { type CaseRecord, caseExists, createCase } from "../model/cases.js";
import { facilityExists, MOCK_FACILITIES } from "../model/facilities.js";
import { createRequestor, findRequestorByEmail } from "../model/requestors.js";
import {
  emitActionRequired,
  emitDocumentsAvailable,
  emitStatusChanged,
} from "../model/retrieval-events.js";
import { addDocument } from "../model/retrieval-provider.js";
import {
  type ActionRequiredReasonValue,
  placeRetrievalRequest,
  type RetrievalStageValue,
  type RetrievalStatusValue,
  renderRetrievalRequest,
} from "../model/retrieval-requests.js";
import type { ModelContext } from "../model/state.js";
import { OpenActionRequestInput, parseArgument } from "./retrieval-control.js";

/** At most this many record files per seeded retrieval request. */
export const SEED_RECORDS_MAX = 100;

/** The stage a seeded request gets when none is given, by status. */
export const SEED_DEFAULT_STAGES: Readonly<Record<RetrievalStatusValue, RetrievalStageValue>> = {
  pending: "intake",
  processing: "provider_processing",
  action_required: "provider_processing",
  completed: "completed",
  cancelled: "cancelled",
};

/** The case a seeded retrieval request gets when no `case_id` is given (fictional). */
export const SEED_DEFAULT_CASE = { title: "Seeded v. Placeholder", client_name: "Seeded Client" };

/** The requestor of every seeded retrieval request (fictional; created once per state). */
export const SEED_REQUESTOR = { name: "Seeded Requestor", email: "requestor@seed.medrecords.test" };

/** Options of `mock.seed.retrievalRequest(input, options)`. */
export interface MockSeedOptions {
  /**
   * Emit the events an application would have received on the way to this
   * state (status_changed unless pending, action_required for an open action
   * request, documents_available for records and for ready invoices), logged
   * and delivered like any other.
   * @default false
   */
  emit?: boolean;
}

/** Fields of `mock.seed.case(fields)`: those of case creation, all optional, and any case status. */
export type MockSeedCase = Partial<Omit<CaseCreate, "status">> & {
  /** @default "active" */
  status?: CaseStatus;
};

/** What `mock.seed.retrievalRequest(input)` puts in place. */
export interface MockSeedRetrievalRequest {
  /** An existing case. @default a new case titled "Seeded v. Placeholder" for the fictional "Seeded Client" */
  case_id?: string;
  /** The status to put the request in; the other fields must agree with it. */
  status: RetrievalStatusValue;
  /** Must be `completed` / `cancelled` for those statuses, and neither for the others. @default by status: intake, provider_processing, provider_processing, completed, cancelled */
  stage?: RetrievalStageValue;
  /** Required with status action_required, refused with any other. */
  action_required_reason?: ActionRequiredReasonValue | null;
  /**
   * An open action request with `action_required_reason` as its reason (status
   * action_required only). A missing HIPAA authorization must be answered
   * with a PDF. @default none: `pending_action_request` is null
   */
  pending_action_request?: {
    /** What the provider asks for, as the action request's `message`. */
    message: string;
    /** @default requires_pdf */
    requires_attachment?: boolean;
    /** @default true for missing_hipaa_authorization, else false */
    requires_pdf?: boolean;
  };
  /** Number of record files released (`record-1.pdf`, ...), downloadable. @default 0 */
  records?: number;
  /** Invoices listed, each downloadable when `ready`. @default [] */
  invoices?: readonly {
    /** Whether the invoice can be downloaded yet (a ready invoice is announced by documents_available). */
    ready: boolean;
    /** The invoice's amount, added to `costs.invoice_total`. @default null */
    amount?: number | null;
    /** The records fee it bills, set as `costs.records_fee`. @default null */
    records_fee?: number | null;
  }[];
  /** @default null */
  external_id?: string | null;
  /** A facility of the directory. @default the first of MOCK_FACILITIES */
  facility_id?: string;
}

/** `mock.seed`: state put in place without API calls. */
export interface MockSeed {
  /** Stores a case (defaults: a fictional title and client) and returns it as the API renders it. */
  case(fields?: MockSeedCase): Case;
  /** Stores a retrieval request in the given state and returns it as the API renders it. */
  retrievalRequest(input: MockSeedRetrievalRequest, options?: MockSeedOptions): RetrievalRequest;
}

const CaseFields = makeCaseCreate().partial().extend({ status: CaseStatus.optional() });

const Amount = z.number().nonnegative().finite().nullable().default(null);

const SeedRetrievalInput = z
  .strictObject({
    case_id: z.string().min(1).optional(),
    status: z.enum(RETRIEVAL_STATUSES),
    stage: z.enum(RETRIEVAL_STAGES).optional(),
    action_required_reason: z.enum(ACTION_REQUIRED_REASONS).nullable().optional(),
    pending_action_request: z
      .strictObject({
        message: z.string(),
        requires_attachment: z.boolean().optional(),
        requires_pdf: z.boolean().optional(),
      })
      .optional(),
    records: z.number().int().min(0).max(SEED_RECORDS_MAX).default(0),
    invoices: z
      .array(z.strictObject({ ready: z.boolean(), amount: Amount, records_fee: Amount }))
      .default([]),
    external_id: z.string().max(RETRIEVAL_EXTERNAL_ID_MAX).nullable().default(null),
    facility_id: z.string().min(1).optional(),
  })
  .superRefine((input, issues) => {
    const stage = input.stage ?? SEED_DEFAULT_STAGES[input.status];
    const final = (FINAL_RETRIEVAL_STATUSES as readonly string[]).includes(input.status);
    if (
      final
        ? stage !== input.status
        : (FINAL_RETRIEVAL_STATUSES as readonly string[]).includes(stage)
    ) {
      issues.addIssue({
        code: "custom",
        path: ["stage"],
        message: final
          ? `status ${input.status} goes with stage ${input.status}, not ${stage}`
          : `stage ${stage} goes with status ${stage}, not ${input.status}`,
      });
    }
    const reason = input.action_required_reason ?? null;
    if (input.status === "action_required" && reason === null) {
      issues.addIssue({
        code: "custom",
        path: ["action_required_reason"],
        message: `status action_required needs a reason: one of ${ACTION_REQUIRED_REASONS.join(", ")}`,
      });
    }
    if (input.status !== "action_required" && reason !== null) {
      issues.addIssue({
        code: "custom",
        path: ["action_required_reason"],
        message: "only status action_required has a reason",
      });
    }
    if (input.status !== "action_required" && input.pending_action_request !== undefined) {
      issues.addIssue({
        code: "custom",
        path: ["pending_action_request"],
        message: "only status action_required has a pending action request",
      });
    }
  });

function placeholderPdf(fileName: string): Uint8Array {
  return new TextEncoder().encode(`%PDF-1.4\n% medrecords mock seed: ${fileName}\n%%EOF\n`);
}

export function createSeed(ctx: ModelContext): MockSeed {
  const seedCase = (fields: MockSeedCase = {}): CaseRecord => {
    const input = parseArgument("mock.seed.case", CaseFields, fields);
    return createCase(ctx, { ...SEED_DEFAULT_CASE, ...input } as Parameters<typeof createCase>[1]);
  };

  const seedRequestorId = (): string =>
    (findRequestorByEmail(ctx, SEED_REQUESTOR.email) ?? createRequestor(ctx, SEED_REQUESTOR)).id;

  return {
    case: seedCase,
    retrievalRequest(request, options = {}) {
      const input = parseArgument("mock.seed.retrievalRequest", SeedRetrievalInput, request);
      const { emit = false } = parseArgument(
        "mock.seed.retrievalRequest",
        z.strictObject({ emit: z.boolean().optional() }),
        options,
      );
      const reason = input.action_required_reason ?? null;
      const actionRequest =
        input.pending_action_request === undefined
          ? undefined
          : parseArgument("mock.seed.retrievalRequest", OpenActionRequestInput, {
              ...input.pending_action_request,
              reason,
            });
      const facilityId = input.facility_id ?? (MOCK_FACILITIES[0]?.id as string);
      // Checked before anything is created, so a refused seed leaves nothing behind.
      if (input.case_id !== undefined && !caseExists(ctx, input.case_id)) {
        throw new TypeError(`mock.seed.retrievalRequest: case_id: no case ${input.case_id}.`);
      }
      if (!facilityExists(ctx, facilityId)) {
        throw new TypeError(`mock.seed.retrievalRequest: facility_id: no facility ${facilityId}.`);
      }
      const authForm = placeholderPdf("hipaa-authorization.pdf");
      const stored = placeRetrievalRequest(ctx, {
        case_id: input.case_id ?? seedCase().id,
        facility_id: facilityId,
        requestor_id: seedRequestorId(),
        external_id: input.external_id,
        status: input.status,
        stage: input.stage ?? SEED_DEFAULT_STAGES[input.status],
        action_required_reason: reason,
        auth_form: {
          upload_id: ctx.ids.uuid("upload"),
          file_name: "hipaa-authorization.pdf",
          file_type: "application/pdf",
          file_size: authForm.byteLength,
          bytes: authForm,
        },
      });
      const at = stored.value.public_updated_at;
      const placed = actionRequest && placeActionRequest(ctx, stored, actionRequest);
      const recordIds = Array.from({ length: input.records }, (_, i) => {
        const file_name = `record-${i + 1}.pdf`;
        const file = { file_name, file_type: "application/pdf", bytes: placeholderPdf(file_name) };
        const ready = { ready: true, amount: null, records_fee: null };
        return addDocument(ctx, stored, "record", { ...file, ...ready }, at).value.id;
      });
      const readyInvoiceIds = input.invoices.flatMap((invoice, i) => {
        const file_name = `invoice-${i + 1}.pdf`;
        const file = { file_name, file_type: "application/pdf", bytes: placeholderPdf(file_name) };
        const document = addDocument(ctx, stored, "invoice", { ...file, ...invoice }, at);
        return invoice.ready ? [document.value.id] : [];
      });
      if (emit) {
        if (input.status !== "pending") emitStatusChanged(ctx, stored, null);
        if (placed !== undefined) emitActionRequired(ctx, stored, placed, null);
        if (recordIds.length > 0) emitDocumentsAvailable(ctx, stored, recordIds, false, null);
        if (readyInvoiceIds.length > 0) {
          emitDocumentsAvailable(ctx, stored, readyInvoiceIds, true, null);
        }
      }
      return renderRetrievalRequest(ctx, stored);
    },
  };
}
