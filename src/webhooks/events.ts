/**
 * Types of the delivery bodies. Only types come from the zod schemas, so
 * verifying a delivery loads and runs no zod; parse with the `WebhookEvent`
 * zod schema when a full check of `data` is wanted.
 *
 * A newer service may send a type this version does not list: verification
 * still returns it (it is signed), so end a `switch (event.type)` with a
 * default branch.
 */
export type {
  RetrievalEventData,
  RetrievalRequestActionRequiredData,
  RetrievalRequestActionRequiredEvent,
  RetrievalRequestDocumentsAvailableData,
  RetrievalRequestDocumentsAvailableEvent,
  RetrievalRequestStatusChangedData,
  RetrievalRequestStatusChangedEvent,
  WebhookEvent,
  WebhookEventType,
  WebhookTestData,
  WebhookTestEvent,
} from "../schemas/events.js";

import type { WebhookEvent, WebhookEventType } from "../schemas/events.js";

/** The event of one type, e.g. `EventOfType<"webhook.test">`. */
export type EventOfType<T extends WebhookEventType> = Extract<
  WebhookEvent,
  {
    /** The type to pick. */
    type: T;
  }
>;

/** Types a handler can act on: every delivered type but `webhook.test`, which only needs a 2xx. */
export type HandledEventType = Exclude<WebhookEventType, "webhook.test">;
