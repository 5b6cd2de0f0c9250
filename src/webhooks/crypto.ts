/**
 * The byte helpers and constant-time comparisons the toolkit needs, the same
 * on every runtime. The HMAC itself comes from `#hmac` (package.json
 * `imports`): Web Crypto by default (hmac.ts), node:crypto under the `node`
 * condition (hmac-node.ts).
 */

const encoder = new TextEncoder();

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** Raw bytes of a delivery: what the service signed, before any decoding. */
export type RawBytes = Uint8Array<ArrayBuffer>;

/**
 * What an HMAC covers: bytes, or parts signed as if joined (a string part as
 * its UTF-8 bytes), so a caller need not copy the body to prepend to it.
 */
export type SignedData = RawBytes | readonly (string | Uint8Array)[];

/** UTF-8 bytes of a string. */
export function utf8(text: string): RawBytes {
  return encoder.encode(text) as RawBytes;
}

/** Joins byte arrays into one fresh array. */
export function concatBytes(...parts: Uint8Array[]): RawBytes {
  let length = 0;
  for (const part of parts) length += part.byteLength;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

/** Lowercase hex of bytes. */
export function toHex(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let out = "";
  for (const byte of view) out += HEX[byte];
  return out;
}

/**
 * Whether any candidate equals `expected`. Every candidate is compared, each
 * with `timingSafeEqualHex`, and none ends the loop early: the time depends
 * on the number and lengths of the candidates, not on which one matched nor
 * on where the others differ.
 */
export function matchesAnyHex(expected: string, candidates: readonly string[]): boolean {
  let match = false;
  for (const candidate of candidates) match = timingSafeEqualHex(expected, candidate) || match;
  return match;
}

/**
 * Compares two strings in time that depends only on their lengths, never on
 * where they first differ, so a caller cannot learn a signature byte by byte.
 * A length mismatch still walks the longer string and still returns false.
 */
export function timingSafeEqualHex(a: string, b: string): boolean {
  const length = Math.max(a.length, b.length);
  let diff = a.length ^ b.length;
  for (let i = 0; i < length; i++) {
    // charCodeAt past the end is NaN, and NaN | 0 is 0: no branch on length.
    diff |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0);
  }
  return diff === 0;
}
