import { describe, expect, it } from "vitest";
import { hmacSha256Hex, timingSafeEqualHex, utf8 } from "../../src/webhooks/crypto.js";
import { nodeHmac } from "./fixtures.js";

describe("timingSafeEqualHex", () => {
  it("is true only for equal strings", () => {
    expect(timingSafeEqualHex("abc123", "abc123")).toBe(true);
    expect(timingSafeEqualHex("", "")).toBe(true);
    expect(timingSafeEqualHex("abc123", "abc124")).toBe(false);
    expect(timingSafeEqualHex("0bc123", "abc123")).toBe(false);
  });

  it("is false for a prefix or an extension, in either order", () => {
    expect(timingSafeEqualHex("abc", "abc0")).toBe(false);
    expect(timingSafeEqualHex("abc0", "abc")).toBe(false);
    expect(timingSafeEqualHex("abc", "abc\u0000")).toBe(false);
    expect(timingSafeEqualHex("", "a")).toBe(false);
  });
});

describe("hmacSha256Hex", () => {
  it("matches node:crypto, with the whole whsec_ string as key, across many secrets", async () => {
    // More secrets than the key cache holds, twice, to go through eviction.
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 100; i++) {
        const secret = `whsec_${i}`;
        expect(await hmacSha256Hex(secret, utf8("1.{}"))).toBe(nodeHmac(secret, "1.{}"));
      }
    }
  });
});
