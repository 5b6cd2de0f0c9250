import {
  createRequestor,
  getRequestor,
  listRequestors,
  updateRequestor,
} from "../../model/requestors.js";
import type { ModelContext } from "../../model/state.js";
import type { Handlers } from "../bind.js";
import { pageOf } from "./shared.js";

export function requestorHandlers(ctx: ModelContext) {
  return {
    createRequestor: ({ body }) => createRequestor(ctx, body),
    listRequestors: ({ query }) => listRequestors(ctx, pageOf(query)),
    getRequestor: ({ params }) => getRequestor(ctx, params.id),
    updateRequestor: ({ params, body }) => updateRequestor(ctx, params.id, body),
  } satisfies Partial<Handlers>;
}
