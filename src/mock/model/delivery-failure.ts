/**
 * A failed delivery attempt told in words for the developer who runs the
 * receiver (`flush()`, `advance()`, the inspector): the receiver's own word
 * on the refusal, and the likely cause with what to do. Never in the
 * delivery record, which the spec keeps free of the endpoint's body.
 */
import { WEBHOOK_RETRY_DELAYS_MS } from "../../schemas/webhooks.js";

/** The most bytes of a refusal's answer read for the receiver's error code. */
const RECEIVER_ERROR_READ_BYTES = 1024;
/** The longest code reported as the receiver's word. */
const RECEIVER_ERROR_MAX = 100;

/**
 * The receiver's word on a refusal: the `error` (a string, or `error.code`)
 * of a JSON answer, a code such as createWebhookHandler answers; null for
 * anything else, so that no free text of the receiver's is repeated.
 */
export async function readReceiverError(response: Response): Promise<string | null> {
  const body = response.body;
  if (body === null) return null;
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  try {
    while (length < RECEIVER_ERROR_READ_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      length += value.byteLength;
    }
  } catch {
    return null;
  } finally {
    reader.cancel().catch(() => undefined);
  }
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return receiverWord(new TextDecoder().decode(bytes.subarray(0, RECEIVER_ERROR_READ_BYTES)));
}

const CODE = new RegExp(`^[A-Za-z0-9_.-]{1,${RECEIVER_ERROR_MAX}}$`);

function receiverWord(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed === "") return null;
  try {
    const parsed = JSON.parse(trimmed) as { error?: unknown };
    const error = parsed?.error;
    const code = typeof error === "string" ? error : (error as { code?: unknown } | null)?.code;
    // A code, not prose: one short word of letters, digits, `_`, `.` or `-`.
    return typeof code === "string" && CODE.test(code) ? code : null;
  } catch {
    return null;
  }
}

const RETRIES = WEBHOOK_RETRY_DELAYS_MS.map((ms) =>
  ms >= 3_600_000 ? `${ms / 3_600_000} h` : `${ms / 60_000} min`,
).join(", ");

const SIGNATURE_HINT =
  "The receiver refused the delivery, most likely its signature. The timestamp is signed with this machine's clock (whatever the mock's clock says): " +
  "a receiver whose clock is not this machine's refuses it, so remove any `now` option from createWebhookHandler or verifyWebhook (and check the clock of a container or VM the receiver runs in). " +
  "Otherwise check that the receiver uses this webhook's secret (whsec_..., as returned when it was created) and verifies the raw body.";

/** The likely cause of a failed attempt, and what to do. */
export function failureHint(result: {
  status_code: number | null;
  cause: string | null;
  receiverError?: string | null;
}): string {
  const status = result.status_code;
  const cause = result.cause ?? "";
  if (status === 400 || status === 401 || status === 403) return SIGNATURE_HINT;
  if (status === 404 || status === 405) {
    return `Nothing at the webhook's URL takes the delivery (HTTP ${status}): check the URL's path and that the receiver accepts POST there.`;
  }
  if (status === 409) {
    return "The receiver is processing this event already (another instance holds its claim); the service's retry delivers it once that is done.";
  }
  if (status === 413) {
    return "The receiver refused the body as too large: raise its maxBodyBytes.";
  }
  if (status !== null && status >= 500) {
    return `The receiver failed while handling the event: look at its log (its onError). The service retries after ${RETRIES}.`;
  }
  if (cause === "timeout") {
    return "The receiver did not answer within 5 s: answer 2xx at once and do the work afterwards (a queue), or make the handler faster.";
  }
  if (cause === "connection refused") {
    return "Nothing listens at the webhook's URL: start the receiver (e.g. `medrecords listen --forward-to <url>`), or fix the port in the webhook's URL.";
  }
  if (cause.startsWith("not sent")) {
    return "The mock does not deliver to private addresses: start it with allowPrivateWebhookUrls: true (`medrecords mock` allows them) for a receiver on this machine.";
  }
  if (cause.startsWith("redirect")) {
    return "The URL redirects, and deliveries do not follow redirects: give the webhook the final URL.";
  }
  if (cause.startsWith("handler threw")) {
    return "The deliverTo handler threw instead of answering: createWebhookHandler answers every failure itself, so this is a handler of your own; fix it to answer a Response.";
  }
  if (status !== null && status >= 300 && status < 400) {
    return "The receiver answered a redirect, which deliveries do not follow: give the webhook the final URL.";
  }
  return "The attempt failed: look at the receiver's log and the connection to it.";
}
