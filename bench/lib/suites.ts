/** Every suite (`bench/suites/<name>.ts`), in the order of BENCHMARKS.md and the performance table. */
export const SUITES = [
  "verify-node",
  "verify-webcrypto",
  "client-overhead",
  "upload",
  "custody",
  "pagination",
  "fidelity",
  "poller",
  "mock-http",
  "mock-snapshot",
  "mock-lists",
  "mock-advance",
  "listen",
  "bundle-size",
] as const;
