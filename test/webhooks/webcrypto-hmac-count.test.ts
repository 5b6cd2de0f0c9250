/**
 * What a delivery costs on the Web Crypto build (the default one, used on
 * Workers, Deno, browsers): the HMAC is computed once per secret, however
 * many `v1=` candidates the header holds, each then compared in constant
 * time. node-crypto.test.ts checks the same on the `node` build.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { utf8 } from "../../src/webhooks/crypto.js";
import { hmacSha256Matches } from "../../src/webhooks/hmac.js";
import { verifyWebhook, WebhookVerificationError } from "../../src/webhooks/index.js";
import { MAX_SIGNATURE_CANDIDATES } from "../../src/webhooks/verify.js";
import {
  NOW_MS,
  nodeHmac,
  nodeSignedHeaders,
  OTHER_SECRET,
  SECRET,
  statusChanged,
} from "./fixtures.js";

const body = JSON.stringify(statusChanged);
const signed = nodeSignedHeaders(body);
const wrong = (i: number) => `v1=${i.toString(16).padStart(64, "0")}`;
const candidates = (n: number, valid?: string) => [
  ...Array.from({ length: n - (valid ? 1 : 0) }, (_, i) => wrong(i + 1)),
  ...(valid ? [valid] : []),
];
const SECRETS = [OTHER_SECRET, "whsec_decoy", SECRET];

function spySubtle() {
  return {
    sign: vi.spyOn(globalThis.crypto.subtle, "sign"),
    verify: vi.spyOn(globalThis.crypto.subtle, "verify"),
  };
}

describe("the Web Crypto build's cost per delivery", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it.each([1, 2, MAX_SIGNATURE_CANDIDATES])(
    "signs once per secret for %i wrong candidates, and never calls verify",
    async (n) => {
      const { sign, verify } = spySubtle();
      const error = await verifyWebhook({
        payload: body,
        headers: { ...signed, "x-service-signature-v1": candidates(n).join(",") },
        secret: SECRETS,
        now: NOW_MS,
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WebhookVerificationError);
      expect((error as WebhookVerificationError).reason).toBe("signature_mismatch");
      expect(sign).toHaveBeenCalledTimes(SECRETS.length);
      expect(verify).not.toHaveBeenCalled();
    },
  );

  it("signs once per secret tried when the valid signature is the last of MAX_SIGNATURE_CANDIDATES", async () => {
    const { sign, verify } = spySubtle();
    const event = await verifyWebhook({
      payload: body,
      headers: {
        ...signed,
        "x-service-signature-v1": candidates(
          MAX_SIGNATURE_CANDIDATES,
          signed["x-service-signature-v1"],
        ).join(" "),
      },
      secret: SECRETS,
      now: NOW_MS,
    });
    expect(event).toEqual(statusChanged);
    // The matching secret is the last: every one was tried, each once.
    expect(sign).toHaveBeenCalledTimes(SECRETS.length);
    expect(verify).not.toHaveBeenCalled();
  });

  it("computes no HMAC for a header holding one candidate too many", async () => {
    const { sign, verify } = spySubtle();
    const error = await verifyWebhook({
      payload: body,
      headers: {
        ...signed,
        "x-service-signature-v1": candidates(MAX_SIGNATURE_CANDIDATES + 1).join(","),
      },
      secret: SECRETS,
      now: NOW_MS,
    }).catch((e: unknown) => e);
    expect((error as WebhookVerificationError).reason).toBe("malformed_header");
    expect(sign).not.toHaveBeenCalled();
    expect(verify).not.toHaveBeenCalled();
  });

  it("hmacSha256Matches signs once for any number of candidates, the right one anywhere", async () => {
    const data = utf8("1767225600.{}");
    const right = nodeHmac(SECRET, "1767225600.{}");
    const hexes = candidates(50).map((c) => c.slice(3));
    for (const at of [0, 25, 50]) {
      const { sign } = spySubtle();
      const list = [...hexes.slice(0, at), right, ...hexes.slice(at)];
      expect(await hmacSha256Matches(SECRET, data, list)).toBe(true);
      expect(sign).toHaveBeenCalledTimes(1);
      vi.restoreAllMocks();
    }
  });
});
