import { EventListParams } from "../../schemas/event-list.js";
import { getEvent, listEvents } from "../model/event-list.js";
import type { ModelContext } from "../model/state.js";
import { type ApiRoute, json, listJson, NoQuery, pageOf, readQuery } from "./shared.js";

/**
 * The event log. Both routes need webhooks:read; each event also needs the
 * read scope of its family (retrievals:read for `retrieval_request.*`).
 */
export function eventRoutes(ctx: ModelContext): ApiRoute[] {
  return [
    {
      method: "GET",
      pattern: "/v2/events",
      scope: "webhooks:read",
      handle({ url, apiKey }) {
        const query = readQuery(url, EventListParams);
        const page = listEvents(
          ctx,
          apiKey,
          {
            types: query.type?.split(","),
            createdAfter: query.created_after,
            createdBefore: query.created_before,
            objectId: query.object_id,
          },
          { ...pageOf(query) },
        );
        return listJson(ctx, url, page);
      },
    },
    {
      method: "GET",
      pattern: "/v2/events/:id",
      scope: "webhooks:read",
      handle({ url, params, apiKey }) {
        readQuery(url, NoQuery);
        return json(200, getEvent(ctx, apiKey, params.id as string));
      },
    },
  ];
}
