import * as events from "../contract/events.js";
import type { APIPromise } from "../core/api-promise.js";
import type { RequestOptions } from "../core/options.js";
import { type PagePromise, paginate } from "../core/pagination.js";
import { APIResource } from "../core/resource.js";
import {
  type CatchUpOptions,
  type CatchUpPoller,
  createCatchUpPoller,
  type EventLogPage,
} from "../poller/catch-up.js";
import type { ListEnvelope } from "../schemas/common.js";
import { type AnyEvent, EVENT_LOG_TYPES, type EventListParams } from "../schemas/event-list.js";
import type { EventType } from "../schemas/events.js";

/**
 * The event log: every emitted event, readable for `EVENT_RETENTION_DAYS`. Events of a
 * family the key cannot read are left out (retrieval events need
 * retrievals:read besides webhooks:read).
 */
export class Events extends APIResource {
  /**
   * Events newest first, filtered by `type` (at most `EVENT_TYPE_FILTER_MAX`), `created_after`
   * (inclusive) / `created_before` (exclusive) and `object_id`: await for a page or
   * `for await` over every event. Naming a type the key cannot read fails
   * with a `PermissionError`.
   */
  list(query: EventListParams = {}, options?: RequestOptions): PagePromise<AnyEvent, "listEvents"> {
    return paginate(this.core, events.list, { query }, options);
  }

  /** One event by id; a `NotFoundError` once it is past the log's retention (`EVENT_RETENTION_DAYS`). */
  retrieve(eventId: string, options?: RequestOptions): APIPromise<AnyEvent, "getEvent"> {
    return this.core.call(events.retrieve, { params: { id: eventId } }, options);
  }

  /**
   * A poller that hands every event newer than its checkpoint to `onEvent`,
   * oldest first, at least once, holding one page in memory whatever the
   * backlog. For history beyond the log's retention, see `onGap` and
   * `mr.retrievalRequests.changes`.
   *
   * @example
   * const poller = mr.events.catchUp({
   *   checkpoint: fileCheckpoint(".medrecords/checkpoint.json"),
   *   onEvent: async (event) => { if (isKnownEvent(event)) await handle(event); },
   *   onGap: async ({ checkpoint }) => { for await (const r of mr.retrievalRequests.changes({ since: checkpoint.created_at })) await refresh(r); },
   * });
   * const { processed, duplicates, checkpoint } = await poller.runOnce();
   * poller.start({ intervalMs: 60_000 }); // later: await poller.stop();
   */
  catchUp<const Types extends readonly EventType[] | undefined = undefined>(
    options: CatchUpOptions<Types>,
  ): CatchUpPoller {
    const read = async (call: APIPromise<ListEnvelope<AnyEvent>>): Promise<EventLogPage> => {
      const { data, response } = await call.withResponse();
      const date = Date.parse(response.headers.get("date") ?? "");
      return { ...data, serverTimeMs: Number.isNaN(date) ? undefined : date };
    };
    return createCatchUpPoller(
      {
        list: (query) => read(this.core.call(events.list, { query })),
        follow: (url) => read(this.core.call(events.list, { url })),
      },
      { ...(options as CatchUpOptions), onEvent: dispatch(options as CatchUpOptions) },
    );
  }
}

/**
 * One `onEvent` for the poller: each event to its `on` function, if any,
 * then to `onEvent`, if given. Checked here, at creation: a misspelled type
 * in `on` (possible from JavaScript) would otherwise never be called.
 */
function dispatch(options: CatchUpOptions): (event: AnyEvent) => void | Promise<void> {
  const { on, onEvent, types } = options ?? {};
  if (on !== undefined && (typeof on !== "object" || on === null)) {
    throw new TypeError("events.catchUp: `on` must be an object of functions by event type.");
  }
  const handlers = new Map<string, (event: AnyEvent) => unknown>();
  const allowed = new Set<string>(types ?? EVENT_LOG_TYPES);
  for (const [type, fn] of Object.entries(on ?? {})) {
    if (!allowed.has(type)) {
      throw new TypeError(
        `events.catchUp: \`on\` names "${type}", which ${types ? "is not in `types`" : "is not an event type"}: it would never be called.`,
      );
    }
    if (typeof fn !== "function") {
      throw new TypeError(`events.catchUp: \`on["${type}"]\` must be a function.`);
    }
    handlers.set(type, fn as (event: AnyEvent) => unknown);
  }
  if (onEvent !== undefined && typeof onEvent !== "function") {
    throw new TypeError("events.catchUp: `onEvent` must be a function.");
  }
  if (handlers.size === 0 && onEvent === undefined) {
    throw new TypeError("events.catchUp: pass `onEvent`, or `on` with a function per event type.");
  }
  // `onEvent` itself when there is no `on`: nothing between the poller and it, per event.
  if (handlers.size === 0 && onEvent !== undefined) return onEvent;
  // Synchronous unless a function returned a promise: the poller then awaits nothing per event.
  return (event) => {
    const first = handlers.get(event.type)?.(event);
    if (first !== null && typeof (first as PromiseLike<unknown> | undefined)?.then === "function") {
      return Promise.resolve(first).then(() => onEvent?.(event));
    }
    return onEvent?.(event);
  };
}
