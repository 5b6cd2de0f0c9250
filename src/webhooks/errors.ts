import { MedRecordsError } from "../shared/errors.js";
import { jsonDepthExceeds } from "./json-depth.js";

/**
 * Deepest nesting of arrays and objects for which a `signature_mismatch`
 * checks whether the body looks re-serialized (by parsing it and
 * serializing it again). The service's events are a few levels deep; a
 * deeper body gets no such hint, so that a forged one cannot make the check
 * overflow the stack (`JSON.stringify` recurses) or cost more than a pass
 * over the body.
 */
export const RESERIALIZED_HINT_MAX_DEPTH = 64;

/** Why a delivery was refused. */
export type WebhookVerificationReason =
  /** `X-Service-Timestamp` or `X-Service-Signature-V1` is absent. */
  | "missing_header"
  /** A header is present but not shaped as the spec says. */
  | "malformed_header"
  /** The timestamp is further from the receiver's clock than the tolerance. */
  | "timestamp_out_of_tolerance"
  /** No `v1=` signature matches any of the secrets. */
  | "signature_mismatch"
  /** Signed correctly, but the body is not an event or disagrees with its headers. */
  | "invalid_payload"
  /** `payload` is not the raw body (for example an already parsed object). */
  | "payload_not_raw"
  /**
   * The body is larger than `maxBodyBytes` (by its `Content-Length` or as
   * read): `createWebhookHandler` only, which answers 413 without reading further.
   */
  | "body_too_large";

/** What a {@link WebhookVerificationError} carries beyond its reason, depending on the reason. */
export interface WebhookVerificationErrorDetails {
  /**
   * Receiver clock minus the delivery's timestamp, in whole seconds: positive
   * when the delivery is older than the clock, negative when it is from the
   * future. Set for `timestamp_out_of_tolerance`.
   */
  skewSeconds?: number | undefined;
  /** Lower-case name of the header concerned, for header reasons. */
  header?: string | undefined;
  /** Likely causes, for the operator; also appended to the message. */
  hints?: readonly string[] | undefined;
}

/**
 * A delivery failed verification. The message is written for the operator's
 * logs: it names the cause and likely fixes, and never contains the expected
 * signature, the secret or the body. Do not send it back in the HTTP
 * response; a 400 without detail is enough for the service.
 */
export class WebhookVerificationError extends MedRecordsError {
  override name = "WebhookVerificationError";
  /** The cause, to branch on (the message is for people). */
  readonly reason: WebhookVerificationReason;
  /** See {@link WebhookVerificationErrorDetails.skewSeconds}. */
  readonly skewSeconds: number | undefined;
  /** See {@link WebhookVerificationErrorDetails.header}. */
  readonly header: string | undefined;
  /** See {@link WebhookVerificationErrorDetails.hints}. */
  readonly hints: readonly string[];

  constructor(
    reason: WebhookVerificationReason,
    message: string,
    details: WebhookVerificationErrorDetails = {},
  ) {
    const hints = details.hints ?? [];
    super(hints.length ? `${message} Hint: ${hints.join(" ")}` : message);
    this.reason = reason;
    this.skewSeconds = details.skewSeconds;
    this.header = details.header;
    this.hints = hints;
  }
}

/** What `payload` was, for the message: never its content. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") {
    const ctor = (value as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof ctor === "string" && ctor !== "Object" ? `a ${ctor}` : "an object";
  }
  return `a ${typeof value}`;
}

export function payloadNotRawError(payload: unknown): WebhookVerificationError {
  return new WebhookVerificationError(
    "payload_not_raw",
    `payload must be the raw request body as a string, Uint8Array or ArrayBuffer, not ${describeValue(payload)}. ` +
      "The signature covers the exact bytes the service sent, which a parsed and re-serialized body does not reproduce: " +
      'pass the raw body, e.g. `await request.text()` in a Fetch handler, or mount `express.raw({ type: "application/json" })` ' +
      "on the webhook route (before any `express.json()`) and pass `req.body`.",
  );
}

export function toleranceError(
  skewSeconds: number,
  toleranceSeconds: number,
  nowOption: { machineSkewSeconds: number } | undefined,
): WebhookVerificationError {
  const direction =
    skewSeconds > 0 ? `${skewSeconds} s in the past` : `${-skewSeconds} s in the future`;
  // The sender signs with the real time (the reference server too, whatever its clock says).
  const signsReal = "The mock signs with the real time, whatever its clock says";
  if (nowOption !== undefined && Math.abs(nowOption.machineSkewSeconds) <= toleranceSeconds) {
    return new WebhookVerificationError(
      "timestamp_out_of_tolerance",
      `X-Service-Timestamp is ${direction} relative to the \`now\` option (tolerance ${toleranceSeconds} s) but agrees with this machine's clock: remove the \`now\` option.`,
      { skewSeconds, header: "x-service-timestamp", hints: [`${signsReal}.`] },
    );
  }
  const hints = [
    skewSeconds > 0
      ? "If every delivery fails this way, the receiver's clock is ahead (check NTP); otherwise the delivery was held in a queue or replayed."
      : "The receiver's clock is behind the service's: check NTP on this host.",
  ];
  if (nowOption !== undefined)
    hints.push(`If \`now\` follows a mock's clock, remove it: ${signsReal}.`);
  return new WebhookVerificationError(
    "timestamp_out_of_tolerance",
    `X-Service-Timestamp is ${direction} relative to this receiver's clock (tolerance ${toleranceSeconds} s).`,
    { skewSeconds, header: "x-service-timestamp", hints },
  );
}

/**
 * Likely causes of a signature mismatch that can be seen without the
 * expected signature: the body and secrets as the caller gave them.
 */
export function signatureMismatchHints(input: {
  bodyText: string | undefined;
  secrets: readonly string[];
  trimmedSecretMatches: boolean;
}): string[] {
  const hints: string[] = [];
  const { bodyText, secrets } = input;
  if (secrets.some((s) => s !== s.trim())) {
    hints.push(
      input.trimmedSecretMatches
        ? "The secret has leading or trailing whitespace (often a newline from an env file or a secret store), and the signature matches once it is trimmed: trim the secret."
        : "The secret has leading or trailing whitespace (often a newline from an env file or a secret store); the service signs with the secret exactly as returned at creation.",
    );
  }
  if (secrets.some((s) => !s.trim().startsWith("whsec_"))) {
    hints.push(
      "A secret does not start with `whsec_`: the key is the whole secret string returned when the webhook was created, prefix included.",
    );
  }
  if (bodyText !== undefined) {
    if (bodyText.length === 0) {
      hints.push(
        "The body is empty: a body parser may have consumed the request stream before verification.",
      );
    } else if (bodyText.startsWith("[object ")) {
      hints.push(
        "The body is `[object Object]`: an object was converted to a string; pass the raw body.",
      );
    } else if (looksReserialized(bodyText)) {
      hints.push(
        "The body is not compact JSON as the service sends it (it looks re-serialized or pretty-printed): pass the raw request body, not `JSON.stringify(req.body)`.",
      );
    }
  }
  if (hints.length === 0) {
    hints.push(
      "Check that the secret is the one of the webhook that sent this delivery (a deleted and recreated webhook has a new secret) and that the body is passed byte for byte as received.",
    );
  }
  return hints;
}

function looksReserialized(text: string): boolean {
  if (jsonDepthExceeds(text, RESERIALIZED_HINT_MAX_DEPTH)) return false;
  try {
    return JSON.stringify(JSON.parse(text)) !== text;
  } catch {
    // Not JSON, or too large for this runtime: no hint, and the mismatch is reported as it is.
    return false;
  }
}
