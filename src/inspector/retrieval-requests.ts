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
  return new RequestCard(request, reasons).render();
}

/** One request's card: its fields, the provider's moves and its timeline. */
class RequestCard {
  readonly #request: InspectorRetrievalRequest;
  readonly #reasons: readonly string[];
  /** Why the moves a final request refuses are disabled; undefined while it is open. */
  readonly #closed: string | undefined;

  constructor(request: InspectorRetrievalRequest, reasons: readonly string[]) {
    this.#request = request;
    this.#reasons = reasons;
    this.#closed = request.final ? "the request is final" : undefined;
  }

  render(): HTMLElement {
    const { id } = this.#request;
    return h(
      "article",
      { class: "card", "aria-labelledby": `rr-${id}`, "data-request-id": id },
      this.#heading(),
      this.#fields(),
      this.#moves(),
      h("h4", {}, "Timeline"),
      this.#timeline(),
    );
  }

  #heading(): HTMLElement {
    const { id, status } = this.#request;
    return h(
      "h3",
      { id: `rr-${id}` },
      h("code", {}, id),
      " ",
      h("span", { class: `status ${status}` }, status),
    );
  }

  #fields(): HTMLElement {
    const request = this.#request;
    return h(
      "dl",
      {},
      field("Stage", request.stage),
      request.action_required_reason === null
        ? null
        : field("Waiting for", request.action_required_reason),
      field("Facility", request.facility),
      field("Case", request.case_id ?? "none"),
      request.external_id === null ? null : field("External id", request.external_id),
    );
  }

  #moves(): HTMLElement {
    const { id } = this.#request;
    return h(
      "form",
      {
        class: "actions",
        "data-action": "open-action-request",
        "data-id": id,
        "aria-label": `Provider moves on ${id}`,
      },
      h("div", { class: "inline" }, this.#releaseButton(), this.#completeButton()),
      this.#actionRequestFields(),
    );
  }

  // Records are still accepted once a request is final (docs/spec-decisions.md, "status moves").
  #releaseButton(): HTMLElement {
    const { id, timeline } = this.#request;
    const records = timeline.filter((entry) => entry.kind === "record").length;
    return h(
      "button",
      {
        type: "button",
        "data-action": "release-records",
        "data-id": id,
        "data-file": `records-${records + 1}.pdf`,
        "data-key": `release:${id}`,
      },
      "Release records",
    );
  }

  #completeButton(): HTMLElement {
    const { id, final } = this.#request;
    return h(
      "button",
      {
        type: "button",
        "data-action": "complete",
        "data-id": id,
        "data-key": `complete:${id}`,
        disabled: final,
        title: this.#closed,
      },
      "Complete",
    );
  }

  #actionRequestFields(): HTMLElement {
    const { id, final, actionRequestOpen } = this.#request;
    return h(
      "div",
      { class: "inline" },
      h("label", { for: `reason-${id}` }, "Reason"),
      h(
        "select",
        { id: `reason-${id}`, name: "reason", "data-key": `reason:${id}`, disabled: final },
        ...this.#reasons.map((reason) => h("option", { value: reason }, reason)),
      ),
      h("label", { for: `message-${id}` }, "Message"),
      h("input", {
        id: `message-${id}`,
        name: "message",
        value: DEFAULT_MESSAGE,
        size: 40,
        required: true,
        "data-key": `message:${id}`,
        disabled: final,
      }),
      h(
        "button",
        {
          type: "submit",
          "data-key": `open:${id}`,
          disabled: final || actionRequestOpen,
          title: this.#closed ?? (actionRequestOpen ? "an action request is open" : undefined),
        },
        "Open action request",
      ),
    );
  }

  #timeline(): HTMLElement {
    return h(
      "ol",
      { class: "timeline" },
      ...this.#request.timeline.map((entry) =>
        h("li", {}, time(entry.at), " ", h("strong", {}, entry.kind), " ", entry.text),
      ),
    );
  }
}

function field(name: string, value: string): HTMLElement[] {
  return [h("dt", {}, name), h("dd", {}, value)];
}
