/**
 * `medrecords/mock`: the stateful reference server for tests, in process
 * (`createMockService`, through MSW or its own `fetch`) or over HTTP
 * (`startMockServer`). Needs `msw` only for `handlers`, loaded when they are
 * first read.
 *
 * @module medrecords/mock
 */
export type { MockAutopilotOptions } from "./autopilot.js";
export {
  type Cassette,
  type CassetteEntry,
  CassetteFormatError,
  type MockCassetteSource,
  parseCassette,
} from "./cassette-seed.js";
export type { MockClock, MockClockAdvanceResult, MockClockMode } from "./clock.js";
export { createMockService } from "./create-mock-service.js";
export type {
  DeliveryFlushResult,
  DeliveryMode,
  DeliveryTarget,
  FailedDeliveryAttempt,
  InboxDelivery,
} from "./delivery-runtime.js";
export type {
  MockFaultConfig,
  MockFaultOptions,
  MockFaultReorder,
  MockFaultStatus,
  MockFaultTiming,
} from "./fault-options.js";
export type { MockFaults } from "./faults.js";
export {
  type MockServer,
  MockServerListenError,
  type MockServerOptions,
  startMockServer,
} from "./http-server.js";
export type { CreateApiKeyOptions, Scope } from "./model/api-keys.js";
export { MOCK_FACILITIES } from "./model/facilities.js";
export type {
  ActionResponseRecord as MockActionResponse,
  UploadedFile as MockUploadedFile,
} from "./model/retrieval-requests.js";
export {
  MOCK_REQUEST_JOURNAL_LIMIT,
  type MockRequestJournal,
  type MockRequestRecord,
} from "./request-journal.js";
export type {
  MockActionRequest,
  MockFileContent,
  MockInvoice,
  MockOpenedActionRequest,
  MockRecordFile,
  MockRetrievalRequests,
} from "./retrieval-control.js";
export type {
  MockSeed,
  MockSeedCase,
  MockSeedOptions,
  MockSeedRetrievalRequest,
} from "./seed.js";
export type {
  MockApiKeys,
  MockDeliveries,
  MockService,
  MockServiceCore,
  MockServiceOptions,
} from "./service.js";
export type { MockSnapshot } from "./snapshot.js";
