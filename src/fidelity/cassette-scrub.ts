/**
 * `medrecords cassette scrub <in> <out>`: an existing cassette run through
 * the recorder's scrubbing, with a key of its own (so the output cannot be
 * linked to the input's replacements). An operation the contract does not
 * know keeps its bodies' shape only.
 */
import { CONTRACT, type Operation } from "../contract/index.js";
import { scrubEntry } from "./cassette-entry.js";
import { type Cassette, cassetteLine } from "./cassette-format.js";
import { Scrubber } from "./scrubber.js";

/** The operation of a cassette entry, or undefined for an id the contract does not have. */
export function operationOf(operationId: string): Operation | undefined {
  return Object.hasOwn(CONTRACT, operationId)
    ? (CONTRACT[operationId as keyof typeof CONTRACT] as Operation)
    : undefined;
}

/**
 * The cassette's lines, scrubbed. `redact` replaces secrets the caller knows
 * (the API key from the environment) in every header value left.
 */
export async function scrubCassette(
  cassette: Cassette,
  redact: (text: string) => string = (text) => text,
): Promise<string> {
  const scrubber = new Scrubber(await import("node:crypto"));
  return cassette.entries
    .map((entry) => cassetteLine(scrubEntry(entry, operationOf(entry.operation), scrubber, redact)))
    .join("");
}
