/**
 * The mock's autopilot (docs/reference-server.md, "Autopilot"): each
 * retrieval request created through the API lives a provider's life on the
 * mock clock, so an application under development sees every retrieval
 * event without scripting the provider's side.
 *
 * The life, in mock time from creation (each step a few minutes either way):
 * request sent (+5 min), provider processing (+25 min), sometimes an action
 * request (+45 min; withdrawn by the provider at +75 min if the firm has not
 * answered), records received with records released (+95 min), an invoice
 * listed (+115 min), quality review (+130 min), the invoice ready (+150 min),
 * completed (+170 min): under 3 hours. The first request of a service always
 * gets the action request, so one request shows every event type; later
 * ones get it with {@link ACTION_REQUEST_CHANCE}, drawn from a PRNG seeded by
 * `seed`, so a run replays.
 *
 * Every step is the same model call as the control API's, so its events are
 * logged and delivered like any other. A request the developer moved to a
 * final state (or that a reset removed) ends its life quietly; a step the
 * request's current state refuses is skipped.
 *
 * The autopilot never moves a request backwards: each step looks at the
 * request as it is then, and a stage already reached (by `medrecords
 * trigger` or a control call) is not set again, records or an invoice
 * already there are not added again, and an action request is not opened
 * when one was already asked. The life continues from the current stage.
 */

import { randomInt, seededRandom } from "../../internal/seeded-random.js";
import { RETRIEVAL_STAGES } from "../../schemas/retrieval-requests.js";
import type { OpenActionRequestInput } from "../model/action-requests.js";
import { openActionRequest } from "../model/action-requests.js";
import {
  addInvoice,
  finishRetrievalRequest,
  markInvoiceReady,
  releaseRecords,
  setRetrievalStatus,
} from "../model/retrieval-provider.js";
import {
  openActionRequestOf,
  type RetrievalStageValue,
  retrievalRequestIn,
  type StoredRetrievalRequest,
} from "../model/retrieval-requests.js";
import type { MockState, ModelContext } from "../model/state.js";

/** `autopilot` option of a mock service. */
export interface MockAutopilotOptions {
  /**
   * Seed (unsigned 32-bit integer) of the PRNG behind the "sometimes" and the
   * minutes of jitter.
   * @default 1
   */
  seed?: number;
}

/** Moves retrieval requests along on the clock; `adopt` starts one's life. */
export interface Autopilot {
  adopt(retrievalRequestId: string): void;
}

/** How likely a request after the first is to get an action request. */
export const ACTION_REQUEST_CHANCE = 0.5;

const MINUTE_MS = 60_000;
/** Each step's time may move this many minutes either way. */
const JITTER_MINUTES = 3;

/** Minutes after creation of each step; the last one is under 3 hours. */
export const AUTOPILOT_STEP_MINUTES = {
  requestSent: 5,
  providerProcessing: 25,
  actionRequest: 45,
  actionRequestLapses: 75,
  recordsReleased: 95,
  invoiceListed: 115,
  qualityReview: 130,
  invoiceReady: 150,
  completed: 170,
} as const;

const ACTION_REQUESTS: readonly OpenActionRequestInput[] = [
  {
    message: "The authorization on file has expired; please upload a newly signed HIPAA form.",
    reason: "missing_hipaa_authorization",
    requires_attachment: true,
    requires_pdf: true,
  },
  {
    message: "Please confirm the patient's date of birth and any former names.",
    reason: "additional_information_needed",
    requires_attachment: false,
    requires_pdf: false,
  },
  {
    message: "The facility charges a $45.00 retrieval fee. Do you approve?",
    reason: "payment_approval_required",
    requires_attachment: false,
    requires_pdf: false,
  },
];

