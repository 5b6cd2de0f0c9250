/**
 * A Next.js App Router route handler receiving Medical Record Retrieval API
 * webhooks at POST /api/webhooks/medrecords. Copy it to
 * `app/api/webhooks/medrecords/route.ts`, set MEDRECORDS_WEBHOOK_SECRET, and
 * register https://<your app>/api/webhooks/medrecords as the webhook URL.
 *
 * The one rule: the signature covers the exact bytes the service sent. The
 * App Router hands a route handler the untouched web `Request` and parses
 * nothing, so pass it on as it is: do not call `request.json()` or
 * `request.text()` first. (In the Pages Router, API routes parse JSON: there,
 * `export const config = { api: { bodyParser: false } }` and
 * `export default toNodeListener(handler)`, which reads the raw stream.)
 */
import { createWebhookHandler } from "medrecords/webhooks";
// In your app, typically "@/lib/medrecords-events".
import { onStatusChanged } from "../../../../lib/medrecords-events.js";

// Node.js, the default, stated so that nobody flips it: Next.js 16 deprecates
// the Edge runtime, and a shared dedupe store (Redis, Postgres) needs Node.
// The verification itself uses only Web Crypto and would run on either.
// No `dynamic` setting: POST handlers are never cached or prerendered.
export const runtime = "nodejs";

let handler: ((request: Request) => Promise<Response>) | undefined;

/**
 * 400 on a bad signature, 200 once `onStatusChanged` resolved (and for a
 * repeated delivery, a `webhook.test`, or a type without a function), 500
 * when it throws, so that the service retries.
 */
export async function POST(request: Request): Promise<Response> {
  // Made on the first delivery rather than at import, so that `next build`,
  // which loads route modules, does not need the secret.
  if (!handler) {
    const secret = process.env.MEDRECORDS_WEBHOOK_SECRET;
    // Thrown errors are logged by Next.js and answered with a 500: the
    // service keeps retrying until the variable is set.
    if (!secret) {
      throw new Error("Set MEDRECORDS_WEBHOOK_SECRET to the webhook's whsec_... secret.");
    }
    handler = createWebhookHandler({
      secret,
      on: { "retrieval_request.status_changed": onStatusChanged },
    });
  }
  return handler(request);
}
