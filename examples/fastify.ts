/**
 * Receiving Medical Record Retrieval API webhooks in a Fastify 5 app.
 *
 * The one rule: the signature covers the exact bytes the service sent, and
 * Fastify parses `application/json` bodies before your handler runs. The
 * webhook plugin below replaces that parser with one that keeps the body as
 * a Buffer. Fastify's encapsulation scopes the replacement to the plugin, so
 * every other route keeps parsing JSON. (Register it with `app.register`, not
 * wrapped in `fastify-plugin`, which would remove the scope and turn JSON off
 * for the whole app.)
 *
 * Run it:
 *
 *   MEDRECORDS_WEBHOOK_SECRET=whsec_... [PORT=3000] [HOST=127.0.0.1] [LOG_LEVEL=info] \
 *   node examples/fastify.ts
 *
 * and register http://<host>:3000/webhooks/medrecords as the webhook URL. From
 * a project that installed `medrecords` and `fastify` (Node 22.18 or later; the
 * `.mts` copy: examples/README.md), `cp node_modules/medrecords/examples/fastify.ts fastify.mts`
 * and run `node fastify.mts` the same way.
 */
import { pathToFileURL } from "node:url";
import Fastify, { type FastifyInstance, type FastifyServerOptions } from "fastify";
import { verifyWebhook, type WebhookEvent, WebhookVerificationError } from "medrecords/webhooks";

/** The path the service POSTs deliveries to. */
export const WEBHOOK_PATH = "/webhooks/medrecords";

export interface WebhookPluginOptions {
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

/** The webhook route, as an encapsulated plugin. */
export async function medrecordsWebhooks(
  app: FastifyInstance,
  { secret, onEvent }: WebhookPluginOptions,
): Promise<void> {
  // In this plugin only: JSON bodies stay the raw bytes, as a Buffer.
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (_request, body, done) => {
    done(null, body);
  });

  app.post<{ Body: Buffer }>(WEBHOOK_PATH, async (request, reply) => {
    let event: WebhookEvent;
    try {
      event = await verifyWebhook({ payload: request.body, headers: request.headers, secret });
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      // The message says what to fix (clock skew, a re-serialized body, ...) and
      // never holds the secret. Keep it in your logs, not in the response.
      request.log.warn({ reason: error.reason }, error.message);
      return reply.code(400).send({ error: "invalid_webhook" });
    }
    try {
      await onEvent(event);
    } catch (error) {
      request.log.error({ err: error, eventId: event.id }, "webhook event failed");
      // Any non-2xx makes the service retry this event later. (Fastify's own
      // error reply would put the error's message in the response.)
      return reply.code(500).send({ error: "webhook_handler_failed" });
    }
    return { received: true };
  });
}

export interface AppOptions extends WebhookPluginOptions {
  /** Passed to `Fastify()`, e.g. `{ logger: true }`. */
  fastify?: FastifyServerOptions;
}

export function createApp({ secret, onEvent, fastify }: AppOptions): FastifyInstance {
  if (!secret) throw new Error("Set MEDRECORDS_WEBHOOK_SECRET to the webhook's whsec_... secret.");
  const app = Fastify(fastify);
  app.register(medrecordsWebhooks, { secret, onEvent });

  // Outside the plugin, JSON bodies are parsed as usual.
  app.post("/api/notes", async (request, reply) =>
    reply.code(201).send({ received: request.body }),
  );
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
  const app = createApp({
    secret: env.MEDRECORDS_WEBHOOK_SECRET ?? "",
    onEvent: handleEvent,
    // Refused deliveries are logged at warn, failed events at error.
    fastify: { logger: { level: env.LOG_LEVEL ?? "info" } },
  });
  const address = await app.listen({
    port: Number(env.PORT ?? 3000),
    host: env.HOST ?? "127.0.0.1",
  });
  const url = `${address}${WEBHOOK_PATH}`;
  console.log(`Receiving webhooks at ${url}`);
  return { url, close: () => app.close() };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const running = await main();
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => void running.close().then(() => process.exit(0)));
  }
}
