/**
 * `cassette(path)`: where `new MedRecords({ record })` writes. Only the
 * address is held here (this module is in every client bundle); the writer
 * and its scrubber load when the first exchange ends (observer.ts).
 */

/** A place recorded exchanges go to; made by {@link cassette}. */
export interface Recorder {
  /** The cassette file: JSON lines, appended to. */
  readonly path: string;
  readonly kind: "cassette";
}

/**
 * A cassette file for `new MedRecords({ record: cassette(path) })`: each
 * exchange is appended as one JSON line when it ends, scrubbed (personal
 * fields replaced by fictional values, the same input by the same value
 * within the cassette; no API key, webhook secret or presigned token).
 * Node only (it writes a file).
 *
 * @example new MedRecords({ record: cassette("recordings/staging-2026-11-28.jsonl") })
 */
export function cassette(path: string): Recorder {
  if (typeof path !== "string" || path === "") {
    throw new TypeError("cassette(path): expected the path of a file to append to.");
  }
  return Object.freeze({ kind: "cassette", path });
}
