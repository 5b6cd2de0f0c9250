/** Names of the headers of a delivery (spec, Delivery rule 2). */
export const WEBHOOK_HEADERS = {
  /** Equals the body's `id`: the deduplication key. */
  eventId: "x-webhook-event-id",
  /** Equals the body's `type`. */
  eventType: "x-webhook-event-type",
  /** Unix seconds of the attempt, signed with the body; regenerated on each retry. */
  timestamp: "x-service-timestamp",
  /** `v1=<64 hex>`: HMAC-SHA256 over `<timestamp>.<raw body>`. What `verifyWebhook` checks. */
  signatureV1: "x-service-signature-v1",
  /** `v0=<64 hex>` over the body alone, without the timestamp: sent, never checked. */
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
  return headerReader([name])(headers)[0];
}

const PRINTABLE_ASCII = /^[ -~]*$/;

/**
 * A reader of `names`, each as `readHeader` reads it, going over a record's
 * names once for all of them. The names are lowercased and classified here,
 * once: `verifyWebhook` makes its reader of four at load.
 */
export function headerReader(
  names: readonly string[],
): (headers: WebhookHeaders) => (string | undefined)[] {
  const wanted = names.map((name) => name.toLowerCase());
  const matches = wanted.map((name) => (PRINTABLE_ASCII.test(name) ? sameAsciiName : sameAnyName));
  return (headers) => {
    if (typeof Headers !== "undefined" && headers instanceof Headers) {
      return wanted.map((name) => headers.get(name) ?? undefined);
    }
    if (
      Symbol.iterator in headers &&
      typeof (headers as Iterable<unknown>)[Symbol.iterator] === "function"
    ) {
      // Read once per name, as a one-shot iterator was always read.
      return wanted.map((name, i) => {
        const found: string[] = [];
        for (const [key, value] of headers as Iterable<[string, string]>) {
          if (matches[i]!(key, name)) found.push(value);
        }
        return found.length ? found.join(", ") : undefined;
      });
    }
    const record = headers as Record<string, string | string[] | undefined>;
    const found: (string | undefined)[] = wanted.map(() => undefined);
    for (const key of Object.keys(record)) {
      for (let i = 0; i < wanted.length; i++) {
        if (!matches[i]!(key, wanted[i]!)) continue;
        const value = record[key];
        if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
        // As `[...values].join(", ")` would, without the array.
        const text =
          typeof value === "string" ? value : (Array.isArray(value) ? value : [value]).join(", ");
        const before = found[i];
        found[i] = before === undefined ? text : `${before}, ${text}`;
      }
    }
    return found;
  };
}

/**
 * `key.toLowerCase() === wanted` for a printable ASCII `wanted`, without lowercasing
 * every name of the request: a name of another length cannot lowercase to it
 * (no character lowercases to ASCII of another length; the Kelvin sign, which
 * lowercases to `k`, has the same length).
 */
function sameAsciiName(key: string, wanted: string): boolean {
  return key === wanted || (key.length === wanted.length && key.toLowerCase() === wanted);
}

function sameAnyName(key: string, wanted: string): boolean {
  return key.toLowerCase() === wanted;
}
