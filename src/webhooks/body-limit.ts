import type { RawBytes } from "./crypto.js";

/**
 * Largest delivery body the receiver reads by default, in bytes (1 MiB).
 * The service's events are small JSON documents, a few hundred bytes; the
 * cap bounds what an unauthenticated sender can make a receiver hold.
 */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;

/** The body is larger than the cap: answered with 413 before any verification of it. */
export class BodyTooLargeError extends Error {
  override name = "BodyTooLargeError";
  constructor(readonly maxBodyBytes: number) {
    super(
      `The request body is larger than maxBodyBytes (${maxBodyBytes} bytes); it was not read further. ` +
        "The service's deliveries are small JSON documents.",
    );
  }
}

/** The cap given as an option: a whole number of bytes >= 0, or the default. */
export function maxBodyBytesOption(value: number | undefined, owner: string): number {
  if (value === undefined) return DEFAULT_MAX_BODY_BYTES;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new TypeError(`${owner}: \`maxBodyBytes\` must be a whole number of bytes >= 0`);
  }
  return value;
}

/**
 * Whether a `Content-Length` announces more than `max` bytes. A missing or
 * malformed value says nothing (the read's own cap still holds).
 */
export function declaredLengthExceeds(contentLength: string | null | undefined, max: number) {
  if (contentLength == null) return false;
  const text = contentLength.trim();
  // Digits only: a huge value stays "larger" even past Number's exact range.
  return /^\d+$/.test(text) && Number(text) > max;
}

/**
 * A body's bytes, copied as they arrive into one buffer that doubles up to
 * the cap: however many chunks the body came in (a sender may send a
 * megabyte one byte at a time), nothing is kept per chunk. It holds at most
 * `max` bytes, and twice that for the moment it takes to grow.
 */
export class CappedBytes {
  readonly #max: number;
  #buffer: RawBytes;
  #length = 0;

  constructor(max: number) {
    this.#max = max;
    this.#buffer = new Uint8Array(Math.min(max, INITIAL_CAPACITY));
  }

  /** Bytes received so far. */
  get length(): number {
    return this.#length;
  }

  /** Copies a chunk in; `BodyTooLargeError` once the total passes the cap (nothing is copied then). */
  append(chunk: Uint8Array | string): void {
    const bytes = typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk;
    const length = this.#length + bytes.byteLength;
    if (length > this.#max) throw new BodyTooLargeError(this.#max);
    if (length > this.#buffer.byteLength) {
      let capacity = this.#buffer.byteLength * 2 || INITIAL_CAPACITY;
      while (capacity < length) capacity *= 2;
      const grown = new Uint8Array(Math.min(capacity, this.#max));
      grown.set(this.#buffer.subarray(0, this.#length));
      this.#buffer = grown;
    }
    this.#buffer.set(bytes, this.#length);
    this.#length = length;
  }

  /** The bytes received, as one array (a view of the buffer: no further copy). */
  bytes(): RawBytes {
    return this.#buffer.subarray(0, this.#length);
  }
}

/** What a body's buffer starts at: deliveries are a few hundred bytes. */
const INITIAL_CAPACITY = 16_384;

/**
 * Reads a body into one byte array, throwing `BodyTooLargeError` as soon as
 * it has more than `max` bytes: a web stream is cancelled then (nothing more
 * is pulled), an async iterable (a Node request) is left by `return()`.
 */
export async function readCapped(
  source: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array | string>,
  max: number,
): Promise<RawBytes> {
  const body = new CappedBytes(max);
  if (typeof ReadableStream !== "undefined" && source instanceof ReadableStream) {
    const reader = source.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        body.append(value);
      }
    } catch (error) {
      await reader.cancel().catch(() => undefined);
      throw error;
    } finally {
      reader.releaseLock();
    }
  } else {
    // `for await` calls the iterator's return() when append throws.
    for await (const chunk of source as AsyncIterable<Uint8Array | string>) body.append(chunk);
  }
  return body.bytes();
}
