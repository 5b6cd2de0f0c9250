import { hmacSha256Hex } from "#hmac";
import { WEBHOOK_HEADERS } from "./headers.js";
import { bodyText, type RawWebhookPayload, rawBytes } from "./raw-body.js";

/** Options of `signWebhook(options)`. */
export interface SignWebhookOptions {
  /**
   * The body exactly as it will be sent; a string is sent as its UTF-8 bytes.
   * @example JSON.stringify(event)
   */
  payload: RawWebhookPayload;
  /**
   * The webhook secret, the whole `whsec_...` string.
   * @example "whsec_3f9c..."
   */
  secret: string;
  /**
   * Time of the attempt, as Unix seconds or a `Date`. Each attempt of an
   * event is signed afresh with its own timestamp (spec, Delivery rule 5).
   * @default now
   * @example 1767225600
   */
  timestamp?: number | Date;
}

/**
 * Signs a delivery as the service does and returns its headers: the V1
 * signature over `<timestamp>.<raw body>`, the legacy `v0=` signature over the
 * raw body alone (docs/spec-decisions.md, "Webhook delivery"), and, when the body is an event, its id
 * and type. For tests of a receiver and for the reference server.
 *
 * @example
 * const body = JSON.stringify(event);
 * const headers = await signWebhook({ payload: body, secret });
 * await fetch(url, { method: "POST", body, headers: { ...headers, "content-type": "application/json" } });
 */
export async function signWebhook(options: SignWebhookOptions): Promise<Record<string, string>> {
  const { secret } = options;
  if (typeof secret !== "string" || secret === "") {
    throw new TypeError("signWebhook: `secret` must be a non-empty string");
  }
  const timestamp = unixSeconds(options.timestamp);
  const body = typeof options.payload === "string" ? options.payload : rawBytes(options.payload);
  const [v1, v0] = await Promise.all([
    hmacSha256Hex(secret, [`${timestamp}.`, body]),
    hmacSha256Hex(secret, [body]),
  ]);
  const headers: Record<string, string> = {};
  const event = eventHeaders(bodyText(body));
  if (event) {
    headers[WEBHOOK_HEADERS.eventId] = event.id;
    headers[WEBHOOK_HEADERS.eventType] = event.type;
  }
  headers[WEBHOOK_HEADERS.timestamp] = String(timestamp);
  headers[WEBHOOK_HEADERS.signatureV1] = `v1=${v1}`;
  headers[WEBHOOK_HEADERS.signatureLegacy] = `v0=${v0}`;
  return headers;
}

function unixSeconds(timestamp: number | Date | undefined): number {
  if (timestamp === undefined) return Math.floor(Date.now() / 1000);
  if (timestamp instanceof Date) return Math.floor(timestamp.getTime() / 1000);
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new TypeError("signWebhook: `timestamp` must be whole Unix seconds or a Date");
  }
  // Epoch milliseconds are the usual slip; 1e11 seconds is the year 5138.
  if (timestamp > 1e11) {
    throw new TypeError(
      "signWebhook: `timestamp` looks like milliseconds; pass Unix seconds or a Date",
    );
  }
  return timestamp;
}

function eventHeaders(text: string | undefined): { id: string; type: string } | undefined {
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const { id, type } = parsed as { id?: unknown; type?: unknown };
  return typeof id === "string" && typeof type === "string" ? { id, type } : undefined;
}
