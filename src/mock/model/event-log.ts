/**
 * The event log's storage: every emitted event as the log renders it (spec,
 * Event). Writing here delivers nothing; `emitEvent` in events.ts writes and
 * then hands the event to the delivery engine. Kept apart so that the engine
 * can log `webhook.disabled` without depending on its own caller.
 */
import { EVENT_API_VERSION } from "../../schemas/events.js";
import {
  defineSlice,
  type MockState,
  type ModelContext,
  nextSequence,
  nowIso,
  type Stored,
} from "./state.js";

/** An event log entry (spec, Event). */
export interface EventLogEntry {
  id: string;
  object: "event";
  type: string;
  created_at: string;
  api_version: string;
  request_id: string | null;
  data: Record<string, unknown>;
}

export interface StoredEvent extends Stored<EventLogEntry> {
  /** The `data` of the webhook body; the log's may carry more (status_changed adds status and stage). */
  readonly bodyData: Record<string, unknown>;
}

/**
 * An event's place in the log's order: `created_at` in epoch ms, then log
 * sequence. The log's `order` keeps one per event, smallest first, so a
 * page is a binary search away (event-list.ts).
 */
export interface OrderedEvent {
  readonly ms: number;
  readonly seq: number;
  readonly stored: StoredEvent;
}

/** The event log: this module's slice of the state. */
export interface EventLog {
  /** Every event by id. */
  readonly events: Map<string, StoredEvent>;
  /** The same events by `created_at`, then sequence, oldest first; kept by appendEvent and pruneExpiredEvents. */
  readonly order: OrderedEvent[];
}

const eventLogSlice = defineSlice("eventLog", (): EventLog => ({ events: new Map(), order: [] }));

/** The event log of the context's current state (or of `state`), for the modules that read it. */
export function eventLogOf(owner: ModelContext | MockState): EventLog {
  return eventLogSlice.of(owner);
}

export interface AppendEventOptions {
  /** X-Request-Id of the API call that caused the event. */
  requestId?: string | null | undefined;
  /** The event id; retrieval events get their deterministic id from their emitter. */
  id?: string | undefined;
  /** Log `data` when it differs from the webhook body's `data`. */
  logData?: Record<string, unknown> | undefined;
  /**
   * When the triggering change happened, in epoch ms, if not now: the engine
   * disables a webhook at the mock time of the failed attempt, which the
   * clock may have passed by the time the attempt's answer arrived.
   * @default the clock's time
   */
  atMs?: number | undefined;
}

/**
 * A fresh event id from the service's id source: `rr-` + 64 hex for
 * retrieval events (their shape in the spec), `evt_<uuid>` for the others.
 */
export function newEventId(ctx: ModelContext, type: string): string {
  return type.startsWith("retrieval_request.")
    ? ctx.ids.hex("event", "rr-", 64)
    : `evt_${ctx.ids.uuid("event")}`;
}

/** Writes an event to the log at the clock's time and returns what was stored. */
export function appendEvent(
  ctx: ModelContext,
  type: string,
  data: Record<string, unknown>,
  options: AppendEventOptions = {},
): StoredEvent {
  const entry: EventLogEntry = {
    id: options.id ?? newEventId(ctx, type),
    object: "event",
    type,
    created_at: options.atMs === undefined ? nowIso(ctx) : new Date(options.atMs).toISOString(),
    api_version: EVENT_API_VERSION,
    request_id: options.requestId ?? null,
    data: { ...(options.logData ?? data) },
  };
  const stored: StoredEvent = {
    seq: nextSequence(ctx.state),
    value: entry,
    bodyData: { ...data },
  };
  const { events, order } = eventLogSlice.of(ctx);
  const replaced = events.get(entry.id);
  if (replaced !== undefined) {
    // An id logged again (never by the service itself; ids are unique per occurrence).
    const at = order.findIndex((e) => e.stored === replaced);
    if (at >= 0) order.splice(at, 1);
  }
  events.set(entry.id, stored);
  // Its sequence is the newest, so it goes after every event of its
  // `created_at` or earlier: at the end, except for an event stamped in the
  // past (webhook.disabled at its failed attempt's time).
  const ms = Date.parse(entry.created_at);
  order.splice(firstAbove(order, ms), 0, {
    ms,
    seq: stored.seq,
    stored,
  });
  return stored;
}

/** The index of the first event of `order` created after `ms`. */
export function firstAbove(order: readonly OrderedEvent[], ms: number): number {
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((order[mid] as OrderedEvent).ms <= ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
