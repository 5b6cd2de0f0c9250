/**
 * examples/fastify.ts through `app.inject()`: the webhook plugin's Buffer
 * parser keeps the raw bytes for verification, and only inside the plugin.
 */
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { createApp, main } from "../../examples/fastify.js";
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

function start(onEvent: (event: WebhookEvent) => unknown = () => {}) {
  const events = vi.fn(onEvent);
  // The app's log lines, as JSON objects.
  const logs: Array<Record<string, unknown>> = [];
  const app = createApp({
    secret: SECRET,
    onEvent: events,
    fastify: {
      logger: { level: "warn", stream: { write: (line: string) => logs.push(JSON.parse(line)) } },
    },
  });
  onTestFinished(() => app.close());
  const deliver = ({ body, headers }: Delivery) =>
    app.inject({ method: "POST", url: WEBHOOK_PATH, headers, payload: body });
  return { app, events, logs, deliver };
}

describe("examples/fastify.ts", () => {
  it("accepts a signed delivery and hands the event to onEvent", async () => {
    const { events, deliver } = start();
    const response = await deliver(await signed(CANONICAL_BODY));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ received: true });
    expect(events).toHaveBeenCalledTimes(1);
    expect(events.mock.calls[0]![0]).toMatchObject({ id: EVENT_ID, type: EVENT_TYPE });
  });

  it("verifies the bytes as sent: a body that re-serializing would change still verifies", async () => {
    await expectRawBytesVerified(start());
  });

  it("refuses a tampered body and a wrong secret with 400, without calling onEvent", async () => {
    const { events, logs, deliver } = start();
    for (const delivery of [await tampered(), await signed(CANONICAL_BODY, OTHER_SECRET)]) {
      const response = await deliver(delivery);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ error: "invalid_webhook" });
    }
    expect(events).not.toHaveBeenCalled();
    expect(logs.map((line) => line.reason)).toEqual(["signature_mismatch", "signature_mismatch"]);
    expect(JSON.stringify(logs)).not.toContain(SECRET);
  });

  it("scopes the Buffer parser to the webhook plugin: other routes still parse JSON", async () => {
    const { app, events, deliver } = start();
    const note = await app.inject({
      method: "POST",
      url: "/api/notes",
      headers: { "content-type": "application/json" },
      payload: '{ "text" : "call the clinic" }',
    });
    expect(note.statusCode).toBe(201);
    expect(note.json()).toEqual({ received: { text: "call the clinic" } });

    const response = await deliver(await signed(NON_CANONICAL_BODY));
    expect(response.statusCode).toBe(200);
    expect(events).toHaveBeenCalledTimes(1);
  });

  it("answers 500 without the error's message when onEvent throws, so that the service retries", async () => {
    const { logs, deliver } = start(() => {
      throw new Error("database down");
    });
    const response = await deliver(await signed(CANONICAL_BODY));
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ error: "webhook_handler_failed" });
    expect(logs).toEqual([
      expect.objectContaining({ eventId: EVENT_ID, msg: "webhook event failed" }),
    ]);
  });

  it("main() listens with the secret from the environment, and refuses to start without it", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const running = await main({
      MEDRECORDS_WEBHOOK_SECRET: SECRET,
      PORT: "0",
      LOG_LEVEL: "silent",
    });
    onTestFinished(() => running.close());
    expect(running.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+${WEBHOOK_PATH}$`));
    const { body, headers } = await signed(CANONICAL_BODY);
    const response = await fetch(running.url, { method: "POST", headers, body });
    expect(response.status).toBe(200);
    expect(log.mock.calls.at(-1)?.[0]).toBe(`${EVENT_ID}: retrieval request rr_01J9Z changed`);

    await expect(main({ PORT: "0" })).rejects.toThrow(/MEDRECORDS_WEBHOOK_SECRET/);
  });
});