export function createAutopilot(ctx: ModelContext, options: MockAutopilotOptions = {}): Autopilot {
  const seed = options.seed ?? 1;
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffff_ffff) {
    throw new RangeError("autopilot.seed must be an unsigned 32-bit integer.");
  }
  const random = seededRandom(seed);
  let adopted = 0;

  return {
    adopt(id) {
      adopted += 1;
      const createdMs = ctx.clock.now().getTime();
      const state = ctx.state;
      const withActionRequest = adopted === 1 || random() < ACTION_REQUEST_CHANCE;
      const actionRequest = ACTION_REQUESTS[randomInt(random, 0, ACTION_REQUESTS.length - 1)];
      let previousMs = createdMs;
      // Jittered, but never before the previous step: the life keeps its order.
      const at = (minutes: number) => {
        const jitter = randomInt(random, -JITTER_MINUTES, JITTER_MINUTES);
        previousMs = Math.max(previousMs + 1, createdMs + (minutes + jitter) * MINUTE_MS);
        return previousMs;
      };
      const step = (minutes: number, change: (stored: StoredRetrievalRequest) => void) =>
        ctx.clock.schedule(at(minutes), () => run(ctx, state, id, change));

      let invoiceId: string | undefined;
      const m = AUTOPILOT_STEP_MINUTES;
      /** Moves the request on to `stage`, unless it is there or further already. */
      const advanceTo = (stored: StoredRetrievalRequest, stage: RetrievalStageValue) => {
        if (stageRank(stored.value.stage) >= stageRank(stage)) return;
        setRetrievalStatus(ctx, id, { status: "processing", stage });
      };
      step(m.requestSent, (stored) => advanceTo(stored, "request_sent"));
      step(m.providerProcessing, (stored) => advanceTo(stored, "provider_processing"));
      if (withActionRequest && actionRequest !== undefined) {
        step(m.actionRequest, (stored) => {
          // Asked already (by trigger or a control call), or past the provider's processing.
          if (stored.actionRequests.length > 0) return;
          if (stageRank(stored.value.stage) > stageRank("provider_processing")) return;
          openActionRequest(ctx, id, actionRequest);
        });
        step(m.actionRequestLapses, (stored) => {
          // Answered meanwhile: the answer already moved it back to processing.
          if (openActionRequestOf(stored) === undefined) return;
          const stage =
            stageRank(stored.value.stage) > stageRank("provider_processing")
              ? stored.value.stage
              : "provider_processing";
          setRetrievalStatus(ctx, id, { status: "processing", stage });
        });
      }
      step(m.recordsReleased, (stored) => {
        advanceTo(stored, "records_received");
        // Records released already (trigger documents_available): not released twice.
        if (stored.documents.some((doc) => doc.value.kind === "record")) return;
        releaseRecords(ctx, id, [
          { file_name: "medical-records.pdf", file_type: "application/pdf", bytes: pdf(id) },
        ]);
      });
      step(m.invoiceListed, (stored) => {
        if (stored.documents.some((doc) => doc.value.kind === "invoice")) return;
        invoiceId = addInvoice(ctx, id, {
          file_name: "invoice.pdf",
          file_type: "application/pdf",
          bytes: pdf(`invoice for ${id}`),
          ready: false,
          amount: 45,
          records_fee: 30,
        });
      });
      step(m.qualityReview, (stored) => advanceTo(stored, "quality_review"));
      step(m.invoiceReady, () => {
        if (invoiceId !== undefined) markInvoiceReady(ctx, id, invoiceId);
      });
      step(m.completed, () => finishRetrievalRequest(ctx, id, "completed"));
    },
  };
}

/** The order of a request's life; a step never moves a request to an earlier one. */
const STAGE_ORDER: readonly string[] = RETRIEVAL_STAGES.filter((stage) => stage !== "cancelled");

function stageRank(stage: string): number {
  return STAGE_ORDER.indexOf(stage);
}

/** One step, unless the request is gone (deleted by a reset) or final; a refused step is skipped. */
function run(
  ctx: ModelContext,
  state: MockState,
  id: string,
  change: (stored: StoredRetrievalRequest) => void,
): void {
  if (ctx.state !== state) return;
  const stored = retrievalRequestIn(state, id);
  if (stored === undefined) return;
  if (stored.value.status === "completed" || stored.value.status === "cancelled") return;
  try {
    change(stored);
  } catch {
    // The developer moved the request somewhere this step does not fit (an action request open): skip it.
  }
}

function pdf(text: string): Uint8Array {
  return new TextEncoder().encode(`%PDF-1.4\n% medrecords mock autopilot: ${text}\n%%EOF\n`);
}
