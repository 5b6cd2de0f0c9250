/**
 * `medrecords/mock`: the stateful reference server for tests, in process
 * (`createMockService`, through MSW or its own `fetch`) or over HTTP
 * (`startMockServer`). Needs `msw` only for `handlers`, loaded when they are
 * first read.
 *
 * @module medrecords/mock
 */
export type { MockAutopilotOptions } from "./controls/autopilot.js";
export {
  type Cassette,
  type CassetteEntry,
  CassetteFormatError,
  type MockCassetteSource,
  parseCassette,
} from "./controls/cassette-seed.js";
export type {
  MockActionRequest,
  MockFileContent,
  MockInvoice,
  MockOpenedActionRequest,
  MockRecordFile,
  MockRetrievalRequests,
} from "./controls/retrieval-control.js";
export type {
  MockSeed,
  MockSeedCase,
  MockSeedOptions,
  MockSeedRetrievalRequest,
} from "./controls/seed.js";
export type { MockSnapshot } from "./controls/snapshot.js";
export type { CreateApiKeyOptions, Scope } from "./model/api-keys.js";
export { MOCK_FACILITIES } from "./model/facilities.js";
export type {
  ActionResponseRecord as MockActionResponse,
  UploadedFile as MockUploadedFile,
} from "./model/retrieval-requests.js";
export type { MockClock, MockClockAdvanceResult, MockClockMode } from "./runtime/clock.js";
export type {
  DeliveryFlushResult,
  DeliveryMode,
  DeliveryTarget,
  FailedDeliveryAttempt,
  InboxDelivery,
} from "./runtime/delivery-runtime.js";
export type {
  MockFaultConfig,
  MockFaultOptions,
  MockFaultReorder,
  MockFaultStatus,
  MockFaultTiming,
} from "./runtime/fault-options.js";
export type { MockFaults } from "./runtime/faults.js";
export {
  MOCK_REQUEST_JOURNAL_LIMIT,
  type MockRequestJournal,
  type MockRequestRecord,
} from "./runtime/request-journal.js";
export {
  type MockServer,
  MockServerListenError,
  type MockServerOptions,
  startMockServer,
} from "./server/http-server.js";
export { createMockService } from "./service/create-mock-service.js";
export type {
  MockApiKeys,
  MockDeliveries,
  MockService,
  MockServiceCore,
  MockServiceOptions,
} from "./service/service.js";
