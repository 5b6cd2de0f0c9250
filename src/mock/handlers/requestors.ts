import { requestors } from "../../contract/index.js";
import { bind } from "../bind.js";
import {
  createRequestor,
  getRequestor,
  listRequestors,
  updateRequestor,
} from "../model/requestors.js";
import type { ModelContext } from "../model/state.js";
import { type ApiRoute, pageOf } from "./shared.js";

export function requestorRoutes(ctx: ModelContext): ApiRoute[] {
  return [
    bind(ctx, requestors.create, ({ body }) => createRequestor(ctx, body)),
    bind(ctx, requestors.list, ({ query }) => listRequestors(ctx, pageOf(query))),
    bind(ctx, requestors.retrieve, ({ params }) => getRequestor(ctx, params.id)),
    bind(ctx, requestors.update, ({ params, body }) => updateRequestor(ctx, params.id, body)),
  ];
}
