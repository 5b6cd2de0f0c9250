/**
 * The few byte and HMAC helpers the toolkit needs, over Web Crypto only, so
 * that `medrecords/webhooks` runs unchanged in Node, Deno, Bun, Workers and
 * browsers. The `node` build swaps in crypto.node.ts (HMAC from node:crypto).
 */

const encoder = new TextEncoder();

// Importing a key costs about as much as one HMAC; deliveries for one
// endpoint reuse one or two secrets, so a small cache removes that cost. The
// bound keeps a process that verifies for many tenants from growing forever.
const KEY_CACHE_MAX = 64;
/** An import under way or done; `key` once it is done, so a hit does not wait a turn. */
interface CachedKey {
  promise: Promise<CryptoKey>;
  key?: CryptoKey;
}
const keyCache = new Map<string, CachedKey>();
/** The most recently used secret, already last in `keyCache`'s order. */
let newestSecret: string | undefined;

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

function subtle(): SubtleCrypto {
  const api = globalThis.crypto?.subtle;
  if (!api) {
    throw new TypeError(
      "medrecords/webhooks needs Web Crypto (globalThis.crypto.subtle); use Node >= 22 or a runtime that provides it",
    );
  }
  return api;
}

function hmacKey(secret: string): CachedKey {
  const cached = keyCache.get(secret);
  if (cached) {
    // Re-insert so that Map order is least recently used first.
    if (secret !== newestSecret) {
      keyCache.delete(secret);
      keyCache.set(secret, cached);
      newestSecret = secret;
    }
    return cached;
  }
  const promise = subtle().importKey(
    "raw",
    utf8(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const entry: CachedKey = { promise };
  keyCache.set(secret, entry);
  newestSecret = secret;
  promise.then(
    (key) => {
      entry.key = key;
    },
    // A failed import must not poison the cache for later calls.
    () => keyCache.delete(secret),
  );
  if (keyCache.size > KEY_CACHE_MAX) {
    const oldest = keyCache.keys().next().value;
    if (oldest !== undefined) keyCache.delete(oldest);
  }
  return entry;
}

/**
 * Hex HMAC-SHA256 of `data`, keyed with the UTF-8 bytes of `secret` (the
 * whole `whsec_...` string, DESIGN section 9). A promise here, where Web
 * Crypto signs asynchronously; the hex itself in the `node` build
 * (crypto.node.ts), which callers use without waiting a turn.
 */
export function hmacSha256Hex(secret: string, data: SignedData): string | Promise<string> {
  try {
    const bytes = joined(data);
    const cached = hmacKey(secret);
    // Once imported, the key is used at once, without a turn spent on its promise.
    const signature = cached.key
      ? subtle().sign("HMAC", cached.key, bytes)
      : cached.promise.then((key) => subtle().sign("HMAC", key, bytes));
    return signature.then(toHex);
  } catch (error) {
    // As an async function would: no Web Crypto is a rejection, not a throw.
    return Promise.reject(error);
  }
}

/**
 * Whether one of `signatures` (64 lowercase hex characters each, as
 * `hmacSha256Hex` writes them) is the HMAC-SHA256 of `data` under `secret`.
 * One HMAC, however many candidates: each is then compared with its hex by
 * `matchesAnyHex`, in constant time. A malformed candidate never matches.
 * The caller bounds the number of candidates (verify.ts reads at most
 * `MAX_SIGNATURE_CANDIDATES`). A promise here; a boolean at once in the
 * `node` build (crypto.node.ts).
 */
export function hmacSha256Matches(
  secret: string,
  data: SignedData,
  signatures: readonly string[],
): boolean | Promise<boolean> {
  return Promise.resolve(hmacSha256Hex(secret, data)).then((hex) => matchesAnyHex(hex, signatures));
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

/** The parts as one array, copied once: strings are joined before encoding. */
function joined(data: SignedData): RawBytes {
  if (data instanceof Uint8Array) return data;
  let text = "";
  for (const part of data) {
    if (typeof part !== "string") {
      return concatBytes(...data.map((p) => (typeof p === "string" ? utf8(p) : p)));
    }
    text += part;
  }
  return utf8(text);
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
