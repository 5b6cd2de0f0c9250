/**
 * Appends scrubbed exchanges to a cassette file, one line each. An exchange
 * is scrubbed when it ends (later changes to the objects the call returned do
 * not reach the file); its line is serialized and written after, through one
 * append stream, so lines keep the order exchanges ended in and the call is
 * not held up by the disk.
 */
import { createWriteStream, type WriteStream } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import type { ObservedExchange } from "../core/exchange-observer.js";
import { entryOf, scrubEntry } from "./cassette-entry.js";
import { cassetteLine } from "./cassette-format.js";
import { Scrubber } from "./scrubber.js";

export class CassetteWriter {
  readonly #redact: (text: string) => string;
  readonly #scrubber = new Scrubber();
  readonly #stream: Promise<WriteStream>;

  constructor(path: string, redact: (text: string) => string) {
    this.#redact = redact;
    this.#stream = mkdir(dirname(path), { recursive: true }).then(() =>
      createWriteStream(path, { flags: "a", mode: 0o600 }),
    );
    // A directory that cannot be made fails each write (reported there), not the process.
    this.#stream.catch(() => undefined);
  }

  /** Scrubs the exchange now; resolves once its line is written. */
  write(exchange: ObservedExchange): Promise<void> {
    const entry = entryOf(exchange, this.#redact, new Date().toISOString());
    const scrubbed = scrubEntry(entry, exchange.operation, this.#scrubber, this.#redact);
    return this.#stream.then(
      (stream) =>
        new Promise<void>((resolve, reject) => {
          // Serialized on a later turn of the event loop (in order: immediates run first in, first
          // out), while the caller's next request is in flight, rather than before the call returns.
          setImmediate(() => {
            stream.write(cassetteLine(scrubbed), (error) => (error ? reject(error) : resolve()));
          });
        }),
    );
  }
}
