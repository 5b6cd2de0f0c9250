import { describe, expect, it } from "vitest";
import {
  createWebhookHandler,
  type WebhookErrorContext,
  type WebhookVerificationError,
} from "../../src/webhooks/index.js";
import { NOW_MS, nodeSignedHeaders, statusChanged } from "./fixtures.js";
import { peakHeapGrowth } from "./tiny-chunks.js";

const URL_ = "https://receiver.example/webhooks/medrecords";

/** A body stream that counts how many chunks were pulled from it, and whether it was cancelled. */
function countingStream(chunks: number, chunkBytes: number) {
  const state = { pulls: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (state.pulls === chunks) {
          controller.close();
          return;
        }
        state.pulls++;
        controller.enqueue(new Uint8Array(chunkBytes).fill(0x20));
      },
      cancel() {
        state.cancelled = true;
      },
    },
    // Nothing is pulled until someone reads.
    { highWaterMark: 0 },
  );
  return { stream, state };
}

function post(body: BodyInit, headers: Record<string, string>): Request {
  return new Request(URL_, { method: "POST", body, headers, duplex: "half" } as RequestInit);
}

function setup(maxBodyBytes?: number) {
  const errors: Array<{ error: unknown; context: WebhookErrorContext }> = [];
  const seen: string[] = [];
  const handler = createWebhookHandler({
    secret: "whsec_c2VjcmV0LWZvci1tZWRyZWNvcmRzLXRlc3Rz",
    on: { "retrieval_request.status_changed": (event) => void seen.push(event.id) },
    now: () => NOW_MS,
    onError: (error, context) => errors.push({ error, context }),
    ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
  });
  return { handler, errors, seen };
}

/** A signed delivery of exactly `size` bytes: the event padded with spaces JSON allows. */
function signedOfSize(size: number): { body: string; headers: Record<string, string> } {
  const compact = JSON.stringify(statusChanged);
  const body = compact + " ".repeat(size - compact.length);
  expect(new TextEncoder().encode(body).byteLength).toBe(size);
  return { body, headers: nodeSignedHeaders(body, { event: statusChanged }) };
}

describe("createWebhookHandler: the body's size", () => {
  it("refuses an unsigned request of 512 MiB without reading its body", async () => {
    const { handler, errors } = setup();
    // 512 chunks of 1 MiB if anyone read them all.
    const { stream, state } = countingStream(512, 1_048_576);
    const response = await handler(post(stream, { "content-type": "application/json" }));
    expect(response.status).toBe(400);
    expect(state.pulls).toBe(0);
    expect((errors[0]!.error as WebhookVerificationError).reason).toBe("missing_header");
  });

  it("refuses a stale signed request without reading its body", async () => {
    const { handler } = setup();
    const { stream, state } = countingStream(512, 1_048_576);
    const headers = nodeSignedHeaders("{}", { ts: NOW_MS / 1000 - 3600, event: statusChanged });
    const response = await handler(post(stream, headers));
    expect(response.status).toBe(400);
    expect(state.pulls).toBe(0);
  });

  it("answers 413 to a Content-Length over maxBodyBytes, unread", async () => {
    const { handler, errors } = setup(1024);
    const { stream, state } = countingStream(4, 1024);
    const { headers } = signedOfSize(1025);
    const response = await handler(post(stream, { ...headers, "content-length": "1025" }));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: "payload_too_large" });
    expect(state.pulls).toBe(0);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.context.stage).toBe("verify");
    expect((errors[0]!.error as WebhookVerificationError).reason).toBe("body_too_large");
  });

  it("answers 413 to a default-size Content-Length of 1 MiB + 1", async () => {
    const { handler } = setup();
    const { stream, state } = countingStream(4, 1024);
    const { headers } = signedOfSize(400);
    const response = await handler(post(stream, { ...headers, "content-length": "1048577" }));
    expect(response.status).toBe(413);
    expect(state.pulls).toBe(0);
  });

  it("answers 413 to a streamed body over the cap without Content-Length, and stops reading it", async () => {
    const { handler } = setup(1024);
    // 4096 chunks of 512 bytes: the third one passes the cap.
    const { stream, state } = countingStream(4096, 512);
    const { headers } = signedOfSize(400);
    const response = await handler(post(stream, headers));
    expect(response.status).toBe(413);
    expect(state.pulls).toBe(3);
    expect(state.cancelled).toBe(true);
  });

  it("accepts a delivery of exactly maxBodyBytes, and refuses one byte more", async () => {
    const { handler, seen } = setup(1024);
    const exact = signedOfSize(1024);
    expect((await handler(post(exact.body, exact.headers))).status).toBe(200);
    expect(seen).toEqual([statusChanged.id]);

    const over = signedOfSize(1025);
    expect((await handler(post(over.body, over.headers))).status).toBe(413);
  });

  it("accepts a delivery of exactly 1 MiB by default", async () => {
    const { handler, seen } = setup();
    const exact = signedOfSize(1_048_576);
    expect((await handler(post(exact.body, exact.headers))).status).toBe(200);
    expect(seen).toHaveLength(1);
    const over = signedOfSize(1_048_577);
    expect((await handler(post(over.body, over.headers))).status).toBe(413);
  });

  it("answers 200 to a delivery streamed in a million 1-byte chunks, keeping less than 32 MiB", async () => {
    expect(globalThis.gc).toBeTypeOf("function");
    const { handler, seen } = setup();
    const { body, headers } = signedOfSize(1_000_000);
    const bytes = new TextEncoder().encode(body);
    let sent = 0;
    // A fresh 1-byte array per chunk, made as it is read, as a runtime's stream hands them over.
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          if (sent === bytes.byteLength) controller.close();
          else controller.enqueue(bytes.slice(sent, ++sent));
        },
      },
      { highWaterMark: 0 },
    );
    let status = 0;
    const growth = await peakHeapGrowth(async () => {
      status = (await handler(post(stream, headers))).status;
    });
    expect(status).toBe(200);
    expect(seen).toEqual([statusChanged.id]);
    // One buffer of the body, not an array per byte (over 200 MiB of them).
    expect(growth).toBeLessThan(32 * 1_048_576);
  });

  it("refuses an unusable maxBodyBytes at creation", () => {
    for (const maxBodyBytes of [-1, 1.5, Number.NaN]) {
      expect(() => createWebhookHandler({ secret: "whsec_x", on: {}, maxBodyBytes })).toThrow(
        /maxBodyBytes/,
      );
    }
  });
});
