import { hmacSha256Matches } from "#hmac";
import type { WebhookEvent } from "../schemas/events.js";
import { WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS } from "../shared/tolerance.js";
import type { SignedData } from "./crypto.js";
import { signatureMismatchHints, toleranceError, WebhookVerificationError } from "./errors.js";
import { headerReader, WEBHOOK_HEADERS, type WebhookHeaders } from "./headers.js";
import { bodyText, type RawWebhookPayload, rawBytes } from "./raw-body.js";

export type { RawWebhookPayload } from "./raw-body.js";

/** Options of `verifyWebhook(options)`. */
export interface VerifyWebhookOptions {
  /**
   * The raw request body, byte for byte as received: never a parsed object,
   * nor `JSON.stringify` of one.
   * @example await request.text()
   * @example req.body // with express.raw({ type: "application/json" })
   */
  payload: RawWebhookPayload;
  /**
   * The request headers: web `Headers`, Node's `req.headers`, a plain record
   * or `[name, value]` pairs; names are matched case-insensitively.
   * @example request.headers
   */
  headers: WebhookHeaders;
  /**
   * The webhook secret, the whole `whsec_...` string returned at creation.
   * Several are accepted while moving from one webhook to its replacement
   * (a secret is rotated by recreating the webhook): any one may match.
   * @example process.env.MEDRECORDS_WEBHOOK_SECRET
   * @example [newSecret, oldSecret]
   */
  secret: string | readonly string[];
  /**
   * Largest accepted distance, either way, between `X-Service-Timestamp` and
   * `now`, in seconds; the bound is inclusive. It limits how long a captured
   * delivery can be replayed.
   * @default 300
   */
  toleranceSeconds?: number;
  /**
   * The receiver's clock, as a `Date` or epoch milliseconds: only to check a
   * signature made at another time (a recorded delivery). The service and
   * the reference server sign with the real time, so a live delivery needs
   * no `now`, not even after a test moved the mock's clock.
   * @default Date.now()
   */
  now?: Date | number;
}

/**
 * Most `v1=` signatures accepted in X-Service-Signature-V1: a header with
 * more is `malformed_header`, refused before any HMAC is computed. The
 * service sends one per delivery (each webhook has its own secret, and a
 * secret is rotated by recreating the webhook); ten leave room for a header
 * repeated on the way. The HMAC is computed once per secret whatever the
 * number of candidates; the cap bounds the comparisons and makes a header
 * stuffed with hundreds of them a clear refusal.
 */
export const MAX_SIGNATURE_CANDIDATES = 10;

const V1_TOKEN = /^v1=[0-9a-f]{64}$/;
const SIGNATURE_TOKENS = /[^\s,]+/g;
const TIMESTAMP = /^\d{1,15}$/;
const readDeliveryHeaders = headerReader([
  WEBHOOK_HEADERS.timestamp,
  WEBHOOK_HEADERS.signatureV1,
  WEBHOOK_HEADERS.eventId,
  WEBHOOK_HEADERS.eventType,
]);

/**
 * Verifies a delivery and returns its event. Checks, in order: the timestamp
 * and V1 signature headers are present and well formed (at most 10 `v1=`
 * values, `MAX_SIGNATURE_CANDIDATES`); the timestamp is
 * within `toleranceSeconds` of `now`; a `v1=` signature equals the
 * HMAC-SHA256 of `<timestamp>.<raw body>` under one of the secrets (constant
 * time); the body is an event (`id`, `type`, `created_at`, `data`) agreeing
 * with `X-Webhook-Event-Id` and `X-Webhook-Event-Type` when those are sent.
 *
 * `data` is not validated field by field, so that a field added by the
 * service later is never a reason to drop a signed delivery.
 *
 * @throws {WebhookVerificationError} with a `reason` when the delivery is refused.
 * @throws {TypeError} when `secret` or `toleranceSeconds` is unusable (a
 *   configuration error, not a bad delivery).
 */
export async function verifyWebhook(options: VerifyWebhookOptions): Promise<WebhookEvent> {
  const secrets = normalizeSecrets(options.secret);
  const toleranceSeconds = normalizeTolerance(options.toleranceSeconds);
  // A string stays one: the HMAC encodes it once, without a copy joined to the timestamp.
  const body = typeof options.payload === "string" ? options.payload : rawBytes(options.payload);
  const checked = checkDeliveryHeaders(options.headers, toleranceSeconds, options.now);
  return verifyCheckedDelivery(checked, body, secrets);
}

