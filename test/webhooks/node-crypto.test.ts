/**
 * The webhook tests once more, on the primitive of the `node` build of
 * `medrecords/webhooks`: tsup.config.ts builds that entry with crypto.node.ts
 * (HMAC from node:crypto, synchronous) in place of crypto.ts (Web Crypto), and
 * here the same swap is made with a mock. The imported files register their
 * tests in this file, so each runs on both primitives.
 */
import { afterEach, describe, expect, it, vi } from "vitest";

vi.mock("../../src/webhooks/crypto.js", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../../src/webhooks/crypto.js")>()),
  ...(await import("../../src/webhooks/crypto.node.js")),
}));

const { hmacSha256Hex, hmacSha256Matches } = await import("../../src/webhooks/crypto.js");
const { verifyWebhook } = await import("../../src/webhooks/index.js");
const { NOW_MS, nodeHmac, nodeSignedHeaders, SECRET, statusChanged } = await import(
  "./fixtures.js"
);

describe("the node build's primitive", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("is node:crypto's, synchronous, and never reaches Web Crypto", async () => {
    const sign = vi.spyOn(globalThis.crypto.subtle, "sign");
    const verify = vi.spyOn(globalThis.crypto.subtle, "verify");
    const body = JSON.stringify(statusChanged);
    const bytes = new TextEncoder().encode(body);
    expect(hmacSha256Hex(SECRET, bytes)).toBe(nodeHmac(SECRET, body));
    expect(hmacSha256Matches(SECRET, bytes, [nodeHmac(SECRET, body)])).toBe(true);
    const event = await verifyWebhook({
      payload: body,
      headers: nodeSignedHeaders(body),
      secret: SECRET,
      now: NOW_MS,
    });
    expect(event).toEqual(statusChanged);
    expect(sign).not.toHaveBeenCalled();
    expect(verify).not.toHaveBeenCalled();
  });

  it("signs parts as if joined, strings as UTF-8, like the Web Crypto one", async () => {
    const web = await vi.importActual<typeof import("../../src/webhooks/crypto.js")>(
      "../../src/webhooks/crypto.js",
    );
    const body = new TextEncoder().encode('{"note":"Clínica São José — 病院"}');
    const parts = ["1767225600.", body] as const;
    const joined = web.concatBytes(web.utf8("1767225600."), body);
    const expected = nodeHmac(SECRET, joined);
    expect(hmacSha256Hex(SECRET, parts)).toBe(expected);
    expect(await web.hmacSha256Hex(SECRET, parts)).toBe(expected);
    expect(await web.hmacSha256Hex(SECRET, joined)).toBe(expected);
  });
});

await import("./crypto.test.js");
await import("./verify.test.js");
await import("./verify.property.test.js");
await import("./sign.test.js");
await import("./handler.test.js");
await import("./node.test.js");
