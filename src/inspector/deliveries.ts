/**
 * The **Deliveries** region: each webhook with every attempt (time, status
 * code, milliseconds, error) and **Redeliver**. Never a body: the engine does
 * not read what the receiver answered.
 */
import { h, note, table, time } from "./dom.js";
import type { InspectorAttempt, InspectorView, InspectorWebhook } from "./view.js";

export function deliveriesRegion(view: InspectorView): Node[] {
  if (view.webhooks.length === 0) {
    return [note("No webhook yet: create one through the API (POST /v2/webhooks).")];
  }
  return view.webhooks.map(webhookCard);
}

function webhookCard(webhook: InspectorWebhook): HTMLElement {
  const state = webhook.is_enabled
    ? `enabled, ${webhook.consecutive_failures} failed events in a row`
    : "disabled";
  return h(
    "article",
    { class: "card", "aria-label": `Webhook ${webhook.name}`, "data-webhook-id": webhook.id },
    h("h3", {}, webhook.name, " ", h("code", {}, webhook.id)),
    h("p", {}, h("code", {}, webhook.url), ` (${state}); events: ${webhook.events.join(", ")}`),
    webhook.attempts.length === 0
      ? note("No delivery attempt yet.")
      : table(
          `Delivery attempts to ${webhook.name}, newest first`,
          [
            "Sent",
            "Event",
            "Attempt",
            "Result",
            "Status code",
            "Time (ms)",
            "Error",
            "Next attempt",
            "",
          ],
          webhook.attempts.map((attempt) => attemptRow(webhook, attempt)),
        ),
  );
}

function attemptRow(webhook: InspectorWebhook, attempt: InspectorAttempt): Node[] {
  const kind = attempt.is_redelivery ? " (redelivery)" : attempt.is_test ? " (test)" : "";
  return [
    time(attempt.at),
    h(
      "span",
      {},
      h("code", { class: "type" }, attempt.event_type),
      h("br"),
      h("code", { class: "id" }, attempt.event_id),
    ),
    document.createTextNode(`${attempt.attempt}${kind}`),
    h(
      "span",
      { class: attempt.success ? "ok" : "failed" },
      attempt.success ? "delivered" : "failed",
    ),
    document.createTextNode(attempt.status_code === null ? "none" : String(attempt.status_code)),
    document.createTextNode(String(attempt.duration_ms)),
    document.createTextNode(attempt.error ?? ""),
    attempt.next_attempt_at === null ? document.createTextNode("") : time(attempt.next_attempt_at),
    h(
      "button",
      {
        type: "button",
        "data-action": "redeliver",
        "data-webhook": webhook.id,
        "data-id": attempt.id,
        "data-key": `redeliver:${attempt.id}`,
        "aria-label": `Redeliver ${attempt.event_type} ${attempt.event_id}`,
      },
      "Redeliver",
    ),
  ];
}
