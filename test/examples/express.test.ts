/**
 * examples/express.ts over real HTTP: the webhook route verifies the raw
 * bytes even though the app parses JSON everywhere else.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { createApp, main } from "../../examples/express.js";
import type { WebhookEvent } from "../../src/webhooks/index.js";
import {
  CANONICAL_BODY,
  type Delivery,
  EVENT_ID,
  EVENT_TYPE,
  expectRawBytesVerified,
  NON_CANONICAL_BODY,
  OTHER_SECRET,
  SECRET,
  signed,
  tampered,
  WEBHOOK_PATH,
} from "./recipes.js";

afterEach(() => {
  vi.restoreAllMocks();
});

async function start(onEvent: (event: WebhookEvent) => unknown = () => {}) {
  const events = vi.fn(onEvent);
  const server: Server = createApp({ secret: SECRET, onEvent: events }).listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const deliver = ({ body, headers }: Delivery) =>
    fetch(`${base}${WEBHOOK_PATH}`, { method: "POST", headers, body });
  return { base, events, deliver };
}

function quietWarnings() {
  return vi.spyOn(console, "warn").mockImplementation(() => {});
}

describe("examples/express.ts", () => {
  it("accepts a signed delivery and hands the event to onEvent", async () => {
    const { events, deliver } = await start();
    const response = await deliver(await signed(CANONICAL_BODY));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true });
    expect(events).toHaveBeenCalledTimes(1);
    expect(events.mock.calls[0]![0]).toMatchObject({ id: EVENT_ID, type: EVENT_TYPE });
  });

  it("verifies the bytes as sent: a body that re-serializing would change still verifies", async () => {
    await expectRawBytesVerified(await start());
  });

  it("refuses a tampered body and a wrong secret with 400, without calling onEvent", async () => {
    const warn = quietWarnings();
    const { events, deliver } = await start();
    for (const delivery of [await tampered(), await signed(CANONICAL_BODY, OTHER_SECRET)]) {
      const response = await deliver(delivery);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: "invalid_webhook" });
    }
    expect(events).not.toHaveBeenCalled();
    expect(warn).toHaveBeenCalledTimes(2);
    for (const [line] of warn.mock.calls) {
      expect(line).toContain("(signature_mismatch)");
      expect(line).not.toContain(SECRET);
    }
  });

  it("keeps express.json() for the rest of the app, and it does not eat the webhook body", async () => {
    const { base, events, deliver } = await start();
    const note = await fetch(`${base}/api/notes`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{ "text" : "call the clinic" }',
    });
    expect(note.status).toBe(201);
    // Parsed into an object by express.json(), not left as raw bytes.
    expect(await note.json()).toEqual({ received: { text: "call the clinic" } });

    // The same app, the same content type: the webhook route still sees raw bytes.
    const response = await deliver(await signed(NON_CANONICAL_BODY));
    expect(response.status).toBe(200);
    expect(events).toHaveBeenCalledTimes(1);
  });

  it("answers 500 when onEvent throws, so that the service retries", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const { deliver } = await start(() => {
      throw new Error("database down");
    });
    const response = await deliver(await signed(CANONICAL_BODY));
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: "webhook_handler_failed" });
    expect(error.mock.calls[0]?.[0]).toContain(EVENT_ID);
  });

  it("main() listens with the secret from the environment, and refuses to start without it", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const running = await main({ MEDRECORDS_WEBHOOK_SECRET: SECRET, PORT: "0" });
    onTestFinished(() => running.close());
    expect(running.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+${WEBHOOK_PATH}$`));
    const { body, headers } = await signed(CANONICAL_BODY);
    const response = await fetch(running.url, { method: "POST", headers, body });
    expect(response.status).toBe(200);
    expect(log.mock.calls.at(-1)?.[0]).toBe(`${EVENT_ID}: retrieval request rr_01J9Z changed`);

    await expect(main({ PORT: "0" })).rejects.toThrow(/MEDRECORDS_WEBHOOK_SECRET/);
  });
});
