/**
 * Where every id the mock hands out comes from (docs/spec-decisions.md,
 * "Identifiers"): a hash of the service's id seed, the kind of id and a
 * per-kind ordinal that only ever goes up.
 *
 * - The ordinals live beside the state, not in it: `reset()` and `restore()`
 *   leave them as they are, like a database sequence, so a service never
 *   hands out an id twice (a dedupe store kept across tests sees no false
 *   duplicates).
 * - The seed is random unless `idSeed` names one: two services (two test
 *   files, a restarted `medrecords mock`) share no id, and the same `idSeed`
 *   with the same calls gives the same ids, for reproducible runs.
 *
 * Ids are names, not secrets: keys, webhook secrets and presigned tokens stay
 * random (ids.ts).
 */
import { sha256HexSync as sha256Hex } from "../../internal/sha256.js";
import { randomHex } from "./ids.js";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export class IdSource {
  readonly #seed: string;
  readonly #ordinals = new Map<string, number>();

  /** `seed`: `idSeed` of the service; a random one when absent. */
  constructor(seed?: string) {
    this.#seed = seed ?? randomHex(32);
  }

  /** 64 hex digits unique to this service's seed, `kind` and the next ordinal of that kind. */
  #digest(kind: string): string {
    const ordinal = (this.#ordinals.get(kind) ?? 0) + 1;
    this.#ordinals.set(kind, ordinal);
    return sha256Hex(`${this.#seed}\n${kind}\n${ordinal}`);
  }

  /** `prefix` + `length` (at most 64) lowercase hex digits. */
  hex(kind: string, prefix: string, length: number): string {
    return prefix + this.#digest(kind).slice(0, length);
  }

  /** `prefix` + `length` (at most 32) base62 characters. */
  base62(kind: string, prefix: string, length: number): string {
    const digest = this.#digest(kind);
    let out = prefix;
    for (let i = 0; i < length; i++) {
      out += BASE62[Number.parseInt(digest.slice(i * 2, i * 2 + 2), 16) % 62];
    }
    return out;
  }

  /** A version 4 UUID shape (RFC 9562), as the service's upload and event ids have. */
  uuid(kind: string): string {
    const d = this.#digest(kind);
    const variant = ((Number.parseInt(d[16] as string, 16) & 0x3) | 0x8).toString(16);
    return `${d.slice(0, 8)}-${d.slice(8, 12)}-4${d.slice(13, 16)}-${variant}${d.slice(17, 20)}-${d.slice(20, 32)}`;
  }
}
