/** `medrecords/mock`: the stateful reference server for tests. */
export type { MockClock } from "./clock.js";
export type { CreateApiKeyOptions, Scope } from "./model/api-keys.js";
export type { DeliveryMode, InboxDelivery } from "./model/delivery.js";
export { MOCK_FACILITIES } from "./model/facilities.js";
export type {
  MockActionRequest,
  MockFileContent,
  MockInvoice,
  MockOpenedActionRequest,
  MockRecordFile,
  MockRetrievalRequests,
} from "./retrieval-control.js";
export {
  createMockService,
  type MockApiKeys,
  type MockDeliveries,
  type MockService,
  type MockServiceOptions,
} from "./service.js";
