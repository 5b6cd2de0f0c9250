/** `medrecords/mock`: the stateful reference server for tests. */
export type { MockClock } from "./clock.js";
export type { CreateApiKeyOptions, Scope } from "./model/api-keys.js";
export type { DeliveryMode, InboxDelivery } from "./model/delivery.js";
export {
  createMockService,
  type MockApiKeys,
  type MockDeliveries,
  type MockService,
  type MockServiceOptions,
} from "./service.js";
