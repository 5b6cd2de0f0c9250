/**
 * Hooks into the reference server for this project's own tests. Not exported
 * from `medrecords/mock`: users drive events through the control API
 * (`retrievalRequests.setStatus(...)` and friends).
 */

import { createMockServiceInternal } from "./create-mock-service.js";
import type { EventLogEntry } from "./model/event-log.js";
import { emitEvent } from "./model/events.js";
import {
  contextOf,
  type InternalMockServiceOptions,
  type MockService,
  type MockServiceCore,
  type MockServiceOptions,
} from "./service.js";

/** `createMockService` with the internal options (a short delivery timeout). */
export function createMockServiceForTesting(
  options: MockServiceOptions & InternalMockServiceOptions = {},
): MockService {
  const { deliveryTimeoutMs, ...rest } = options;
  return createMockServiceInternal(rest, { deliveryTimeoutMs });
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
  return [...contextOf(mock).state.events.values()]
    .sort((a, b) => a.seq - b.seq)
    .map((stored) => ({ ...stored.value, data: { ...stored.value.data } }));
}
