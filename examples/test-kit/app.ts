/**
 * The small application the test-kit examples test: an Express receiver of
 * the service's webhooks that turns each `action_required` event into a task
 * for the firm, and a client call that lists the requests waiting on the firm.
 * Its one log line per task says which case, by case number: never the
 * client's name. `unsafeLogClientNames` is the deliberate bug the negative
 * tests catch with `medrecords/testing`'s canaries.
 */
import express, { type Express } from "express";
import type { MedRecords } from "medrecords";
import { verifyWebhook, type WebhookEvent, WebhookVerificationError } from "medrecords/webhooks";

/** The path the service POSTs deliveries to. */
export const WEBHOOK_PATH = "/webhooks/medrecords";

/** Something the firm must do, from an action_required event. */
export interface Task {
  retrieval_request_id: string;
  case_number: string;
  reason: string | null;
  message: string | null;
}

export interface AppOptions {
  /** The SDK client, with the firm's API key. */
  client: MedRecords;
  /** The webhook's `whsec_...` secret. */
  secret: string;
  /** Where log lines go. @default console.log */
  log?: (line: string) => void;
  /** The deliberate leak of the negative tests: logs the client's name (read at each event). @default false */
  unsafeLogClientNames?: boolean;
}

export function createApp(options: AppOptions): { app: Express; tasks: Task[] } {
  const { client, secret, log = console.log } = options;
  const tasks: Task[] = [];
  const app = express();

  app.post(WEBHOOK_PATH, express.raw({ type: "application/json" }), async (req, res) => {
    let event: WebhookEvent;
    try {
      event = await verifyWebhook({ payload: req.body, headers: req.headers, secret });
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      res.status(400).json({ error: "invalid_webhook" });
      return;
    }
    if (event.type === "retrieval_request.action_required") {
      const request = await client.retrievalRequests.retrieve(event.data.retrieval_request_id);
      const theCase = await client.cases.retrieve(request.case_id as string);
      tasks.push({
        retrieval_request_id: request.id,
        case_number: theCase.case_number,
        reason: request.action_required_reason ?? null,
        message: request.pending_action_request?.message ?? null,
      });
      log(
        options.unsafeLogClientNames
          ? `Action needed for ${theCase.client_name}`
          : `Action needed on case ${theCase.case_number}`,
      );
    }
    res.json({ received: true });
  });

  return { app, tasks };
}

/** The client call: ids of the retrieval requests waiting on the firm, newest first. */
export async function listWaitingOnFirm(client: MedRecords): Promise<string[]> {
  const ids: string[] = [];
  for await (const request of client.retrievalRequests.list({ status: "action_required" })) {
    ids.push(request.id);
  }
  return ids;
}
