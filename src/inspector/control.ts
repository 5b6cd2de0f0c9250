/**
 * The calls the page makes: all to this origin's control API (`/__mock/`),
 * which holds the same guard as for any caller. The page has no API key and
 * needs none: the provider's side, the clock and redelivery are control
 * operations.
 */
import type { InspectorAdvanceResult, InspectorView } from "./view.js";

/** What the control API answered when it refused: its `error.message`, or the status. */
export class ControlError extends Error {
  override name = "ControlError";
}

async function call(method: "GET" | "POST", path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`/__mock${path}`, {
    method,
    cache: "no-store",
    ...(body === undefined
      ? {}
      : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
  const answer: unknown = await response.json().catch(() => undefined);
  if (!response.ok) {
    const message = (answer as { error?: { message?: unknown } } | undefined)?.error?.message;
    throw new ControlError(typeof message === "string" ? message : `HTTP ${response.status}`);
  }
  return answer;
}

const rr = (id: string) => `/retrieval-requests/${encodeURIComponent(id)}`;

/** A few bytes standing for a released PDF: fictional, as everything in the mock. */
const FICTIONAL_RECORD =
  "%PDF-1.4\n% Fictional records released from the medrecords inspector.\n%%EOF\n";

export const control = {
  state: () => call("GET", "/state") as Promise<InspectorView>,
  /** Answers once the window's deliveries were made, with what they came to. */
  advanceClock: (by: string) =>
    call("POST", "/clock/advance", {
      by: /^\d+$/.test(by) ? Number(by) : by,
    }) as Promise<InspectorAdvanceResult>,
  releaseRecords: (id: string, fileName: string) =>
    call("POST", `${rr(id)}/records`, {
      files: [{ file_name: fileName, file_type: "application/pdf", content: FICTIONAL_RECORD }],
    }),
  openActionRequest: (id: string, reason: string, message: string) =>
    call("POST", `${rr(id)}/action-requests`, { reason, message }),
  complete: (id: string) => call("POST", `${rr(id)}/complete`),
  redeliver: (webhookId: string, deliveryId: string) =>
    call(
      "POST",
      `/webhooks/${encodeURIComponent(webhookId)}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`,
    ),
};
