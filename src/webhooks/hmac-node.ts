import { createHmac } from "node:crypto";
import { matchesAnyHex, type SignedData } from "./crypto.js";

/**
 * `hmacSha256Hex` of hmac.ts over node:crypto (the `node` condition of `#hmac`): the same HMAC (keyed with
 * the UTF-8 bytes of the whole `whsec_...` string), computed synchronously
 * in OpenSSL and fed part by part: the body is not copied, no promise is
 * made, and no job goes to the thread pool as with Web Crypto in Node.
 */
export function hmacSha256Hex(secret: string, data: SignedData): string {
  const hmac = createHmac("sha256", secret);
  if (data instanceof Uint8Array) hmac.update(data);
  else for (const part of data) hmac.update(part);
  return hmac.digest("hex");
}

/**
 * `hmacSha256Matches` of hmac.ts over node:crypto: one HMAC, then every
 * candidate compared with its hex in constant time (`matchesAnyHex`); a
 * malformed one is never equal to it. A boolean, not a promise.
 */
export function hmacSha256Matches(
  secret: string,
  data: SignedData,
  signatures: readonly string[],
): boolean {
  return matchesAnyHex(hmacSha256Hex(secret, data), signatures);
}
