/**
 * The reference server's API routes in one list: every operation of the
 * contract (src/contract) bound to the model, in matching order.
 */
import { OPERATIONS } from "../contract/index.js";
import { caseRoutes } from "./handlers/cases.js";
import { documentRoutes } from "./handlers/documents.js";
import { eventRoutes } from "./handlers/events.js";
import { facilityRoutes } from "./handlers/facilities.js";
import { requestorRoutes } from "./handlers/requestors.js";
import { retrievalRequestRoutes } from "./handlers/retrieval-requests.js";
import type { ApiRoute } from "./handlers/shared.js";
import { uploadRoutes } from "./handlers/uploads.js";
import { webhookRoutes } from "./handlers/webhooks.js";
import type { Scope } from "./model/api-keys.js";
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
  /** Scopes needed on top of `scope` (combination rules), always or in the stated case. */
  readonly additionalScopes: readonly AdditionalScope[];
}

/** A scope an operation can need beyond its own. */
export interface AdditionalScope {
  readonly scope: Scope;
  /** When it is needed, e.g. "with an inline `case`"; absent when every call needs it. */
  readonly when?: string;
}

/**
 * Method, pattern and scopes of every operation of the contract, which
 * `apiRoutes` serves (test/contract checks that it serves each once).
 */
export function apiRouteTable(): ApiRouteInfo[] {
  return OPERATIONS.map(({ method, path, scope, scopes, scopeWhen }) => ({
    method,
    pattern: path.replace(/\{([A-Za-z0-9_]+)\}/g, ":$1"),
    scope,
    additionalScopes: scopes
      .filter((extra) => extra !== scope)
      .map((extra) => {
        const when = scopeWhen?.[extra];
        return when === undefined ? { scope: extra } : { scope: extra, when };
      }),
  }));
}
