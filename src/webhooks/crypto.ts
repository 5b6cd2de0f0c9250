/**
 * The few byte and HMAC helpers the toolkit needs, over Web Crypto only, so
 * that `medrecords/webhooks` runs unchanged in Node, Deno, Bun, Workers and
 * browsers.
 */

const encoder = new TextEncoder();

// Importing a key costs about as much as one HMAC; deliveries for one
// endpoint reuse one or two secrets, so a small cache removes that cost. The
// bound keeps a process that verifies for many tenants from growing forever.
const KEY_CACHE_MAX = 64;
const keyCache = new Map<string, Promise<CryptoKey>>();

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** Raw bytes of a delivery: what the service signed, before any decoding. */
export type RawBytes = Uint8Array<ArrayBuffer>;

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

function subtle(): SubtleCrypto {
  const api = globalThis.crypto?.subtle;
  if (!api) {
    throw new TypeError(
      "medrecords/webhooks needs Web Crypto (globalThis.crypto.subtle); use Node >= 22 or a runtime that provides it",
    );
  }
  return api;
}

function hmacKey(secret: string): Promise<CryptoKey> {
  const cached = keyCache.get(secret);
  if (cached) {
    // Re-insert so that Map order is least recently used first.
    keyCache.delete(secret);
    keyCache.set(secret, cached);
    return cached;
  }
  const key = subtle().importKey("raw", utf8(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  keyCache.set(secret, key);
  // A failed import must not poison the cache for later calls.
  key.catch(() => keyCache.delete(secret));
  if (keyCache.size > KEY_CACHE_MAX) {
    const oldest = keyCache.keys().next().value;
    if (oldest !== undefined) keyCache.delete(oldest);
  }
  return key;
}

/**
 * Hex HMAC-SHA256 of `data`, keyed with the UTF-8 bytes of `secret` (the
 * whole `whsec_...` string, DESIGN section 9).
 */
export async function hmacSha256Hex(secret: string, data: RawBytes): Promise<string> {
  const key = await hmacKey(secret);
  return toHex(await subtle().sign("HMAC", key, data));
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
