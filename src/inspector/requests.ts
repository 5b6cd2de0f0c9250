/** The **Requests** region: the request journal, newest first. No body, header or query, so no key. */
import { h, note, table, time } from "./dom.js";
import type { InspectorView } from "./view.js";

export function requestsRegion(view: InspectorView): Node[] {
  if (view.requests.length === 0) return [note("No API request yet.")];
  const scope = view.more.requests
    ? `The newest ${view.requests.length}`
    : `${view.requests.length}`;
  return [
    table(
      `${scope} API requests, newest first`,
      ["Time", "Method", "Path template", "Status", "Request id"],
      view.requests.map((request) => [
        time(request.at),
        document.createTextNode(request.method),
        h("code", {}, request.path_template ?? "(no endpoint)"),
        document.createTextNode(request.status === 0 ? "0 (dropped)" : String(request.status)),
        h("code", {}, request.request_id),
      ]),
    ),
  ];
}
