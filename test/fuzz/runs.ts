/**
 * Run counts of the fuzz suites. `npm test` runs a short pass: a fiftieth of
 * each full count, at least 200 runs. `npm run test:fuzz` sets
 * `MEDRECORDS_FUZZ=full` and runs the full counts. `MEDRECORDS_FUZZ_RUNS=<n>`
 * sets every count to n.
 *
 * fast-check prints the seed and path of a failure; to replay it, set
 * `MEDRECORDS_FUZZ_SEED` and `MEDRECORDS_FUZZ_PATH` (both apply to every
 * property, so also name the test, e.g. with `vitest -t`).
 */

const SHORT_FRACTION = 50;
const SHORT_MIN = 200;

/** The number of runs for a property whose full count is `full`. */
export function runs(full: number): number {
  const forced = Number(process.env.MEDRECORDS_FUZZ_RUNS);
  if (Number.isInteger(forced) && forced > 0) return forced;
  if (process.env.MEDRECORDS_FUZZ === "full") return full;
  return Math.min(full, Math.max(SHORT_MIN, Math.ceil(full / SHORT_FRACTION)));
}

/** `fc.assert` parameters: the run count, plus a seed and path to replay when set. */
export function fuzzParams(full: number): { numRuns: number; seed?: number; path?: string } {
  const seed = Number(process.env.MEDRECORDS_FUZZ_SEED);
  const path = process.env.MEDRECORDS_FUZZ_PATH;
  return {
    numRuns: runs(full),
    ...(process.env.MEDRECORDS_FUZZ_SEED && Number.isInteger(seed) && { seed }),
    ...(path && { path }),
  };
}

/** Whether the full pass runs (for timeouts that scale with the count). */
export const FULL = process.env.MEDRECORDS_FUZZ === "full";
