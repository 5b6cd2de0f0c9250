/**
 * Receiving Medical Record Retrieval API webhooks in a Hono 4 app.
 *
 * The one rule: the signature covers the exact bytes the service sent, so
 * pass the untouched web `Request` (`c.req.raw`) to the handler, and let
 * nothing read the webhook route's body before it: no `c.req.json()`, no
 * `validator("json", ...)` and no body-reading middleware on that path. The
 * handler reads the bytes itself (a body already read answers 500, with a
 * log line saying why).
 *
 * Run it: `export default createApp()` is the whole server on Bun and Deno;
 * on Node, `serve(createApp())` with `@hono/node-server`. (On Cloudflare
 * Workers the secret is a binding, not `process.env`: see
 * cloudflare-worker.ts.) Set MEDRECORDS_WEBHOOK_SECRET and register
 * https://<host>/webhooks/medrecords as the webhook URL. From the installed
 * package: copy node_modules/medrecords/examples/hono.ts into your app's
 * sources (`npm install hono`, and `@hono/node-server` on Node).
 */
import { Hono } from "hono";
import { createWebhookHandler, type DedupeStore, type EventOfType } from "medrecords/webhooks";

/** The path the service POSTs deliveries to. */
export const WEBHOOK_PATH = "/webhooks/medrecords";

export type StatusChangedEvent = EventOfType<"retrieval_request.status_changed">;

export interface AppOptions {
  /**
   * The webhook's secret: the whole `whsec_...` string returned when the webhook was created.
   * @default process.env.MEDRECORDS_WEBHOOK_SECRET
   */
  secret?: string;
  /**
   * Your code for a status change. The service waits 5 s for the 2xx, so keep
   * it short (store or enqueue). Throwing answers 500, and the service
   * retries the event. Events can also arrive out of order: compare the
   * retrieval request's `public_updated_at` (`isNewerRetrievalRequest`).
   * @default logs the event
   */
  onStatusChanged?: (event: StatusChangedEvent) => unknown;
  /** Processed event ids (repeat deliveries are acknowledged, not processed). @default in memory */
  dedupe?: DedupeStore;
}

export function createApp(options: AppOptions = {}): Hono {
  const handler = createWebhookHandler({
    // Throws at start-up when the variable is missing, not at the first delivery.
    secret: options.secret ?? process.env.MEDRECORDS_WEBHOOK_SECRET ?? "",
    dedupe: options.dedupe,
    on: {
      "retrieval_request.status_changed": options.onStatusChanged ?? logStatusChanged,
    },
  });

  const app = new Hono();
  // 400 on a bad signature, 200 once onStatusChanged resolved, 500 if it throws.
  app.post(WEBHOOK_PATH, (c) => handler(c.req.raw));

  // Other routes read their bodies as usual.
  app.post("/api/notes", async (c) => c.json({ received: await c.req.json() }, 201));
  return app;
}

function logStatusChanged(event: StatusChangedEvent): void {
  console.log(`${event.id}: retrieval request ${event.data.retrieval_request_id} changed`);
}
