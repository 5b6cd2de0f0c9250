/**
 * The package's version. It is written in one place, package.json: the build
 * (tsup.config.ts), the tests (vitest.config.ts) and the test bundles of the
 * CLI (test/helpers/bundle.ts) replace `__MEDRECORDS_VERSION__` with it. Code
 * run from src/ any other way gets `0.0.0-dev` instead of a ReferenceError.
 */
declare const __MEDRECORDS_VERSION__: string | undefined;

export const VERSION: string =
  typeof __MEDRECORDS_VERSION__ === "string" ? __MEDRECORDS_VERSION__ : "0.0.0-dev";
