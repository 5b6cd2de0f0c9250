/**
 * Receiving Medical Record Retrieval API webhooks in an Express 5 app that
 * parses JSON everywhere else.
 *
 * The one rule: the signature covers the exact bytes the service sent, so the
 * webhook route needs the raw body. `express.raw({ type: "application/json" })`
 * on that route leaves them in `req.body` as a Buffer, and the route is
 * registered before `app.use(express.json())`: a JSON parser that runs first
 * reads the stream and leaves a parsed object, and `JSON.stringify` of it is
 * not the bytes that were signed.
 *
 * Run it:
 *
 *   MEDRECORDS_WEBHOOK_SECRET=whsec_... [PORT=3000] [HOST=127.0.0.1] node examples/express.ts
 *
 * and register http://<host>:3000/webhooks/medrecords as the webhook URL. From
 * a project that installed `medrecords` and `express` (Node 22.18 or later; the
 * `.mts` copy: examples/README.md), `cp node_modules/medrecords/examples/express.ts express.mts`
 * and run `node express.mts` the same way.
 */
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import express, { type Express } from "express";
import { verifyWebhook, type WebhookEvent, WebhookVerificationError } from "medrecords/webhooks";

/** The path the service POSTs deliveries to. */
export const WEBHOOK_PATH = "/webhooks/medrecords";

export interface AppOptions {
  /** The webhook's secret: the whole `whsec_...` string returned when the webhook was created. */
  secret: string;
  /**
   * Your code, called once per verified delivery. The service waits 5 s for
   * the 2xx, so keep it short (store or enqueue, do slow work elsewhere). A
   * delivery can arrive twice or out of order: make it idempotent, e.g. fetch
   * the retrieval request and keep it only if `isNewerRetrievalRequest`.
   * Throwing answers 500, and the service retries the event.
   */
  onEvent: (event: WebhookEvent) => unknown;
}

export function createApp({ secret, onEvent }: AppOptions): Express {
  if (!secret) throw new Error("Set MEDRECORDS_WEBHOOK_SECRET to the webhook's whsec_... secret.");
  const app = express();

  // 1. The webhook route, first, with its own raw body parser: req.body is a Buffer.
  app.post(WEBHOOK_PATH, express.raw({ type: "application/json" }), async (req, res) => {
    let event: WebhookEvent;
    try {
      event = await verifyWebhook({ payload: req.body, headers: req.headers, secret });
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      // The message says what to fix (clock skew, a re-serialized body, ...) and
      // never holds the secret. Keep it in your logs, not in the response.
      console.warn(`Refused a webhook delivery (${error.reason}): ${error.message}`);
      res.status(400).json({ error: "invalid_webhook" });
      return;
    }
    try {
      await onEvent(event);
    } catch (error) {
      console.error(`Webhook event ${event.id} (${event.type}) failed:`, error);
      // Any non-2xx makes the service retry this event later.
      res.status(500).json({ error: "webhook_handler_failed" });
      return;
    }
    res.json({ received: true });
  });

  // 2. Every other route parses JSON as usual.
  app.use(express.json());
  app.post("/api/notes", (req, res) => {
    res.status(201).json({ received: req.body });
  });

  return app;
}

/** What this app does with each event; replace the log lines with your own code. */
async function handleEvent(event: WebhookEvent): Promise<void> {
  switch (event.type) {
    case "retrieval_request.status_changed":
      console.log(`${event.id}: retrieval request ${event.data.retrieval_request_id} changed`);
      break;
    case "retrieval_request.documents_available":
      console.log(`${event.id}: documents ${event.data.document_ids.join(", ")} to download`);
      break;
    default:
      // webhook.test, and types this app does not act on: acknowledge and move on.
      break;
  }
}

/** The app listening, configured from environment variables as in the header above. */
export async function main(env: NodeJS.ProcessEnv = process.env) {
  const app = createApp({ secret: env.MEDRECORDS_WEBHOOK_SECRET ?? "", onEvent: handleEvent });
  const server = app.listen(Number(env.PORT ?? 3000), env.HOST ?? "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const { address, port } = server.address() as AddressInfo;
  const url = `http://${address}:${port}${WEBHOOK_PATH}`;
  console.log(`Receiving webhooks at ${url}`);
  return {
    url,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const running = await main();
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => void running.close().then(() => process.exit(0)));
  }
}
