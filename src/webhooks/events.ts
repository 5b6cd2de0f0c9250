/**
 * Types derived from the delivery bodies' types (those come from the zod
 * schemas, as types only: see index.ts).
 */
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
