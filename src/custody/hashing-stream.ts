import type { Sha256 } from "./sha256.js";

/** What streamed: its length and SHA-256. */
export interface StreamDigest {
  bytes: number;
  sha256: string;
}

/**
 * `source` passed through unchanged, each chunk hashed as it goes by. When
 * `source` ends, `onEnd` runs with the digest before the stream closes: if it
 * rejects, the stream errors instead of closing, so a reader sees the failure
 * rather than a clean end. A stream that errors or is cancelled never calls
 * `onEnd`. Pull-based: nothing is read ahead of the reader, nothing buffered.
 */
export function hashingStream(
  source: ReadableStream<Uint8Array>,
  hasher: Sha256,
  onEnd: (digest: StreamDigest) => unknown,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let bytes = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { value, done } = await reader.read();
        if (done) {
          await onEnd({ bytes, sha256: hasher.digestHex() });
          controller.close();
          return;
        }
        hasher.update(value);
        bytes += value.byteLength;
        controller.enqueue(value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
