/**
 * HMAC-SHA256 over Web Crypto: what `#hmac` resolves to everywhere but under
 * the `node` condition (Deno, Bun and Node take hmac-node.ts), so that
 * `medrecords/webhooks` runs unchanged in Workers and browsers.
 */
import {
  concatBytes,
  matchesAnyHex,
  type RawBytes,
  type SignedData,
  toHex,
  utf8,
} from "./crypto.js";

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
 * whole `whsec_...` string, see docs/spec-decisions.md). A promise here, where Web
 * Crypto signs asynchronously; the hex itself from hmac-node.ts (the `node`
 * condition of `#hmac`), which callers use without waiting a turn.
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
 * `node` condition (hmac-node.ts).
 */
export function hmacSha256Matches(
  secret: string,
  data: SignedData,
  signatures: readonly string[],
): boolean | Promise<boolean> {
  return Promise.resolve(hmacSha256Hex(secret, data)).then((hex) => matchesAnyHex(hex, signatures));
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
