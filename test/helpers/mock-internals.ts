/**
 * Hooks into the reference server's model for this project's own tests: kept
 * out of src/ and of `medrecords/mock`, whose users drive events through the
 * control API (`retrievalRequests.setStatus(...)` and friends).
 */

import { type EventLogEntry, eventLogOf } from "../../src/mock/model/event-log.js";
import { emitEvent } from "../../src/mock/model/events.js";
import { createMockServiceInternal } from "../../src/mock/service/create-mock-service.js";
import {
  contextOf,
  type InternalMockServiceOptions,
  type MockService,
  type MockServiceCore,
  type MockServiceOptions,
} from "../../src/mock/service/service.js";

/** `createMockService` with the internal options (a short delivery timeout). */
export function createMockServiceForTesting(
  options: MockServiceOptions & InternalMockServiceOptions = {},
): MockService {
  const { deliveryTimeoutMs, publicAddressesForTesting, ...rest } = options;
  return createMockServiceInternal(rest, { deliveryTimeoutMs, publicAddressesForTesting });
}

/** Emits an event as the service would: logged, then delivered to subscribed webhooks. */
export function emitEventForTesting(
  mock: MockServiceCore,
  type: string,
  data: Record<string, unknown>,
  options: { requestId?: string; id?: string } = {},
): EventLogEntry {
  return emitEvent(contextOf(mock), type, data, options);
}

/** The event log, oldest first, whatever its retention and scopes. */
export function eventLogForTesting(mock: MockServiceCore): EventLogEntry[] {
  return [...eventLogOf(contextOf(mock)).events.values()]
    .sort((a, b) => a.seq - b.seq)
    .map((stored) => ({ ...stored.value, data: { ...stored.value.data } }));
}
