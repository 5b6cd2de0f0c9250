/**
 * The **Retrieval requests** region: each request with its timeline (status
 * changes, action requests and their answers, records, invoices) and the
 * provider's moves: **Release records**, **Open action request**, **Complete**.
 */
import { h, note, time } from "./dom.js";
import type { InspectorRetrievalRequest, InspectorView } from "./view.js";

const DEFAULT_MESSAGE = "Please sign and return the attached HIPAA authorization.";

export function retrievalRequestsRegion(view: InspectorView): Node[] {
  if (view.retrievalRequests.length === 0) {
    return [
      note("No retrieval request yet: create one through the API (POST /v2/retrieval-requests)."),
    ];
  }
  return [
    ...(view.more.retrievalRequests
      ? [note(`The newest ${view.retrievalRequests.length} retrieval requests.`)]
      : []),
    ...view.retrievalRequests.map((request) => requestCard(request, view.actionRequiredReasons)),
  ];
}

function requestCard(request: InspectorRetrievalRequest, reasons: readonly string[]): HTMLElement {
  const { id } = request;
  const headingId = `rr-${id}`;
  const records = request.timeline.filter((entry) => entry.kind === "record").length;
  const closed = request.final ? "the request is final" : undefined;
  return h(
    "article",
    { class: "card", "aria-labelledby": headingId, "data-request-id": id },
    h(
      "h3",
      { id: headingId },
      h("code", {}, id),
      " ",
      h("span", { class: `status ${request.status}` }, request.status),
    ),
    h(
      "dl",
      {},
      field("Stage", request.stage),
      request.action_required_reason === null
        ? null
        : field("Waiting for", request.action_required_reason),
      field("Facility", request.facility),
      field("Case", request.case_id ?? "none"),
      request.external_id === null ? null : field("External id", request.external_id),
    ),
    h(
      "form",
      {
        class: "actions",
        "data-action": "open-action-request",
        "data-id": id,
        "aria-label": `Provider moves on ${id}`,
      },
      h(
        "div",
        { class: "inline" },
        h(
          "button",
          {
            type: "button",
            "data-action": "release-records",
            "data-id": id,
            "data-file": `records-${records + 1}.pdf`,
            "data-key": `release:${id}`,
            disabled: request.final,
            title: closed,
          },
          "Release records",
        ),
        h(
          "button",
          {
            type: "button",
            "data-action": "complete",
            "data-id": id,
            "data-key": `complete:${id}`,
            disabled: request.final,
            title: closed,
          },
          "Complete",
        ),
      ),
      h(
        "div",
        { class: "inline" },
        h("label", { for: `reason-${id}` }, "Reason"),
        h(
          "select",
          {
            id: `reason-${id}`,
            name: "reason",
            "data-key": `reason:${id}`,
            disabled: request.final,
          },
          ...reasons.map((reason) => h("option", { value: reason }, reason)),
        ),
        h("label", { for: `message-${id}` }, "Message"),
        h("input", {
          id: `message-${id}`,
          name: "message",
          value: DEFAULT_MESSAGE,
          size: 40,
          required: true,
          "data-key": `message:${id}`,
          disabled: request.final,
        }),
        h(
          "button",
          {
            type: "submit",
            "data-key": `open:${id}`,
            disabled: request.final || request.actionRequestOpen,
            title: closed ?? (request.actionRequestOpen ? "an action request is open" : undefined),
          },
          "Open action request",
        ),
      ),
    ),
    h("h4", {}, "Timeline"),
    h(
      "ol",
      { class: "timeline" },
      ...request.timeline.map((entry) =>
        h("li", {}, time(entry.at), " ", h("strong", {}, entry.kind), " ", entry.text),
      ),
    ),
  );
}

function field(name: string, value: string): HTMLElement[] {
  return [h("dt", {}, name), h("dd", {}, value)];
}
