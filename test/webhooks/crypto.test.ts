import { describe, expect, it } from "vitest";
import { timingSafeEqualHex, utf8 } from "../../src/webhooks/crypto.js";
import { hmacSha256Hex, hmacSha256Matches } from "../../src/webhooks/hmac.js";
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

describe("hmacSha256Matches", () => {
  const data = utf8("1767225600.{}");
  const right = nodeHmac("whsec_m", "1767225600.{}");
  const wrong = right.replace(/^./, (c) => (c === "0" ? "1" : "0"));

  it("is true when any candidate is the HMAC, whichever position it has", async () => {
    expect(await hmacSha256Matches("whsec_m", data, [right])).toBe(true);
    expect(await hmacSha256Matches("whsec_m", data, [wrong, right])).toBe(true);
    expect(await hmacSha256Matches("whsec_m", data, [right, wrong])).toBe(true);
    expect(await hmacSha256Matches("whsec_m", ["1767225600.", utf8("{}")], [right])).toBe(true);
  });

  it("is false for another HMAC, another secret or no candidate", async () => {
    expect(await hmacSha256Matches("whsec_m", data, [wrong])).toBe(false);
    expect(await hmacSha256Matches("whsec_other", data, [right])).toBe(false);
    expect(await hmacSha256Matches("whsec_m", data, [])).toBe(false);
  });

  it("never matches a malformed candidate: uppercase, short, long or not hex", async () => {
    for (const candidate of [
      right.toUpperCase(),
      right.slice(0, 62),
      `${right}00`,
      `${right.slice(0, 62)}zz`,
      "",
    ]) {
      expect(await hmacSha256Matches("whsec_m", data, [candidate]), candidate).toBe(false);
    }
  });
});
