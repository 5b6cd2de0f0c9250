import { events } from "../../contract/index.js";
import { bind } from "../bind.js";
import { getEvent, listEvents } from "../model/event-list.js";
import type { ModelContext } from "../model/state.js";
import { type ApiRoute, pageOf } from "./shared.js";

/** The event log; the model leaves out (or refuses) the families the key cannot read. */
export function eventRoutes(ctx: ModelContext): ApiRoute[] {
  return [
    bind(ctx, events.list, ({ query, apiKey }) =>
      listEvents(
        ctx,
        apiKey,
        {
          types: query.type?.split(","),
          createdAfter: query.created_after,
          createdBefore: query.created_before,
          objectId: query.object_id,
        },
        pageOf(query),
      ),
    ),
    bind(ctx, events.retrieve, ({ params, apiKey }) => getEvent(ctx, apiKey, params.id)),
  ];
}
