/** The pure SHA-256 (runtimes without node:crypto) against node:crypto, chunked every way. */
import { createHash, randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { pureSha256, sha256Hasher, sha256Hex } from "../../src/custody/sha256.js";

const nodeHex = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const pureHex = (chunks: Uint8Array[]) => {
  const hasher = pureSha256();
  for (const chunk of chunks) hasher.update(chunk);
  return hasher.digestHex();
};

describe("pureSha256", () => {
  it("gives the FIPS 180-4 test vectors", () => {
    const utf8 = (s: string) => new TextEncoder().encode(s);
    expect(pureHex([])).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(pureHex([utf8("abc")])).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
    expect(pureHex([utf8("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")])).toBe(
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    );
    expect(pureHex([new Uint8Array(1_000_000).fill(0x61)])).toBe(
      "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
    );
  });

  it("equals node:crypto at every length around the block and padding boundaries", () => {
    const bytes = randomBytes(300);
    for (let n = 0; n <= 300; n++) {
      expect(pureHex([bytes.subarray(0, n)]), `length ${n}`).toBe(nodeHex(bytes.subarray(0, n)));
    }
  });

  it("equals node:crypto however the bytes are cut into chunks", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), fc.array(fc.nat(600)), (bytes, cuts) => {
        const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const chunks: Uint8Array[] = [];
        let at = 0;
        for (const point of [...points, bytes.length]) {
          chunks.push(bytes.subarray(at, point));
          at = point;
        }
        expect(pureHex(chunks)).toBe(nodeHex(bytes));
      }),
    );
  });

  it("refuses an update after the digest", () => {
    const hasher = pureSha256();
    hasher.digestHex();
    expect(() => hasher.update(new Uint8Array(1))).toThrow(/after digest/);
  });
});

describe("sha256Hasher", () => {
  it("takes node:crypto where it exists and agrees with the pure one", async () => {
    const hasher = await sha256Hasher();
    const bytes = randomBytes(10_000);
    hasher.update(bytes.subarray(0, 4321));
    hasher.update(bytes.subarray(4321));
    expect(hasher.digestHex()).toBe(pureHex([bytes]));
    expect(await sha256Hex("é")).toBe(nodeHex(new TextEncoder().encode("é")));
  });
});

describe("where node:crypto is missing (browsers, Workers without nodejs_compat)", () => {
  it("sha256Hasher falls back to the pure implementation, with the same digests", async () => {
    vi.resetModules();
    // As a browser bundle or a Worker without nodejs_compat: the import itself fails.
    vi.doMock("node:crypto", () => {
      throw new Error("No such built-in module: node:crypto");
    });
    try {
      const fresh = await import("../../src/custody/sha256.js");
      const hasher = await fresh.sha256Hasher();
      const bytes = randomBytes(5000);
      hasher.update(bytes);
      expect(hasher.digestHex()).toBe(nodeHex(bytes));
      // The pure one's own refusal: this is not node:crypto's hasher.
      expect(() => hasher.update(bytes)).toThrow(/SHA-256: update after digest/);
    } finally {
      vi.doUnmock("node:crypto");
      vi.resetModules();
    }
  });
});
