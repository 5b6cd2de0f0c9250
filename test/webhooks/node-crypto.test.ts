/**
 * The webhook tests once more, on the primitive of the `node` build of
 * `medrecords/webhooks` under the `node` condition: the package's `#hmac`
 * import resolves to hmac-node.ts (HMAC from node:crypto, synchronous) there
 * and to hmac.ts (Web Crypto) elsewhere, and here the same swap is made with
 * a mock of hmac.ts, which `#hmac` resolves to in the tests. The imported files register their
 * tests in this file, so each runs on both primitives.
 */
import { afterEach, describe, expect, it, vi } from "vitest";

vi.mock("../../src/webhooks/hmac.js", () => import("../../src/webhooks/hmac-node.js"));

// Every HMAC of the node build goes through createHmac: counted, otherwise unchanged.
vi.mock("node:crypto", async (importOriginal) => {
  const original = await importOriginal<typeof import("node:crypto")>();
  return { ...original, createHmac: vi.fn(original.createHmac) };
});

const { createHmac } = await import("node:crypto");
const { hmacSha256Hex, hmacSha256Matches } = await import("../../src/webhooks/hmac.js");
const { MAX_SIGNATURE_CANDIDATES } = await import("../../src/webhooks/verify.js");
const { verifyWebhook } = await import("../../src/webhooks/index.js");
const { NOW_MS, nodeHmac, nodeSignedHeaders, OTHER_SECRET, SECRET, statusChanged } = await import(
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

  it("computes one HMAC per secret, however many v1= candidates the header holds", async () => {
    const body = JSON.stringify(statusChanged);
    const headers = nodeSignedHeaders(body);
    const wrongs = Array.from(
      { length: MAX_SIGNATURE_CANDIDATES - 1 },
      (_, i) => `v1=${(i + 1).toString(16).padStart(64, "0")}`,
    );
    const secrets = [OTHER_SECRET, "whsec_decoy", SECRET];
    const verifyWith = (last: string | undefined) =>
      verifyWebhook({
        payload: body,
        headers: { ...headers, "x-service-signature-v1": [...wrongs, last].join(",") },
        secret: secrets,
        now: NOW_MS,
      });

    vi.mocked(createHmac).mockClear();
    // The matching secret is the last: every one is tried, each once.
    await expect(verifyWith(headers["x-service-signature-v1"])).resolves.toEqual(statusChanged);
    expect(createHmac).toHaveBeenCalledTimes(secrets.length);

    vi.mocked(createHmac).mockClear();
    await expect(verifyWith(`v1=${"f".repeat(64)}`)).rejects.toMatchObject({
      reason: "signature_mismatch",
    });
    expect(createHmac).toHaveBeenCalledTimes(secrets.length);
  });

  it("signs parts as if joined, strings as UTF-8, like the Web Crypto one", async () => {
    const web = await vi.importActual<typeof import("../../src/webhooks/hmac.js")>(
      "../../src/webhooks/hmac.js",
    );
    const { concatBytes, utf8 } = await import("../../src/webhooks/crypto.js");
    const body = new TextEncoder().encode('{"note":"Clínica São José — 病院"}');
    const parts = ["1767225600.", body] as const;
    const joined = concatBytes(utf8("1767225600."), body);
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
