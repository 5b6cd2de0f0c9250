import { getEvent, listEvents } from "../../model/event-list.js";
import type { ModelContext } from "../../model/state.js";
import type { Handlers } from "../bind.js";
import { pageOf } from "./shared.js";

/** The event log; the model leaves out (or refuses) the families the key cannot read. */
export function eventHandlers(ctx: ModelContext) {
  return {
    listEvents: ({ query, apiKey }) =>
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
    getEvent: ({ params, apiKey }) => getEvent(ctx, apiKey, params.id),
  } satisfies Partial<Handlers>;
}
