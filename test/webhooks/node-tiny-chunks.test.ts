import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createWebhookHandler, toNodeListener } from "../../src/webhooks/index.js";
import { NOW_MS, nodeSignedHeaders, SECRET, statusChanged } from "./fixtures.js";
import { peakHeapGrowth, postInOneByteChunks } from "./tiny-chunks.js";

const MiB = 1_048_576;
// The receiver keeps a 1 MiB body in one buffer, about 10 MiB with the
// parser's own; one that kept a Buffer per byte grew by over 200 MiB.
const MEMORY_BOUND = 32 * MiB;

const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

async function listen(listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A signed delivery of `size` bytes: the event padded with the spaces JSON allows. */
function signedOfSize(size: number) {
  const compact = JSON.stringify(statusChanged);
  const body = compact + " ".repeat(size - compact.length);
  return { body, headers: nodeSignedHeaders(body, { event: statusChanged }) };
}

function receiver(seen: string[]) {
  return toNodeListener(
    createWebhookHandler({
      secret: SECRET,
      on: { "retrieval_request.status_changed": (event) => void seen.push(event.id) },
      now: () => NOW_MS,
      onError: () => {},
    }),
    // What is measured here is memory, not time: on a busy machine, a million
    // chunks from a sender in the same process can outlast the default deadline.
    { bodyTimeoutMs: 80_000 },
  );
}

describe("toNodeListener and createWebhookHandler: a body sent one byte per HTTP chunk", () => {
  it("answers 200 to a genuine delivery of a million 1-byte chunks, keeping less than 32 MiB", {
    timeout: 90_000,
  }, async () => {
    expect(globalThis.gc).toBeTypeOf("function");
    const seen: string[] = [];
    const base = await listen(receiver(seen));
    const { body, headers } = signedOfSize(1_000_000);
    let status = 0;
    const growth = await peakHeapGrowth(async () => {
      status = await postInOneByteChunks(base, headers, body);
    });
    expect(status).toBe(200);
    expect(seen).toEqual([statusChanged.id]);
    expect(growth).toBeLessThan(MEMORY_BOUND);
  });

  it("answers 413 to 3 MiB of 1-byte chunks with the signature headers, keeping less than 32 MiB", {
    timeout: 90_000,
  }, async () => {
    const base = await listen(receiver([]));
    // Any v1= of 64 hex digits and a fresh timestamp get the body read.
    const { body, headers } = signedOfSize(3 * MiB);
    let status = 0;
    const growth = await peakHeapGrowth(async () => {
      status = await postInOneByteChunks(base, headers, body);
    });
    expect(status).toBe(413);
    expect(growth).toBeLessThan(MEMORY_BOUND);
  });

  it("hands the handler such a body in pieces as the socket was read, not one per byte", async () => {
    let pieces = 0;
    let bytes = 0;
    const base = await listen(
      toNodeListener(async (request) => {
        for await (const piece of request.body as unknown as AsyncIterable<Uint8Array>) {
          pieces += 1;
          bytes += piece.byteLength;
        }
        return new Response("ok");
      }),
    );
    const size = 200_000;
    expect(await postInOneByteChunks(base, {}, "x".repeat(size))).toBe(200);
    expect(bytes).toBe(size);
    // A socket read carries thousands of them: a piece per byte would be 200 000.
    expect(pieces).toBeLessThan(size / 100);
  });
});
