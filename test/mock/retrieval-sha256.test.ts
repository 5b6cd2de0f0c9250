/** The mock's synchronous SHA-256 (behind retrieval event ids) against node:crypto. */
import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pureSha256, sha256HexSync as sha256Hex } from "../../src/internal/sha256.js";

const reference = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

describe("sha256Hex", () => {
  it("matches the FIPS 180-4 examples and every padding boundary", () => {
    expect(sha256Hex("abc")).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    for (let n = 50; n <= 130; n++) expect(sha256Hex("a".repeat(n))).toBe(reference("a".repeat(n)));
  });

  it("matches node:crypto on any text, multi-byte characters included", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (text) => {
        expect(sha256Hex(text)).toBe(reference(text));
      }),
    );
  });

  it("the plain implementation it falls back to without node:crypto gives the same ids", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (text) => {
        const hasher = pureSha256();
        hasher.update(new TextEncoder().encode(text));
        expect(hasher.digestHex()).toBe(reference(text));
      }),
    );
  });
});
