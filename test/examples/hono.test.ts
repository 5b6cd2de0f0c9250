/**
 * examples/hono.ts through `app.request()`: `c.req.raw` reaches the webhook
 * handler unread, so it verifies the bytes as sent.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApp, type StatusChangedEvent } from "../../examples/hono.js";
import {
  CANONICAL_BODY,
  type Delivery,
  EVENT_ID,
  EVENT_TYPE,
  expectRawBytesVerified,
  OTHER_SECRET,
  requestInit,
  SECRET,
  signed,
  tampered,
  WEBHOOK_PATH,
} from "./recipes.js";

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

function start(onStatusChanged: (event: StatusChangedEvent) => unknown = () => {}) {
  const events = vi.fn(onStatusChanged);
  const app = createApp({ secret: SECRET, onStatusChanged: events });
  const deliver = async (delivery: Delivery) => app.request(WEBHOOK_PATH, requestInit(delivery));
  return { app, events, deliver };
}

describe("examples/hono.ts", () => {
  it("accepts a signed delivery and hands the event to onStatusChanged", async () => {
    const { events, deliver } = start();
    const response = await deliver(await signed(CANONICAL_BODY));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true });
    expect(events).toHaveBeenCalledTimes(1);
    expect(events.mock.calls[0]![0]).toMatchObject({ id: EVENT_ID, type: EVENT_TYPE });
  });

  it("verifies the bytes as sent: a body that re-serializing would change still verifies", async () => {
    await expectRawBytesVerified(start());
  });

  it("refuses a tampered body and a wrong secret with 400, without calling onStatusChanged", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const { events, deliver } = start();
    for (const delivery of [await tampered(), await signed(CANONICAL_BODY, OTHER_SECRET)]) {
      const response = await deliver(delivery);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: "invalid_webhook" });
    }
    expect(events).not.toHaveBeenCalled();
    expect(error).toHaveBeenCalledTimes(2);
    // The default log: one line per refused delivery, its reason, no stack.
    for (const call of error.mock.calls) {
      expect(call).toEqual([
        expect.stringContaining("delivery refused at verify: signature_mismatch"),
      ]);
    }
  });

  it("acknowledges a repeated delivery without running onStatusChanged again", async () => {
    const { events, deliver } = start();
    expect((await deliver(await signed(CANONICAL_BODY))).status).toBe(200);
    const again = await deliver(await signed(CANONICAL_BODY));
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    expect(events).toHaveBeenCalledTimes(1);
  });

  it("answers 500 when onStatusChanged throws, so that the service retries", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const { deliver } = start(() => {
      throw new Error("database down");
    });
    expect((await deliver(await signed(CANONICAL_BODY))).status).toBe(500);
  });

  it("other routes still read JSON bodies", async () => {
    const { app } = start();
    const note = await app.request("/api/notes", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{ "text" : "call the clinic" }',
    });
    expect(note.status).toBe(201);
    expect(await note.json()).toEqual({ received: { text: "call the clinic" } });
  });

  it("reads the secret from MEDRECORDS_WEBHOOK_SECRET, and refuses to start without it", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    vi.stubEnv("MEDRECORDS_WEBHOOK_SECRET", SECRET);
    const app = createApp();
    const response = await app.request(WEBHOOK_PATH, requestInit(await signed(CANONICAL_BODY)));
    expect(response.status).toBe(200);
    expect(log.mock.calls.at(-1)?.[0]).toBe(`${EVENT_ID}: retrieval request rr_01J9Z changed`);

    vi.stubEnv("MEDRECORDS_WEBHOOK_SECRET", undefined);
    expect(() => createApp()).toThrow(/environment variable/);
  });
});
