/** Names of the headers of a delivery (spec, Delivery rule 2). */
export const WEBHOOK_HEADERS = {
  eventId: "x-webhook-event-id",
  eventType: "x-webhook-event-type",
  timestamp: "x-service-timestamp",
  signatureV1: "x-service-signature-v1",
  signatureLegacy: "x-service-signature",
} as const;

/** Headers as a receiver gets them: web `Headers`, Node's `IncomingHttpHeaders`, or a plain record. */
export type WebhookHeaders =
  | Headers
  | Record<string, string | string[] | undefined>
  | Iterable<[string, string]>;

/**
 * Reads one header whatever the shape and the case of its name. A repeated
 * header (an array in Node) is returned joined, so that a duplicated
 * signature header fails verification instead of picking one silently.
 */
export function readHeader(headers: WebhookHeaders, name: string): string | undefined {
  const wanted = name.toLowerCase();
  if (typeof Headers !== "undefined" && headers instanceof Headers) {
    return headers.get(wanted) ?? undefined;
  }
  if (
    Symbol.iterator in headers &&
    typeof (headers as Iterable<unknown>)[Symbol.iterator] === "function"
  ) {
    const found: string[] = [];
    for (const [key, value] of headers as Iterable<[string, string]>) {
      if (key.toLowerCase() === wanted) found.push(value);
    }
    return found.length ? found.join(", ") : undefined;
  }
  const record = headers as Record<string, string | string[] | undefined>;
  const found: string[] = [];
  for (const key of Object.keys(record)) {
    if (key.toLowerCase() !== wanted) continue;
    const value = record[key];
    if (Array.isArray(value)) found.push(...value);
    else if (value !== undefined) found.push(value);
  }
  return found.length ? found.join(", ") : undefined;
}
