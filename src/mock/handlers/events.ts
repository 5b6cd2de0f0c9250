import { EVENT_LOG_TYPES, EventListParams } from "../../schemas/event-list.js";
import type { Scope } from "../../schemas/scopes.js";
import { eventReadScope, getEvent, listEvents } from "../model/event-list.js";
import type { ModelContext } from "../model/state.js";
import {
  type AdditionalScope,
  type ApiRoute,
  json,
  listJson,
  NoQuery,
  pageOf,
  readQuery,
} from "./shared.js";

const ROUTE_SCOPE: Scope = "webhooks:read";

/** The read scope of each event family beyond the route's, as `eventReadScope` checks it. */
function familyScopes(when: (families: string) => string): AdditionalScope[] {
  const byScope = new Map<Scope, Set<string>>();
  for (const type of EVENT_LOG_TYPES) {
    const scope = eventReadScope(type);
    if (scope === ROUTE_SCOPE) continue;
    const families = byScope.get(scope) ?? new Set<string>();
    families.add(`\`${type.slice(0, type.indexOf(".") + 1)}*\``);
    byScope.set(scope, families);
  }
  return [...byScope].map(([scope, families]) => ({ scope, when: when([...families].join(", ")) }));
}

/**
 * The event log. Both routes need webhooks:read; each event also needs the
 * read scope of its family (retrievals:read for `retrieval_request.*`).
 */
export function eventRoutes(ctx: ModelContext): ApiRoute[] {
  return [
    {
      method: "GET",
      pattern: "/v2/events",
      scope: ROUTE_SCOPE,
      additionalScopes: familyScopes(
        (families) =>
          `to list ${families} events (left out without it; naming one in \`type\` is 403)`,
      ),
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
      scope: ROUTE_SCOPE,
      additionalScopes: familyScopes((families) => `to read a ${families} event (403 without it)`),
      handle({ url, params, apiKey }) {
        readQuery(url, NoQuery);
        return json(200, getEvent(ctx, apiKey, params.id as string));
      },
    },
  ];
}
