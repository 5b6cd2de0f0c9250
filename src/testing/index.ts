/**
 * `medrecords/testing`: the reference server in your own test suite. A
 * lifecycle for Vitest and Jest (`useMockService`), fictional clients whose
 * values are canaries (`FICTIONAL_CLIENTS`), and the check that none of them
 * leaves your application except towards the API (`captureLeaks`,
 * `assertNoCanaryLeak`). Imports no test runner; msw (2 or 3) only when you
 * pass its `setupServer`.
 *
 * @module medrecords/testing
 */
export {
  assertNoCanaryLeak,
  type CanaryFinding,
  type CapturedRequest,
  findCanaries,
  type LeakSources,
  PhiLeakError,
  scanForCanaries,
} from "./canary-scan.js";
export {
  type Canary,
  FICTIONAL_CLIENTS,
  type FictionalClient,
  PHI_CANARIES,
} from "./fictional-clients.js";
export { type CaptureLeaksOptions, captureLeaks, type LeakCapture } from "./leak-capture.js";
export {
  type MockTestHandle,
  type MswServerLike,
  type TestHooks,
  type UseMockServiceOptions,
  useMockService,
} from "./lifecycle.js";
