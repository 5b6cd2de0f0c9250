import { afterEach, describe, expect, it, vi } from "vitest";
import { createWebhookHandler } from "../../src/webhooks/index.js";
import { documentsAvailable, NOW_MS, nodeSignedHeaders, SECRET } from "./fixtures.js";

function delivery(event: object, options: { secret?: string } = {}): Request {
  const body = JSON.stringify(event);
  return new Request("https://receiver.example/webhooks/medrecords", {
    method: "POST",
    body,
    headers: { "content-type": "application/json", ...nodeSignedHeaders(body, options) },
  });
}

/** Every console.error call, its arguments as given. */
function captureErrors(): unknown[][] {
  const calls: unknown[][] = [];
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
    calls.push(args);
  });
  return calls;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("createWebhookHandler's default onError", () => {
  it("logs one line without a stack for a refused delivery: stage and reason", async () => {
    const calls = captureErrors();
    const handler = createWebhookHandler({ secret: SECRET, on: {}, now: () => NOW_MS });
    const response = await handler(delivery(documentsAvailable, { secret: "whsec_b3RoZXI=" }));
    expect(response.status).toBe(400);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toHaveLength(1);
    const line = calls[0]?.[0] as string;
    expect(typeof line).toBe("string");
    expect(line).toMatch(/^medrecords\/webhooks: delivery refused at verify: signature_mismatch: /);
    expect(line).not.toContain("\n");
    expect(line).not.toMatch(/\bat .*:\d+:\d+/);
  });

  it("names the event id when the failure comes after verification", async () => {
    const calls = captureErrors();
    const handler = createWebhookHandler({
      secret: SECRET,
      on: {
        "retrieval_request.documents_available": () => {
          throw new Error("database down\n  while syncing");
        },
      },
      now: () => NOW_MS,
    });
    expect((await handler(delivery(documentsAvailable))).status).toBe(500);
    expect(calls).toEqual([
      [
        `medrecords/webhooks: delivery failed at handler: Error: database down while syncing (event ${documentsAvailable.id})`,
      ],
    ]);
  });

  it("also passes the error itself, stack and cause, with logErrorDetails: true", async () => {
    const calls = captureErrors();
    const failure = new Error("database down", { cause: new Error("ECONNREFUSED") });
    const handler = createWebhookHandler({
      secret: SECRET,
      on: {
        "retrieval_request.documents_available": () => {
          throw failure;
        },
      },
      now: () => NOW_MS,
      logErrorDetails: true,
    });
    await handler(delivery(documentsAvailable));
    expect(calls).toHaveLength(1);
    expect(calls[0]?.[0]).toMatch(/^medrecords\/webhooks: delivery failed at handler: /);
    expect(calls[0]?.[1]).toBe(failure);
  });

  it("stays silent when onError is given, logErrorDetails or not", async () => {
    const calls = captureErrors();
    const seen: string[] = [];
    const handler = createWebhookHandler({
      secret: SECRET,
      on: {},
      now: () => NOW_MS,
      logErrorDetails: true,
      onError: (_error, { stage }) => seen.push(stage),
    });
    await handler(delivery(documentsAvailable, { secret: "whsec_b3RoZXI=" }));
    expect(seen).toEqual(["verify"]);
    expect(calls).toEqual([]);
  });
});
