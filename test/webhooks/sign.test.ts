import { describe, expect, it } from "vitest";
import { signWebhook, WEBHOOK_HEADERS } from "../../src/webhooks/index.js";
import { nodeHmac, SECRET, statusChanged, TS } from "./fixtures.js";

describe("signWebhook", () => {
  const body = JSON.stringify(statusChanged);

  it("returns the delivery headers of the spec, v1 over timestamp and body, v0 over the body", async () => {
    expect(await signWebhook({ payload: body, secret: SECRET, timestamp: TS })).toEqual({
      [WEBHOOK_HEADERS.eventId]: statusChanged.id,
      [WEBHOOK_HEADERS.eventType]: statusChanged.type,
      [WEBHOOK_HEADERS.timestamp]: String(TS),
      [WEBHOOK_HEADERS.signatureV1]: `v1=${nodeHmac(SECRET, `${TS}.${body}`)}`,
      [WEBHOOK_HEADERS.signatureLegacy]: `v0=${nodeHmac(SECRET, body)}`,
    });
  });

  it("takes a Date and defaults to now", async () => {
    const fromDate = await signWebhook({
      payload: body,
      secret: SECRET,
      timestamp: new Date(TS * 1000 + 999),
    });
    expect(fromDate[WEBHOOK_HEADERS.timestamp]).toBe(String(TS));
    const before = Math.floor(Date.now() / 1000);
    const fresh = await signWebhook({ payload: body, secret: SECRET });
    expect(Number(fresh[WEBHOOK_HEADERS.timestamp])).toBeGreaterThanOrEqual(before);
  });

  it("omits the event headers for a body that is not an event", async () => {
    const headers = await signWebhook({
      payload: new Uint8Array([1, 2, 3]),
      secret: SECRET,
      timestamp: TS,
    });
    expect(Object.keys(headers).sort()).toEqual([
      WEBHOOK_HEADERS.signatureLegacy,
      WEBHOOK_HEADERS.signatureV1,
      WEBHOOK_HEADERS.timestamp,
    ]);
  });

  it("refuses a timestamp in milliseconds and an empty secret", async () => {
    await expect(
      signWebhook({ payload: body, secret: SECRET, timestamp: TS * 1000 }),
    ).rejects.toThrow(/milliseconds/);
    await expect(signWebhook({ payload: body, secret: "", timestamp: TS })).rejects.toThrow(
      TypeError,
    );
  });
});
