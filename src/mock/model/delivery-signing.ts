/**
 * The headers of one delivery attempt, signed with this machine's clock
 * (DESIGN 12.1): the body's id and type, the timestamp, the V1 signature over
 * `<timestamp>.<body>` and the legacy one over the body (docs/spec-decisions.md,
 * "Webhook delivery"), as `signWebhook` writes them.
 *
 * Under Node the HMAC is node:crypto's, synchronous: the headers come at once
 * and an attempt takes no turn of the event loop to be signed. Where it is Web
 * Crypto's, signatures may finish out of order, so attempts are signed in
 * turn (the runtime's signing queue): they reach the inbox in the order they
 * were made.
 */
import { hmacSha256Hex } from "#hmac";
import { WEBHOOK_HEADERS } from "../../webhooks/headers.js";
import type { DeliveryRuntime } from "../runtime/delivery-runtime.js";

type Headers = Record<string, string>;

/** What is signed of an event: its id and type (headers) and its body, byte for byte. */
interface SignedEvent {
  readonly id: string;
  readonly type: string;
  readonly body: string;
}

/**
 * The attempt's headers, at once where the HMAC is synchronous; `record`
 * sees them first (in the order attempts were made).
 */
export function signAttempt(
  runtime: DeliveryRuntime,
  secret: string,
  event: SignedEvent,
  record: (headers: Headers) => void,
): Headers | Promise<Headers> {
  // This machine's time, whatever the service's clock says: the receiver's clock is real.
  const realMs = Date.now();
  const timestamp = Math.floor((runtime.faults?.signedAtMs(realMs) ?? realMs) / 1000);
  const v1 = hmacSha256Hex(secret, [`${timestamp}.`, event.body]);
  const v0 = hmacSha256Hex(secret, [event.body]);
  const headers = (one: string, zero: string): Headers => {
    const signed = {
      "content-type": "application/json",
      [WEBHOOK_HEADERS.eventId]: event.id,
      [WEBHOOK_HEADERS.eventType]: event.type,
      [WEBHOOK_HEADERS.timestamp]: String(timestamp),
      [WEBHOOK_HEADERS.signatureV1]: `v1=${one}`,
      [WEBHOOK_HEADERS.signatureLegacy]: `v0=${zero}`,
    };
    record(signed);
    return signed;
  };
  if (typeof v1 === "string" && typeof v0 === "string") return headers(v1, v0);
  const turn = runtime.signing
    .then(() => Promise.all([v1, v0]))
    .then(([one, zero]) => headers(one, zero));
  runtime.signing = turn.catch(() => undefined);
  return turn;
}
