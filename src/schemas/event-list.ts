import * as z from "zod";
import type * as Wire from "../types/wire.js";
import { dateQuery, ListParams } from "./common.js";
import { LogEvent, WebhookDisabledLogEntry, WebhookEvent } from "./events.js";

/**
 * Reading the event log (spec, Events endpoints and Event log): the list
 * query, and an entry schema that stays open to event types added later.
 * The entry schemas themselves live in events.ts.
 */

/** Every event type the log can hold (the `LogEvent` union's), e.g. `retrieval_request.status_changed`. */
export const EVENT_LOG_TYPES: readonly LogEvent["type"][] = LogEvent.options.map(
  (option) => option.shape.type.value,
);

/** Most types one `type` filter may name (spec, Limits). */
export const EVENT_TYPE_FILTER_MAX = 20;

/**
 * The `type` filter as the service takes it, for the OpenAPI document: 1 to
 * {@link EVENT_TYPE_FILTER_MAX} of the {@link EVENT_LOG_TYPES}, comma-separated,
 * each with any whitespace around it. Not checked by the client, which leaves
 * which names exist to the service (a type added later can be asked for).
 */
export const EVENT_TYPE_FILTER_PATTERN: RegExp = (() => {
  const type = `\\s*(?:${EVENT_LOG_TYPES.map((t) => t.replaceAll(".", "\\.")).join("|")})\\s*`;
  return new RegExp(`^${type}(?:,${type}){0,${EVENT_TYPE_FILTER_MAX - 1}}$`);
})();

/** How long the log keeps an event, in days (spec, Limits). */
export const EVENT_RETENTION_DAYS = 30;
/** {@link EVENT_RETENTION_DAYS} in ms; an event exactly that old is still listed. */
export const EVENT_RETENTION_MS = EVENT_RETENTION_DAYS * 24 * 60 * 60 * 1000;

/**
 * Event types that are delivered but never written to the log: `webhook.test`.
 * Not an unknown type either, so no log entry can carry one.
 */
export const DELIVERY_ONLY_EVENT_TYPES: readonly string[] = WebhookEvent.options
  .map((option) => option.shape.type.value)
  .filter((type) => !(EVENT_LOG_TYPES as readonly string[]).includes(type));

const knownTypes: ReadonlySet<string> = new Set(EVENT_LOG_TYPES);
// Types a log entry can't have as an `UnknownEvent`: every type this SDK knows.
const notUnknown: ReadonlySet<string> = new Set([...EVENT_LOG_TYPES, ...DELIVERY_ONLY_EVENT_TYPES]);

/**
 * An entry whose `type` this version of the SDK does not know (a type the
 * service added later). Known types never match it: a known type whose data
 * is malformed fails validation instead of passing as unknown, and
 * `webhook.test` (never logged) is no entry at all.
 */
export const UnknownEvent = WebhookDisabledLogEntry.omit({ type: true, data: true }).extend({
  /** A type neither in {@link EVENT_LOG_TYPES} nor in {@link DELIVERY_ONLY_EVENT_TYPES}. */
  type: z.string().refine((type) => !notUnknown.has(type), {
    error: (issue) =>
      knownTypes.has(issue.input as string)
        ? "Known event type with invalid data"
        : "Never written to the event log",
  }),
  /** Unparsed: its shape is the new type's. */
  data: z.record(z.string(), z.unknown()),
});
export interface UnknownEvent extends Wire.UnknownEvent {}

/**
 * An event log entry as listed or read: one of the known `LogEvent`s, or an
 * `UnknownEvent` so that a new type never breaks a listing or the poller.
 * Narrow with `isKnownEvent` before switching on `type`.
 */
export const AnyEvent = z.union([LogEvent, UnknownEvent]);
export type AnyEvent = LogEvent | UnknownEvent;

/**
 * Whether an entry is of a type this SDK knows; narrows it to `LogEvent`, whose
 * `type` then discriminates `data`.
 *
 * @example
 * if (!isKnownEvent(event)) return; // a type added after this SDK version
 * switch (event.type) { case "retrieval_request.action_required": event.data.action_request_id; }
 */
export function isKnownEvent(event: AnyEvent): event is LogEvent {
  return knownTypes.has(event.type);
}

/** A time bound of the list: an ISO 8601 date-time, or a `Date` (sent as its ISO string). */
const TimeBound = dateQuery("date-time");

/** One `type` filter: comma-separated on the wire, an array in the SDK too. */
const TypeFilter = z
  .union([z.string(), z.array(z.string())])
  .transform((value) => (typeof value === "string" ? value.split(",") : value))
  .pipe(
    z
      .array(z.string().trim().min(1, "Expected an event type, not an empty one"))
      .min(1)
      .max(EVENT_TYPE_FILTER_MAX, `At most ${EVENT_TYPE_FILTER_MAX} event types`),
  )
  .transform((types) => types.join(","));

/**
 * Query of GET /v2/events (docs/spec-decisions.md, Events and the event
 * log). `created_after` is inclusive and `created_before` exclusive, so that
 * listing from the last processed `created_at` and deduplicating by id loses
 * no event sharing that instant. `type` takes an array or a comma-separated string of at most `EVENT_TYPE_FILTER_MAX`
 * types; which names exist is the service's to say, so that a type added
 * later can be asked for without upgrading.
 */
export const EventListParams = ListParams.extend({
  /** Only these types, e.g. `["retrieval_request.action_required"]`: at most {@link EVENT_TYPE_FILTER_MAX}. */
  type: TypeFilter.optional(),
  /** Only events created at or after this instant (inclusive). */
  created_after: TimeBound.optional(),
  /** Only events created strictly before this instant. */
  created_before: TimeBound.optional(),
  /**
   * Only events about this object: a retrieval request id (`data.retrieval_request_id`) or a
   * webhook id (`data.webhook_id`).
   */
  object_id: z.string().min(1).optional(),
});
export interface EventListParams extends Wire.EventListParams {}
