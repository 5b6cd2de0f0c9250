/**
 * `mock.retrievalRequests`: the provider's side of a retrieval request, for
 * tests (docs/spec-decisions.md, "Reference server conventions"). Each call is one public change: it moves the
 * request's `public_updated_at` and emits its events (with `request_id`
 * null), which are logged and delivered like any other. Bad arguments throw
 * a TypeError; a move the request cannot make (an unknown id, a second open
 * action request, a change to a completed or cancelled request) throws an Error.
 */
import * as z from "zod";
import {
  ACTION_REQUIRED_REASONS,
  RETRIEVAL_STAGES,
  RETRIEVAL_STATUSES,
  type RetrievalDocument,
  type RetrievalRequest,
} from "../../schemas/retrieval-requests.js";
import { listActionRequests, openActionRequest } from "../model/action-requests.js";
import {
  addInvoice,
  finishRetrievalRequest,
  markInvoiceReady,
  releaseRecords,
  setRetrievalStatus,
} from "../model/retrieval-provider.js";
import type {
  ActionRequiredReasonValue,
  MockActionRequest,
  OpenedActionRequest,
  RetrievalStageValue,
  RetrievalStatusValue,
} from "../model/retrieval-requests.js";
import type { ModelContext } from "../model/state.js";

export type { MockActionRequest, OpenedActionRequest as MockOpenedActionRequest };

/** File bytes as a test has them at hand. */
export type MockFileContent = string | Uint8Array | ArrayBuffer;

/** A record file the provider releases. */
export interface MockRecordFile {
  /** Name of the file, e.g. `records.pdf`. */
  file_name: string;
  /** MIME type, e.g. `application/pdf`. */
  file_type: string;
  /** The bytes; a string is taken as UTF-8. */
  content: MockFileContent;
}

/** A provider invoice for `mock.retrievalRequests.addInvoice()`. */
export interface MockInvoice {
  /** Name of the file, e.g. `invoice-001.pdf`. */
  file_name: string;
  /** Downloadable at once (documents_available with invoice_ids); else listed with `ready: false`. @default false */
  ready?: boolean;
  /** @default "application/pdf" */
  file_type?: string;
  /** @default a small PDF naming the file */
  content?: MockFileContent;
  /** Invoice amount in USD, added to `costs.invoice_total`. @default null (unknown) */
  amount?: number | null;
  /** The part that is the records fee, added to `costs.records_fee`. @default null (unknown) */
  records_fee?: number | null;
}

/**
 * `mock.retrievalRequests`: the provider's side of retrieval requests. Each
 * call is one public change with its events, as if the provider had acted.
 */
export interface MockRetrievalRequests {
  /**
   * A new visible status and stage: emits status_changed, even when both are
   * unchanged (a new update within the stage). Moving away from
   * action_required withdraws an open action request. Use
   * `openActionRequest` to ask the firm for something.
   */
  setStatus(
    id: string,
    update: {
      status: RetrievalStatusValue;
      stage: RetrievalStageValue;
      action_required_reason?: ActionRequiredReasonValue | null;
    },
  ): RetrievalRequest;
  /**
   * Opens a client action request, or reopens the last closed one with the
   * same reason: status becomes action_required; emits status_changed then
   * action_required. `requires_pdf` implies `requires_attachment`, and a
   * missing HIPAA authorization requires a PDF (spec, rule 5).
   */
  openActionRequest(
    id: string,
    request: {
      message: string;
      reason: ActionRequiredReasonValue;
      /** @default requires_pdf */
      requires_attachment?: boolean;
      /** @default true for missing_hipaa_authorization, else false */
      requires_pdf?: boolean;
    },
  ): OpenedActionRequest;
  /** Releases record files, downloadable at once; one documents_available. Returns their ids. */
  releaseRecords(id: string, files: readonly MockRecordFile[]): string[];
  /** Lists a provider invoice; returns its document id. */
  addInvoice(id: string, invoice: MockInvoice): string;
  /** Makes a listed invoice downloadable: documents_available with invoice_ids. No-op when ready. */
  markInvoiceReady(id: string, invoiceId: string): RetrievalDocument;
  /** Final status and stage `completed`; withdraws an open action request; status_changed. */
  complete(id: string): RetrievalRequest;
  /** Final status and stage `cancelled`; withdraws an open action request; status_changed. */
  cancel(id: string): RetrievalRequest;
  /** Every action request of the retrieval request, oldest first, with the answers it got. */
  actionRequests(id: string): MockActionRequest[];
}

