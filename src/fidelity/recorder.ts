/**
 * `cassette(path)`: where `new MedRecords({ record })` writes. Only the
 * address and the writes in flight are held here (this module is in every
 * client bundle); the writer and its scrubber load when the first exchange
 * ends (observer.ts).
 */

import type { Recorder } from "../core/exchange-observer.js";

export type { Recorder } from "../core/exchange-observer.js";

/** Lets a writer tell its recorder about each line it appends (internal). */
export const TRACK_WRITE = Symbol("medrecords.cassette.track");

/** What `cassette()` makes: a `Recorder` that its writer tells about each line (internal). */
export interface CassetteRecorder extends Recorder {
  readonly [TRACK_WRITE]: (write: Promise<unknown>) => void;
}

/**
 * A cassette file for `new MedRecords({ record: cassette(path) })`: each
 * exchange, as it ended, is scrubbed (personal fields replaced by fictional
 * values, the same input by the same value within the cassette; no API key,
 * webhook secret or presigned token) and appended as one JSON line, in the
 * order exchanges end, on a worker thread of its own: the call is not held
 * up. Node only (it writes a file from a `worker_threads` thread).
 *
 * @example
 * const recording = cassette("recordings/staging-2026-11-28.jsonl");
 * const mr = new MedRecords({ record: recording });
 * // ... calls ...
 * await recording.flush();
 */
export function cassette(path: string): Recorder {
  return cassetteRecorder(path);
}

function cassetteRecorder(path: string): CassetteRecorder {
  if (typeof path !== "string" || path === "") {
    throw new TypeError("cassette(path): expected the path of a file to append to.");
  }
  let pending: Promise<unknown> = Promise.resolve();
  return Object.freeze({
    kind: "cassette",
    path,
    flush: () => pending.then(() => undefined),
    [TRACK_WRITE]: (write: Promise<unknown>) => {
      const settled = write.then(
        () => undefined,
        () => undefined,
      );
      pending = Promise.all([pending, settled]);
    },
  });
}
