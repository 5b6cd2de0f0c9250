/**
 * Random identifiers and tokens. Web Crypto only, so the mock runs wherever
 * the client does (Node, browsers, workers) without `node:crypto`.
 */

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
// 248 = 4 * 62: bytes at or above it are redrawn so every character is equally likely.
const BASE62_BYTE_LIMIT = 248;

/** Random bytes drawn ahead, 4 KiB at a time: one Web Crypto call per request id costs more than the rest of the id. */
const POOL_SIZE = 4096;
let pool = new Uint8Array(0);
let poolOffset = 0;

/** `length` bytes from the CSPRNG, through the pool. */
function randomBytes(length: number): Uint8Array {
  if (length > POOL_SIZE) return crypto.getRandomValues(new Uint8Array(length));
  if (poolOffset + length > pool.length) {
    pool = crypto.getRandomValues(new Uint8Array(POOL_SIZE));
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, poolOffset + length);
  poolOffset += length;
  return bytes;
}

export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    const bytes = randomBytes(length * 2);
    for (const byte of bytes) {
      if (byte >= BASE62_BYTE_LIMIT) continue;
      out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export function randomHex(length: number): string {
  return toHex(randomBytes(Math.ceil(length / 2))).slice(0, length);
}

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) out += HEX[byte];
  return out;
}

/** An unguessable URL-safe token for presigned addresses. */
export function randomToken(): string {
  return toBase64Url(randomBytes(32));
}

export function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Decodes base64url; undefined when the text is not base64url. */
export function fromBase64Url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined;
  const padded =
    text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4);
  try {
    return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

export const newRequestId = (): string => `req_${randomHex(24)}`;
