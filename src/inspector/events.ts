/** The **Events** region: the event log, newest first, filtered by type and by object or event id. */
import { h, note, table, time } from "./dom.js";
import type { InspectorView } from "./view.js";

export interface EventFilter {
  /** An event type, or "" for every type. */
  type: string;
  /** Part of an object id (retrieval request, webhook) or of an event id; "" for any. */
  text: string;
}

/** The type filter's choices: every type in the log, plus the one chosen even when gone. */
export function eventTypeOptions(view: InspectorView, chosen: string): string[] {
  const types = new Set(view.events.map((event) => event.type));
  if (chosen !== "") types.add(chosen);
  return [...types].sort();
}

export function eventsRegion(view: InspectorView, filter: EventFilter): Node[] {
  const text = filter.text.trim();
  const shown = view.events.filter(
    (event) =>
      (filter.type === "" || event.type === filter.type) &&
      (text === "" || event.id.includes(text) || (event.object_id ?? "").includes(text)),
  );
  if (view.events.length === 0) return [note("The event log is empty.")];
  const scope = view.more.events ? `the newest ${view.events.length}` : `${view.events.length}`;
  return [
    table(
      `${shown.length} of ${scope} events`,
      ["Time", "Type", "Object", "Event id", "Request id", "Data"],
      shown.map((event) => [
        time(event.created_at),
        h("code", { class: "type" }, event.type),
        h("code", {}, event.object_id ?? "none"),
        h("code", { class: "id" }, event.id),
        h("code", {}, event.request_id ?? "none (provider)"),
        h(
          "details",
          { "data-key": `event:${event.id}` },
          h("summary", {}, "data"),
          h("pre", {}, JSON.stringify(event.data, null, 2)),
        ),
      ]),
    ),
  ];
}
