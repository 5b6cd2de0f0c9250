/**
 * Reading the event log (spec, Events and Event log): retention, scope per
 * event family, filters, and keyset pagination newest first.
 *
 * Order is `created_at` descending, ties broken by log sequence descending.
 * `created_at` is not always in sequence order (the delivery engine stamps
 * `webhook.disabled` with the time of the failed attempt), so the cursor
 * names a position by both, never by sequence alone: a walk neither loses
 * nor repeats an event, even among events sharing one `created_at`.
 */
import {
  DELIVERY_ONLY_EVENT_TYPES,
  EVENT_LOG_TYPES,
  EVENT_RETENTION_DAYS,
  EVENT_RETENTION_MS,
} from "../../schemas/event-list.js";
import type { Scope } from "../../schemas/scopes.js";
import { MockApiError, notFound } from "../runtime/http-error.js";
import { type ApiKeyRecord, requireScope } from "./api-keys.js";
import {
  type EventLogEntry,
  eventLogOf,
  firstAbove,
  type OrderedEvent,
  type StoredEvent,
} from "./event-log.js";
import { type Page, type PageRequest, paginateSorted } from "./paginate.js";
import { type ModelContext, nowMs } from "./state.js";

/**
 * The read scope of an event's family, needed beside webhooks:read:
 * retrievals:read for `retrieval_request.*`; `webhook.*` (and any other
 * family) needs only webhooks:read.
 */
export function eventReadScope(type: string): Scope {
  return type.startsWith("retrieval_request.") ? "retrievals:read" : "webhooks:read";
}

/** Whether the log still holds an event: EVENT_RETENTION_DAYS old exactly is kept, a millisecond more is gone. */
function isRetained(createdAtMs: number, now: number): boolean {
  return createdAtMs >= now - EVENT_RETENTION_MS;
}

/** Drops every event past retention; the log answers as if they never existed. */
export function pruneExpiredEvents(ctx: ModelContext): void {
  const now = nowMs(ctx);
  const { events, order: eventOrder } = eventLogOf(ctx);
  // Oldest first: the expired events are a prefix of the order.
  const retained = eventOrder.findIndex((event) => isRetained(event.ms, now));
  const expired = eventOrder.splice(0, retained === -1 ? eventOrder.length : retained);
  for (const { stored } of expired) events.delete(stored.value.id);
}

function render(stored: StoredEvent): EventLogEntry {
  return { ...stored.value, data: { ...stored.value.data } };
}

/** GET /v2/events/{id}: 404 when absent or past retention, 403 when the key cannot read its family. */
export function getEvent(ctx: ModelContext, key: ApiKeyRecord, id: string): EventLogEntry {
  pruneExpiredEvents(ctx);
  const stored = eventLogOf(ctx).events.get(id);
  if (stored === undefined)
    throw notFound(
      `No event with this id (or it is past the ${EVENT_RETENTION_DAYS}-day retention).`,
    );
  requireScope(key, eventReadScope(stored.value.type));
  return render(stored);
}

export interface EventFilters {
  /** Already split on commas; each must be a known type the key can read. */
  types?: readonly string[] | undefined;
  /** ISO date-time, exclusive. */
  createdAfter?: string | undefined;
  /** ISO date-time, exclusive. */
  createdBefore?: string | undefined;
  /** Matches `data.retrieval_request_id` or `data.webhook_id`. */
  objectId?: string | undefined;
}

/**
 * GET /v2/events. Without `types`, events of families the key cannot read
 * are left out; naming such a type is 403 insufficient_scope. An unknown
 * type name is 400 validation_error.
 */
export function listEvents(
  ctx: ModelContext,
  key: ApiKeyRecord,
  filters: EventFilters,
  request: PageRequest,
): Page<EventLogEntry> {
  const types = filters.types === undefined ? undefined : new Set(filters.types);
  if (types !== undefined) {
    const known: readonly string[] = EVENT_LOG_TYPES;
    const neverLogged = [...types].filter((type) => DELIVERY_ONLY_EVENT_TYPES.includes(type));
    if (neverLogged.length > 0) {
      throw new MockApiError(
        400,
        "validation_error",
        `type: ${neverLogged.join(", ")} is never written to the event log (test deliveries are not logged); expected any of ${known.join(", ")}`,
      );
    }
    const unknown = [...types].filter((type) => !known.includes(type));
    if (unknown.length > 0) {
      throw new MockApiError(
        400,
        "validation_error",
        `type: Unknown event type ${unknown.map((t) => JSON.stringify(t)).join(", ")}; expected any of ${known.join(", ")}`,
      );
    }
    for (const type of types) requireScope(key, eventReadScope(type));
  }
  const after = filters.createdAfter === undefined ? undefined : toBound(filters.createdAfter);
  const before = filters.createdBefore === undefined ? undefined : toBound(filters.createdBefore);

  pruneExpiredEvents(ctx);
  const { order } = eventLogOf(ctx);
  const matches = ({ stored }: OrderedEvent): boolean => {
    const { type, data } = stored.value;
    if (types !== undefined ? !types.has(type) : !key.scopes.has(eventReadScope(type)))
      return false;
    return (
      filters.objectId === undefined ||
      data.retrieval_request_id === filters.objectId ||
      data.webhook_id === filters.objectId
    );
  };
  // Newest first by created_at, then by log sequence: webhook.disabled is
  // stamped with its failed attempt's time, which may precede events logged before it.
  const range = boundedRange(order, after, before);
  const page = paginateSorted(order, (e) => [e.ms, e.seq], matches, request, 2, range);
  return { ...page, results: page.results.map((item) => render(item.stored)) };
}

/**
 * The events from `after` (inclusive) up to `before` (exclusive), as a range
 * of the order (created_at is its first key). Inclusive `after` makes the
 * catch-up recipe lossless: listing from the last processed created_at and
 * deduplicating by id keeps the events that share it (docs/spec-decisions.md,
 * Events and the event log). A bound with sub-millisecond digits sits between
 * two whole milliseconds.
 */
function boundedRange(
  order: readonly OrderedEvent[],
  after: { ms: number; subMs: boolean } | undefined,
  before: { ms: number; subMs: boolean } | undefined,
): { from: number; to: number } {
  if (Number.isNaN(after?.ms) || Number.isNaN(before?.ms)) return { from: 0, to: 0 };
  const from = after === undefined ? 0 : firstAbove(order, after.subMs ? after.ms : after.ms - 1);
  const to =
    before === undefined ? order.length : firstAbove(order, before.ms - (before.subMs ? 0 : 1));
  return { from, to: Math.max(from, to) };
}

/** An instant of a query bound: whole milliseconds, and whether digits below a millisecond follow. */
function toBound(iso: string): { ms: number; subMs: boolean } {
  const fraction = /\.(\d+)/.exec(iso)?.[1] ?? "";
  const ms = Date.parse(iso.replace(/\.(\d+)/, fraction ? `.${fraction.slice(0, 3)}` : ""));
  return { ms, subMs: /[1-9]/.test(fraction.slice(3)) };
}
