/**
 * The cassette: one JSON object per line, one line per exchange, in the
 * order the exchanges ended. Read by `medrecords drift`, `cassette scrub`,
 * `createMockService({ from })`; written by `record: cassette(path)`.
 */

/** The format's version, in every line. */
export const CASSETTE_VERSION = 1;

/** One recorded exchange. */
export interface CassetteEntry {
  /** The cassette format's version; a reader refuses a version it does not know. */
  v: number;
  /** When the exchange ended, ISO 8601 (the recorder's clock). */
  at: string;
  /** The operationId, e.g. `getCase`. */
  operation: string;
  /** Path parameters by name, e.g. `{ case_id: "case_..." }`. */
  params: Record<string, string>;
  /** The query as sent, each value as text. */
  query: Record<string, string>;
  /** What was sent. */
  request: {
    /** Headers sent, names lower case, credentials left out. */
    headers: Record<string, string>;
    /** The JSON body sent, scrubbed; absent when none. */
    body?: unknown;
  };
  /** What came back. */
  response: {
    /** The HTTP status. */
    status: number;
    /** Headers answered, names lower case, credentials left out. */
    headers: Record<string, string>;
    /** The JSON body answered, scrubbed; absent when none. */
    body?: unknown;
  };
}

/** A cassette as loaded: its entries, in order. */
export interface Cassette {
  /** The recorded exchanges, in the order they ended. */
  readonly entries: readonly CassetteEntry[];
}

/** A cassette line that is not an exchange: the line number (1-based) and why. */
export class CassetteFormatError extends Error {
  /** Always `"CassetteFormatError"`. */
  override name = "CassetteFormatError";
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Parses a cassette's text; blank lines are skipped; throws {@link CassetteFormatError} naming the line. */
export function parseCassette(text: string): Cassette {
  const entries: CassetteEntry[] = [];
  text.split("\n").forEach((line, index) => {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new CassetteFormatError(`line ${index + 1}: not JSON`);
    }
    const problem = entryProblem(value);
    if (problem !== undefined) throw new CassetteFormatError(`line ${index + 1}: ${problem}`);
    entries.push(value as CassetteEntry);
  });
  return { entries };
}

function entryProblem(value: unknown): string | undefined {
  if (!isObject(value)) return "not an object";
  if (value.v !== CASSETTE_VERSION) return `version ${String(value.v)} is not ${CASSETTE_VERSION}`;
  if (typeof value.operation !== "string") return "no operation";
  if (!isObject(value.params) || !isObject(value.query)) return "no params or query";
  if (!isObject(value.request) || !isObject(value.response)) return "no request or response";
  if (typeof value.response.status !== "number") return "no response status";
  return undefined;
}

/** One line of a cassette, newline included. */
export function cassetteLine(entry: CassetteEntry): string {
  return `${JSON.stringify(entry)}\n`;
}
