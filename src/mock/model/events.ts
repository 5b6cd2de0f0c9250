/**
 * Emitting events: every event is written to the log, then handed to the
 * delivery engine for the webhooks subscribed to it.
 */
import { toOutgoing } from "./delivery-attempt.js";
import { type AppendEventOptions, appendEvent, type EventLogEntry } from "./event-log.js";
import type { ModelContext } from "./state.js";
import { dispatchEvent } from "./webhook-dispatch.js";

/**
 * Logs an event at the clock's time and starts its deliveries. `data` is the
 * webhook body's data; `options.logData` replaces it in the log when the log
 * carries more (status_changed also logs status, stage and reason).
 */
export function emitEvent(
  ctx: ModelContext,
  type: string,
  data: Record<string, unknown>,
  options: AppendEventOptions = {},
): EventLogEntry {
  const stored = appendEvent(ctx, type, data, options);
  const { id, created_at } = stored.value;
  dispatchEvent(ctx, toOutgoing({ id, type, created_at, data: stored.bodyData }));
  return { ...stored.value, data: { ...stored.value.data } };
}
