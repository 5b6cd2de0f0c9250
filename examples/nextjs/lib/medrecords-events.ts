/**
 * What the app does with each webhook event, kept out of the route file
 * (a route module exports only HTTP methods and segment config).
 */
import type { EventOfType } from "medrecords/webhooks";

export type StatusChangedEvent = EventOfType<"retrieval_request.status_changed">;

/**
 * Called once per verified `retrieval_request.status_changed` delivery. The
 * service waits 5 s for the 2xx, so keep it short (store or enqueue). Throwing
 * answers 500, and the service retries the event. Events can arrive out of
 * order: fetch the retrieval request and keep it only if
 * `isNewerRetrievalRequest(fetched, cached)`.
 */
export async function onStatusChanged(event: StatusChangedEvent): Promise<void> {
  console.log(`${event.id}: retrieval request ${event.data.retrieval_request_id} changed`);
}
