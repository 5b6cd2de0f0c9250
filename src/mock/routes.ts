/**
 * The reference server's API routes in one list: every operation of the
 * contract (src/contract) bound to the model, in matching order.
 */
import { caseRoutes } from "./handlers/cases.js";
import { documentRoutes } from "./handlers/documents.js";
import { eventRoutes } from "./handlers/events.js";
import { facilityRoutes } from "./handlers/facilities.js";
import { requestorRoutes } from "./handlers/requestors.js";
import { retrievalRequestRoutes } from "./handlers/retrieval-requests.js";
import type { ApiRoute } from "./handlers/shared.js";
import { uploadRoutes } from "./handlers/uploads.js";
import { webhookRoutes } from "./handlers/webhooks.js";
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