/** The delivery's headers once present, well formed and within the tolerance. */
export interface CheckedDeliveryHeaders {
  timestamp: string;
  signatures: string[];
  eventId: string | undefined;
  eventType: string | undefined;
}

/**
 * The checks of `verifyWebhook` that need no body: the timestamp and
 * signature headers present and well formed, the timestamp within the
 * tolerance. `createWebhookHandler` runs them before reading the body, so
 * that an unsigned or stale request costs no read.
 */
export function checkDeliveryHeaders(
  headers: WebhookHeaders,
  toleranceSeconds: number,
  now: Date | number | undefined,
): CheckedDeliveryHeaders {
  // All four in one pass over the names; the event's two are compared after the signature.
  const [timestampHeader, signatureValue, eventId, eventType] = readDeliveryHeaders(headers);
  const timestamp = timestampHeader?.trim();
  if (timestamp === undefined || timestamp === "") throw missingHeader(WEBHOOK_HEADERS.timestamp);
  const signatureHeader = signatureValue?.trim();
  if (signatureHeader === undefined || signatureHeader === "") {
    throw missingHeader(WEBHOOK_HEADERS.signatureV1);
  }

  if (!TIMESTAMP.test(timestamp)) {
    throw new WebhookVerificationError(
      "malformed_header",
      "X-Service-Timestamp is not an integer number of Unix seconds.",
      { header: WEBHOOK_HEADERS.timestamp },
    );
  }
  const signatures = parseSignatures(signatureHeader);

  const nowSeconds = Math.floor(nowMs(now) / 1000);
  const skewSeconds = nowSeconds - Number(timestamp);
  if (Math.abs(skewSeconds) > toleranceSeconds) {
    // Given a `now`, say whether this machine's clock would have taken the delivery.
    const nowOption =
      now === undefined
        ? undefined
        : { machineSkewSeconds: Math.floor(Date.now() / 1000) - Number(timestamp) };
    throw toleranceError(skewSeconds, toleranceSeconds, nowOption);
  }
  return { timestamp, signatures, eventId, eventType };
}

/**
 * The rest of `verifyWebhook` once the headers passed: the signature, then
 * the event. Synchronous while the HMAC is (node:crypto), so that no turn of
 * the event loop is spent waiting for it; it throws (or rejects) when refused.
 */
export function verifyCheckedDelivery(
  checked: CheckedDeliveryHeaders,
  body: string | Uint8Array,
  secrets: readonly string[],
): WebhookEvent | Promise<WebhookEvent> {
  const { timestamp, signatures } = checked;
  // Signed as `<timestamp>.<raw body>`, in two parts: the body is not copied.
  const signed: SignedData = [`${timestamp}.`, body];
  const matched = anySignatureMatches(signed, secrets, signatures);
  const decide = (yes: boolean): WebhookEvent | Promise<never> =>
    yes
      ? parseEvent(body, checked.eventId, checked.eventType)
      : signatureMismatch(body, signed, secrets, signatures).then((error) => {
          throw error;
        });
  return typeof matched === "boolean" ? decide(matched) : matched.then(decide);
}

export function normalizeSecrets(secret: string | readonly string[]): readonly string[] {
  const secrets = typeof secret === "string" ? [secret] : secret;
  if (!Array.isArray(secrets) || secrets.length === 0) {
    throw new TypeError("verifyWebhook: `secret` must be a non-empty string or array of strings");
  }
  for (const s of secrets) {
    if (typeof s !== "string" || s.trim() === "") {
      throw new TypeError(
        "verifyWebhook: a webhook secret is empty or not a string; is the environment variable set?",
      );
    }
  }
  return secrets;
}

export function normalizeTolerance(value: number | undefined): number {
  if (value === undefined) return WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS;
  if (typeof value !== "number" || Number.isNaN(value) || value < 0) {
    throw new TypeError("verifyWebhook: `toleranceSeconds` must be a number of seconds >= 0");
  }
  return value;
}

function nowMs(now: Date | number | undefined): number {
  const ms = now === undefined ? Date.now() : typeof now === "number" ? now : now.getTime();
  // NaN would compare as "within tolerance" and switch the replay check off.
  if (!Number.isFinite(ms)) throw new TypeError("verifyWebhook: `now` is not a valid time");
  return ms;
}

function missingHeader(name: string): WebhookVerificationError {
  return new WebhookVerificationError("missing_header", `Missing header ${displayName(name)}.`, {
    header: name,
    hints: [
      "Is this request from the service, and does a proxy or platform in front of the receiver pass X-* headers through?",
    ],
  });
}

