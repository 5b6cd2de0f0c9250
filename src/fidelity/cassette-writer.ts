/**
 * Appends scrubbed exchanges to a cassette file, one line each. An exchange
 * is scrubbed when it ends (later changes to the objects the call returned do
 * not reach the file); its line is serialized and written after, through one
 * append stream, so lines keep the order exchanges ended in and the call is
 * not held up by the disk.
 */
import type { WriteStream } from "node:fs";
import type { ObservedExchange } from "../core/exchange-observer.js";
import { entryOf, scrubEntry } from "./cassette-entry.js";
import { cassetteLine } from "./cassette-format.js";
import { Scrubber } from "./scrubber.js";

export class CassetteWriter {
  readonly #redact: (text: string) => string;
  readonly #scrubber: Scrubber;
  readonly #stream: Promise<WriteStream>;

  /**
   * Node's built-ins are imported here, not at the top: this module is a lazy
   * chunk of the client, and a browser's or a Worker's bundler that inlines it
   * would otherwise hoist `import "node:fs"` into code that runs everywhere.
   */
  static async open(path: string, redact: (text: string) => string): Promise<CassetteWriter> {
    const [crypto, fs, fsPromises, nodePath] = await Promise.all([
      import("node:crypto"),
      import("node:fs"),
      import("node:fs/promises"),
      import("node:path"),
    ]);
    const stream = fsPromises
      .mkdir(nodePath.dirname(path), { recursive: true })
      .then(() => fs.createWriteStream(path, { flags: "a", mode: 0o600 }));
    return new CassetteWriter(new Scrubber(crypto), stream, redact);
  }

  private constructor(
    scrubber: Scrubber,
    stream: Promise<WriteStream>,
    redact: (text: string) => string,
  ) {
    this.#scrubber = scrubber;
    this.#redact = redact;
    this.#stream = stream;
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
