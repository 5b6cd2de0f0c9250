/**
 * The types of `catchUp({ types, on, onEvent })`: which event each function
 * receives, narrowed by the `types` asked for (as `createWebhookHandler`'s
 * `on` is by delivery type).
 */
import type { AnyEvent } from "../schemas/event-list.js";
import type { LogEvent, LogEventType } from "../schemas/events.js";

/** The log entry of one known type, e.g. `LogEventOfType<"webhook.disabled">`. */
export type LogEventOfType<T extends LogEventType> = Extract<
  LogEvent,
  {
    /** The type to pick. */
    type: T;
  }
>;

/**
 * What `onEvent` receives: with `types`, the entries of those types; without,
 * any entry, an `UnknownEvent` of a type added after this SDK included
 * (narrow with `isKnownEvent`).
 */
export type CatchUpEvent<Types extends readonly LogEventType[] | undefined> =
  Types extends readonly (infer T extends LogEventType)[] ? LogEventOfType<T> : AnyEvent;

/** One function per event type; a type without one goes to `onEvent` only. */
export type CatchUpEventHandlers<T extends LogEventType = LogEventType> = {
  [K in T]?: (event: LogEventOfType<K>) => unknown;
};

/** The types an `on` map may name: those of `types`, or every known one without it. */
export type HandledLogType<Types extends readonly LogEventType[] | undefined> =
  Types extends readonly (infer T extends LogEventType)[] ? T : LogEventType;