/**
 * The `v1=` values of the signature header, at most `MAX_SIGNATURE_CANDIDATES`.
 * Several may be sent, separated by commas or spaces (a repeated header
 * arrives joined); other schemes are skipped so that a future `v2=` beside
 * `v1=` does not break this version.
 */
function parseSignatures(header: string): string[] {
  // The usual header, one signature: no split.
  if (V1_TOKEN.test(header)) return [header.slice(3)];
  const signatures: string[] = [];
  for (const [token] of header.matchAll(SIGNATURE_TOKENS)) {
    if (V1_TOKEN.test(token)) {
      if (signatures.length === MAX_SIGNATURE_CANDIDATES) {
        throw malformedSignature(
          `holds more than ${MAX_SIGNATURE_CANDIDATES} \`v1=\` signatures, the most accepted; the service sends one per delivery.`,
        );
      }
      signatures.push(token.slice(3));
    } else if (token.startsWith("v1=") || !/^v\d+=/.test(token)) {
      throw malformedSignature("is not `v1=` followed by 64 lowercase hex characters.");
    }
  }
  if (signatures.length === 0) throw malformedSignature("holds no `v1=` signature.");
  return signatures;
}

function malformedSignature(problem: string): WebhookVerificationError {
  return new WebhookVerificationError("malformed_header", `X-Service-Signature-V1 ${problem}`, {
    header: WEBHOOK_HEADERS.signatureV1,
  });
}

/**
 * Whether a signature matches under one of the secrets, from `from` on:
 * synchronous while the HMAC is (node:crypto), a promise once it is not (Web Crypto).
 */
function anySignatureMatches(
  signed: SignedData,
  secrets: readonly string[],
  signatures: readonly string[],
  from = 0,
): boolean | Promise<boolean> {
  for (let i = from; i < secrets.length; i++) {
    // Every candidate is compared, so the time does not tell which one matched.
    const matched = hmacSha256Matches(secrets[i]!, signed, signatures);
    if (typeof matched !== "boolean") {
      return matched.then((yes) => yes || anySignatureMatches(signed, secrets, signatures, i + 1));
    }
    if (matched) return true;
  }
  return false;
}

async function signatureMismatch(
  body: string | Uint8Array,
  signed: SignedData,
  secrets: readonly string[],
  signatures: readonly string[],
): Promise<WebhookVerificationError> {
  const untrimmed = secrets.filter((s) => s !== s.trim());
  const trimmedSecretMatches =
    untrimmed.length > 0 &&
    (await anySignatureMatches(
      signed,
      untrimmed.map((s) => s.trim()),
      signatures,
    ));
  const hints = signatureMismatchHints({
    bodyText: bodyText(body),
    secrets,
    trimmedSecretMatches,
  });
  return new WebhookVerificationError(
    "signature_mismatch",
    `No X-Service-Signature-V1 signature matches the body and timestamp under the ${
      secrets.length === 1 ? "secret" : `${secrets.length} secrets`
    } given.`,
    { header: WEBHOOK_HEADERS.signatureV1, hints },
  );
}

function invalidPayload(message: string): WebhookVerificationError {
  return new WebhookVerificationError("invalid_payload", message);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseEvent(
  body: string | Uint8Array,
  headerId: string | undefined,
  headerType: string | undefined,
): WebhookEvent {
  const text = bodyText(body);
  if (text === undefined) throw invalidPayload("The signed body is not valid UTF-8.");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    // Not a SyntaxError: a limit of the runtime's parser (nesting, size), usually a RangeError.
    throw invalidPayload(
      error instanceof SyntaxError
        ? "The signed body is not JSON."
        : "The signed body could not be parsed: it is nested too deeply or too large for this runtime.",
    );
  }
  if (!isObject(parsed)) throw invalidPayload("The signed body is not a JSON object.");
  const { id, type, created_at, data } = parsed;
  if (typeof id !== "string" || id === "") throw invalidPayload("The event has no string `id`.");
  if (typeof type !== "string" || type === "") {
    throw invalidPayload("The event has no string `type`.");
  }
  if (typeof created_at !== "string") throw invalidPayload("The event has no string `created_at`.");
  if (!isObject(data)) throw invalidPayload("The event has no object `data`.");

  if (headerId !== undefined && headerId.trim() !== id) {
    throw invalidPayload("X-Webhook-Event-Id differs from the body's `id`.");
  }
  if (headerType !== undefined && headerType.trim() !== type) {
    throw invalidPayload("X-Webhook-Event-Type differs from the body's `type`.");
  }
  return parsed as unknown as WebhookEvent;
}

function displayName(header: string): string {
  return header.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
}
