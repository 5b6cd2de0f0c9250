/**
 * The event log. Both operations need webhooks:read; each event also needs
 * the read scope of its family (retrievals:read for `retrieval_request.*`),
 * which the log filters on rather than refuses.
 */
import { ListEnvelope } from "../schemas/common.js";
import {
  AnyEvent,
  EVENT_RETENTION_DAYS,
  EVENT_TYPE_FILTER_MAX,
  EVENT_TYPE_FILTER_PATTERN,
  EventListParams,
} from "../schemas/event-list.js";
import { defineOperation } from "./operation.js";

export const EventList = ListEnvelope(AnyEvent);

export const list = defineOperation({
  operationId: "listEvents",
  method: "GET",
  path: "/v2/events",
  summary: "List the event log, newest first",
  tag: "Events",
  query: EventListParams,
  parameters: {
    type: {
      description: `Comma-separated event types, at most ${EVENT_TYPE_FILTER_MAX}, e.g. \`retrieval_request.status_changed,webhook.disabled\`; an unknown type, an empty one or one more is 400 \`validation_error\`.`,
      pattern: EVENT_TYPE_FILTER_PATTERN,
    },
    created_after:
      "Only events created at or after this instant (inclusive): list from the last processed `created_at` and deduplicate by id.",
    created_before: "Only events created strictly before this instant.",
    object_id: "Only events about this retrieval request or webhook.",
  },
  status: 200,
  response: EventList,
  list: true,
  scope: "webhooks:read",
  scopes: ["webhooks:read", "retrievals:read"],
  scopeWhen: {
    "retrievals:read":
      "to list `retrieval_request.*` events (left out without it; naming one in `type` is 403)",
  },
} as const);

export const retrieve = defineOperation({
  operationId: "getEvent",
  method: "GET",
  path: "/v2/events/{id}",
  summary: "Read one event",
  tag: "Events",
  description: `Events older than ${EVENT_RETENTION_DAYS} days are gone (404).`,
  status: 200,
  response: AnyEvent,
  scope: "webhooks:read",
  scopes: ["webhooks:read", "retrievals:read"],
  scopeWhen: { "retrievals:read": "to read a `retrieval_request.*` event (403 without it)" },
} as const);

/**
 * This module's operations keyed by operationId, in the order the OpenAPI
 * document lists them: `CONTRACT` (./index.ts) is these records in turn.
 */
export const operations = {
  listEvents: list,
  getEvent: retrieve,
} as const;
