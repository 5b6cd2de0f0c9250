/**
 * A Cloudflare Worker receiving Medical Record Retrieval API webhooks at
 * POST /webhooks/medrecords (any other path answers 404).
 *
 * Set the secret with `npx wrangler secret put MEDRECORDS_WEBHOOK_SECRET`
 * (the whole `whsec_...` string), deploy, and register
 * https://<worker>.<account>.workers.dev/webhooks/medrecords as the webhook
 * URL. `medrecords/webhooks` runs on Web Crypto alone: no `nodejs_compat`
 * flag is needed. From the installed package: copy
 * node_modules/medrecords/examples/cloudflare-worker.ts to your Worker's entry
 * (`src/index.ts` of `npm create cloudflare`), then `npx wrangler dev`.
 *
 * The one rule: the signature covers the exact bytes the service sent. A
 * Worker receives the untouched `Request`; hand it to the webhook handler
 * before anything reads its body (no `request.json()` or `request.text()`
 * first).
 */
import {
  createWebhookHandler,
  type EventOfType,
  memoryDedupeStore,
  type WebhookEventHandlers,
} from "medrecords/webhooks";

/** The Worker's bindings. */
export interface Env {
  /** A secret binding (`wrangler secret put`), not a plain `vars` entry. */
  MEDRECORDS_WEBHOOK_SECRET: string;
}

// The parts of the Workers runtime types used here. With
// @cloudflare/workers-types (or `wrangler types`) installed, delete these two
// declarations and use the global ones.
/** The third argument of `fetch`. */
export interface ExecutionContext {
  /** Keeps the Worker running after the response, for the given promise. */
  waitUntil(promise: Promise<unknown>): void;
}
/** A module Worker's default export. */
export interface ExportedHandler<E> {
  fetch(request: Request, env: E, ctx: ExecutionContext): Response | Promise<Response>;
}

const WEBHOOK_PATH = "/webhooks/medrecords";

// Event ids already processed, so that a repeated delivery is acknowledged
// without running your code again. This store lives in one isolate, and
// Cloudflare runs several and recycles them: for once-only processing across
// all of them, implement `DedupeStore` on a Durable Object or D1 (an atomic
// take-if-absent-or-expired lease, then a done mark; KV is not atomic).
const dedupe = memoryDedupeStore();

type StatusChangedEvent = EventOfType<"retrieval_request.status_changed">;
type DocumentsAvailableEvent = EventOfType<"retrieval_request.documents_available">;

/**
 * Your code for a status change. It runs before the response: the service
 * waits 5 s for the 2xx, so keep it quick (store the new state). Throwing
 * answers 500, and the service retries the event. Events can arrive out of
 * order: compare `public_updated_at` (`isNewerRetrievalRequest`).
 */
async function onStatusChanged(event: StatusChangedEvent, _env: Env): Promise<void> {
  console.log(`${event.type} ${event.id}: retrieval request ${event.data.retrieval_request_id}`);
}

/**
 * Your code for released records: downloading them can take longer than the
 * service waits, so it runs after the response, under `ctx.waitUntil` (at
 * most 30 s more). The service counts the delivery as done at the 200, so a
 * failure here is not retried: catch up from the event log
 * (`mr.events.catchUp` on a Cron Trigger), or send the event to a Queue,
 * whose consumer retries, instead.
 */
async function syncDocuments(event: DocumentsAvailableEvent, _env: Env): Promise<void> {
  console.log(`${event.type} ${event.id}: ${event.data.document_ids.length} document(s) to fetch`);
}

export default {
  async fetch(request, env, ctx) {
    if (new URL(request.url).pathname !== WEBHOOK_PATH) {
      return Response.json({ error: "not_found" }, { status: 404 });
    }
    if (!env.MEDRECORDS_WEBHOOK_SECRET) {
      // 500, not 4xx: the service keeps retrying until the secret is set.
      console.error("Set the MEDRECORDS_WEBHOOK_SECRET secret: wrangler secret put ...");
      return Response.json({ error: "webhook_handler_failed" }, { status: 500 });
    }
    // Bindings arrive with each request, so the handler is made per request
    // (cheap: the HMAC key is cached, and the dedupe store is shared above).
    const on: WebhookEventHandlers = {
      "retrieval_request.status_changed": (event) => onStatusChanged(event, env),
      "retrieval_request.documents_available": (event) => {
        ctx.waitUntil(
          syncDocuments(event, env).catch((error: unknown) => {
            console.error(`Syncing documents of ${event.id} failed:`, error);
          }),
        );
      },
    };
    // 400 on a bad signature, 200 once `on` resolved, 500 if it throws.
    return createWebhookHandler({ secret: env.MEDRECORDS_WEBHOOK_SECRET, dedupe, on })(request);
  },
} satisfies ExportedHandler<Env>;