const Id = z.string().min(1);

const SetStatusInput = z.strictObject({
  status: z.enum(RETRIEVAL_STATUSES),
  stage: z.enum(RETRIEVAL_STAGES),
  action_required_reason: z.enum(ACTION_REQUIRED_REASONS).nullable().optional(),
});

export const OpenActionRequestInput = z
  .strictObject({
    message: z.string().trim().min(1),
    reason: z.enum(ACTION_REQUIRED_REASONS),
    requires_attachment: z.boolean().optional(),
    requires_pdf: z.boolean().optional(),
  })
  .transform((input) => {
    const requires_pdf = input.requires_pdf ?? input.reason === "missing_hipaa_authorization";
    const requires_attachment = input.requires_attachment ?? requires_pdf;
    return { message: input.message, reason: input.reason, requires_attachment, requires_pdf };
  })
  .refine((input) => input.reason !== "missing_hipaa_authorization" || input.requires_pdf, {
    path: ["requires_pdf"],
    message: "A missing HIPAA authorization must be answered with a signed PDF",
  })
  .refine((input) => !input.requires_pdf || input.requires_attachment, {
    path: ["requires_attachment"],
    message: "requires_pdf needs an attachment",
  });

const Content = z.union([
  z.string(),
  z.instanceof(Uint8Array),
  z.instanceof(ArrayBuffer),
]) as z.ZodType<MockFileContent>;

const RecordFiles = z
  .array(
    z.strictObject({
      file_name: z.string().min(1),
      file_type: z.string().min(1),
      content: Content,
    }),
  )
  .min(1);

const Amount = z.number().nonnegative().finite().nullable().default(null);

const InvoiceInput = z.strictObject({
  file_name: z.string().min(1),
  ready: z.boolean().default(false),
  file_type: z.string().min(1).default("application/pdf"),
  content: Content.optional(),
  amount: Amount,
  records_fee: Amount,
});

function parse<S extends z.ZodType>(method: string, schema: S, value: unknown): z.output<S> {
  return parseArgument(`mock.retrievalRequests.${method}`, schema, value);
}

/** Validates an argument of a control method; a TypeError names `where` and each bad field. */
export function parseArgument<S extends z.ZodType>(
  where: string,
  schema: S,
  value: unknown,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const reasons = result.error.issues
    .map((i) => `${i.path.length > 0 ? i.path.join(".") : "argument"}: ${i.message}`)
    .join("; ");
  throw new TypeError(`${where}: ${reasons}.`);
}

function toBytes(content: MockFileContent): Uint8Array {
  if (typeof content === "string") return new TextEncoder().encode(content);
  return content instanceof ArrayBuffer ? new Uint8Array(content) : content.slice();
}

function placeholderPdf(fileName: string): Uint8Array {
  return new TextEncoder().encode(`%PDF-1.4\n% medrecords mock invoice: ${fileName}\n%%EOF\n`);
}

export function createRetrievalControl(ctx: ModelContext): MockRetrievalRequests {
  return {
    setStatus(id, update) {
      const input = parse("setStatus", SetStatusInput, update);
      return setRetrievalStatus(ctx, parse("setStatus", Id, id), input);
    },
    openActionRequest(id, request) {
      const input = parse("openActionRequest", OpenActionRequestInput, request);
      return openActionRequest(ctx, parse("openActionRequest", Id, id), input);
    },
    releaseRecords(id, files) {
      const parsed = parse("releaseRecords", RecordFiles, files);
      return releaseRecords(
        ctx,
        parse("releaseRecords", Id, id),
        parsed.map(({ content, ...file }) => ({ ...file, bytes: toBytes(content) })),
      );
    },
    addInvoice(id, invoice) {
      const { content, ...input } = parse("addInvoice", InvoiceInput, invoice);
      const bytes = content === undefined ? placeholderPdf(input.file_name) : toBytes(content);
      return addInvoice(ctx, parse("addInvoice", Id, id), { ...input, bytes });
    },
    markInvoiceReady(id, invoiceId) {
      return markInvoiceReady(
        ctx,
        parse("markInvoiceReady", Id, id),
        parse("markInvoiceReady", Id, invoiceId),
      );
    },
    complete: (id) => finishRetrievalRequest(ctx, parse("complete", Id, id), "completed"),
    cancel: (id) => finishRetrievalRequest(ctx, parse("cancel", Id, id), "cancelled"),
    actionRequests: (id) => listActionRequests(ctx, parse("actionRequests", Id, id)),
  };
}
