/**
 * The reference server's API routes in one list: what the service serves and
 * what the OpenAPI document describes, so the two cannot drift apart.
 */
import { caseRoutes } from "./handlers/cases.js";
import { documentRoutes } from "./handlers/documents.js";
import { eventRoutes } from "./handlers/events.js";
import { facilityRoutes } from "./handlers/facilities.js";
import { requestorRoutes } from "./handlers/requestors.js";
import { retrievalRequestRoutes } from "./handlers/retrieval-requests.js";
import type { AdditionalScope, ApiRoute } from "./handlers/shared.js";
import { uploadRoutes } from "./handlers/uploads.js";
import { webhookRoutes } from "./handlers/webhooks.js";
import type { Scope } from "./model/api-keys.js";

export type { AdditionalScope };

import type { ModelContext } from "./model/state.js";

/** Every API route of the reference server, in matching order. */
export function apiRoutes(ctx: ModelContext): ApiRoute[] {
  return [
    ...caseRoutes(ctx),
    ...uploadRoutes(ctx),
    ...documentRoutes(ctx),
    ...webhookRoutes(ctx),
    ...retrievalRequestRoutes(ctx),
    ...facilityRoutes(ctx),
    ...requestorRoutes(ctx),
    ...eventRoutes(ctx),
  ];
}

/** What a route promises to a caller, without its handler. */
export interface ApiRouteInfo {
  readonly method: string;
  /** With `:name` segments, e.g. `/v2/cases/:case_id`. */
  readonly pattern: string;
  /** The scope checked before the handler runs. */
  readonly scope: Scope;
  /** Scopes the handler checks on top of `scope` (combination rules), always or in a stated case. */
  readonly additionalScopes: readonly AdditionalScope[];
}

/**
 * Method, pattern and scope of every API route. The routes are built against
 * a context that throws when touched: handlers only read it when they serve a
 * request, so no clock, state or delivery runtime is needed to list them.
 */
export function apiRouteTable(): ApiRouteInfo[] {
  const unused = new Proxy({} as ModelContext, {
    get(_target, key) {
      throw new Error(`apiRouteTable: a route factory read ctx.${String(key)} while listing.`);
    },
  });
  return apiRoutes(unused).map(({ method, pattern, scope, additionalScopes = [] }) => ({
    method,
    pattern,
    scope,
    additionalScopes,
  }));
}
