/**
 * Appends scrubbed exchanges to a cassette file, one line each, as each
 * exchange ends. Appends are chained, so lines keep the order exchanges
 * ended in even when calls overlap.
 */
import { appendFile, mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import type { ObservedExchange } from "../core/exchange-observer.js";
import { entryOf, scrubEntry } from "./cassette-entry.js";
import { cassetteLine } from "./cassette-format.js";
import { Scrubber } from "./scrubber.js";

export class CassetteWriter {
  readonly #path: string;
  readonly #redact: (text: string) => string;
  readonly #scrubber = new Scrubber();
  #tail: Promise<unknown>;

  constructor(path: string, redact: (text: string) => string) {
    this.#path = path;
    this.#redact = redact;
    this.#tail = mkdir(dirname(path), { recursive: true });
  }

  /** Scrubs the exchange now (its values are not kept) and appends its line after the earlier ones. */
  write(exchange: ObservedExchange): Promise<void> {
    const entry = entryOf(exchange, this.#redact, new Date().toISOString());
    const line = cassetteLine(scrubEntry(entry, exchange.operation, this.#scrubber, this.#redact));
    const written = this.#tail.then(() => appendFile(this.#path, line, { mode: 0o600 }));
    // A failed append fails its own exchange's write, not the ones after it.
    this.#tail = written.catch(() => undefined);
    return written;
  }
}
