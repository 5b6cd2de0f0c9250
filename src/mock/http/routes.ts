/**
 * The reference server's API routes: every operation of the contract
 * (src/contract) bound to the model, in the contract's order. `handlers` is
 * typed over the contract's keys: an operation without a handler fails
 * `tsc` here, naming it ("... is missing the following properties from type
 * 'Handlers': getCase").
 */

import type { ModelContext } from "../model/state.js";
import { bindContract, type Handlers } from "./bind.js";
import { caseHandlers } from "./handlers/cases.js";
import { documentHandlers } from "./handlers/documents.js";
import { eventHandlers } from "./handlers/events.js";
import { facilityHandlers } from "./handlers/facilities.js";
import { requestorHandlers } from "./handlers/requestors.js";
import { retrievalRequestHandlers } from "./handlers/retrieval-requests.js";
import type { ApiRoute } from "./handlers/shared.js";
import { uploadHandlers } from "./handlers/uploads.js";
import { webhookHandlers } from "./handlers/webhooks.js";

/** Every operation's handler, keyed by operationId. */
export function handlers(ctx: ModelContext): Handlers {
  return {
    ...caseHandlers(ctx),
    ...uploadHandlers(ctx),
    ...documentHandlers(ctx),
    ...webhookHandlers(ctx),
    ...retrievalRequestHandlers(ctx),
    ...facilityHandlers(ctx),
    ...requestorHandlers(ctx),
    ...eventHandlers(ctx),
  };
}

/** Every API route of the reference server, in matching order. */
export function apiRoutes(ctx: ModelContext): ApiRoute[] {
  return bindContract(ctx, handlers(ctx));
}
