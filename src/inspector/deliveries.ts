/**
 * The **Deliveries** region: each webhook with every attempt (time, status
 * code, milliseconds, error) and **Redeliver**, and its health as the API
 * counts it. Never a body: the records keep none of what the receiver answered.
 */
import { h, note, table, time } from "./dom.js";
import type { InspectorAttempt, InspectorView, InspectorWebhook } from "./view.js";

export function deliveriesRegion(view: InspectorView): Node[] {
  if (view.webhooks.length === 0) {
    return [note("No webhook yet: create one through the API (POST /v2/webhooks).")];
  }
  return view.webhooks.map(webhookCard);
}

/**
 * The webhook's health as the API counts it: an event counts as failed once
 * every one of its attempts failed, so attempts failing now show as the last
 * failure before the count moves.
 */
function health(webhook: InspectorWebhook): string {
  const failure = webhook.last_failure;
  const last =
    failure === null
      ? ""
      : `; last failed attempt ${failure.at}: ${failure.status_code === null ? "no answer" : `HTTP ${failure.status_code}`}`;
  if (!webhook.is_enabled) {
    return webhook.auto_disabled_at === null
      ? `disabled${last}`
      : `disabled at ${webhook.auto_disabled_at} after 5 failed events in a row${last}`;
  }
  return `enabled; consecutive_failures ${webhook.consecutive_failures} of 5 (events whose every attempt failed)${last}`;
}

function webhookCard(webhook: InspectorWebhook): HTMLElement {
  return h(
    "article",
    { class: "card", "aria-label": `Webhook ${webhook.name}`, "data-webhook-id": webhook.id },
    h("h3", {}, webhook.name, " ", h("code", {}, webhook.id)),
    h("p", {}, h("code", {}, webhook.url), `; events: ${webhook.events.join(", ")}`),
    h("p", { class: "health" }, health(webhook)),
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
