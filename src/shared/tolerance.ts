/**
 * Largest distance between a delivery's timestamp and the receiver's clock
 * (see docs/spec-decisions.md, "Webhook delivery"), in seconds.
 * `verifyWebhook` defaults to it, and the catch-up poller allows a loaded
 * checkpoint the same distance ahead of its clock. Kept apart from zod so
 * that `medrecords/webhooks` stays small.
 */
export const WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS = 300;
