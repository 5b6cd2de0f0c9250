import type { RawBytes } from "./crypto.js";
import { utf8 } from "./crypto.js";
import { payloadNotRawError } from "./errors.js";

/** A request body exactly as received. */
export type RawWebhookPayload = string | Uint8Array | ArrayBuffer;

/**
 * The body's bytes. Bytes are used as they are, never decoded and
 * re-encoded, since the signature covers the bytes the service sent. Any
 * other value (a parsed object, `undefined` from a missing body parser) is
 * refused with `payload_not_raw`. A Node `Buffer` is a `Uint8Array`.
 */
export function rawBytes(payload: unknown): RawBytes | Uint8Array {
  if (typeof payload === "string") return utf8(payload);
  if (payload instanceof Uint8Array) return payload;
  if (payload instanceof ArrayBuffer) return new Uint8Array(payload);
  if (ArrayBuffer.isView(payload)) {
    return new Uint8Array(payload.buffer, payload.byteOffset, payload.byteLength);
  }
  throw payloadNotRawError(payload);
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * The body as given (a string) or as its bytes (`rawBytes` of anything else)
 * as text, or undefined when its bytes are not UTF-8. A leading byte order
 * mark is dropped, from bytes (as the decoder does) and from a string alike,
 * so that one delivery parses the same whichever form it is given in.
 */
export function bodyText(body: string | Uint8Array): string | undefined {
  if (typeof body === "string") {
    return body.charCodeAt(0) === 0xfeff ? body.slice(1) : body;
  }
  try {
    return decoder.decode(body);
  } catch {
    return undefined;
  }
}
