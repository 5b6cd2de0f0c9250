/**
 * What one delivery attempt is, for the modules that send it
 * (delivery-send.ts), record it (delivery-history.ts) and count it against
 * its webhook (webhook-health.ts): the webhook with its secret, the event as
 * the bytes every attempt sends, and the attempt's outcome.
 */
import type { Webhook } from "../../schemas/webhooks.js";
import type { EventLogEntry } from "./event-log.js";
import type { Stored } from "./state.js";

/**
 * A webhook as the engine sees it: its record and its signing secret. The
 * webhooks themselves are webhooks.ts's (StoredWebhook extends this).
 */
export interface DeliveryWebhook extends Stored<Webhook> {
  /** `whsec_` + 32 base62: signs every attempt. */
  readonly secret: string;
}

/** An event as a webhook body, serialized once so that every attempt sends and signs the same bytes. */
export interface OutgoingEvent {
  readonly id: string;
  readonly type: string;
  readonly body: string;
}

export function toOutgoing(
  event: Pick<EventLogEntry, "id" | "type" | "created_at" | "data">,
): OutgoingEvent {
  const { id, type, created_at, data } = event;
  return { id, type, body: JSON.stringify({ id, type, created_at, data }) };
}

export interface AttemptOutcome {
  /** The attempt's instant on the service's clock: its record's `created_at`. */
  sentAtMs: number;
  /** Place in list order, taken when the attempt was made (not when its answer came). */
  seq: number;
  /** The delivery's id, also taken when the attempt was made. */
  id: string;
  success: boolean;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  /** The short cause `flush()` reports for a failure (`HTTP 500`, `timeout`, ...); null on success. */
  cause: string | null;
  /** The receiver's own word on a refusal (its JSON `error`, or short text); null otherwise. */
  receiverError?: string | null;
}
