/**
 * Incremental SHA-256. Web Crypto digests only a whole buffer, so a file that
 * streams would have to be held in memory first; node:crypto's `createHash`
 * (Node, Deno, Bun, Workers with nodejs_compat) hashes chunk by chunk in
 * native code, and this small pure implementation (FIPS 180-4) does the same
 * everywhere else. `sha256Hasher()` picks the first; both give the same hex.
 */

import { pureSha256, type Sha256 } from "../internal/sha256.js";

export { pureSha256, type Sha256 };

type NodeCrypto = {
  createHash(algorithm: "sha256"): {
    update(b: Uint8Array): unknown;
    digest(encoding: "hex"): string;
  };
};

let nodeCrypto: Promise<NodeCrypto | undefined> | undefined;

/**
 * A new hasher: node:crypto's when the runtime has it (loaded on first use,
 * so bundles for browsers and Workers never see it), the pure one otherwise.
 */
export async function sha256Hasher(): Promise<Sha256> {
  nodeCrypto ??= import("node:crypto").then(
    (m) => (typeof m.createHash === "function" ? (m as NodeCrypto) : undefined),
    () => undefined,
  );
  const crypto = await nodeCrypto;
  if (crypto === undefined) return pureSha256();
  const hash = crypto.createHash("sha256");
  return {
    update: (bytes) => void hash.update(bytes),
    digestHex: () => hash.digest("hex"),
  };
}

/** SHA-256 hex of a UTF-8 string (an entry's canonical form). */
export async function sha256Hex(text: string): Promise<string> {
  const hasher = await sha256Hasher();
  hasher.update(new TextEncoder().encode(text));
  return hasher.digestHex();
}
