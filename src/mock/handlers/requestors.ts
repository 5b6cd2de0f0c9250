import { RequestorCreate, RequestorListParams, RequestorUpdate } from "../../schemas/requestors.js";
import {
  createRequestor,
  getRequestor,
  listRequestors,
  updateRequestor,
} from "../model/requestors.js";
import type { ModelContext } from "../model/state.js";
import { type ApiRoute, json, listJson, NoQuery, pageOf, readBody, readQuery } from "./shared.js";

export function requestorRoutes(ctx: ModelContext): ApiRoute[] {
  return [
    {
      method: "POST",
      pattern: "/v2/requestors",
      scope: "requestors:write",
      async handle({ request, url }) {
        readQuery(url, NoQuery);
        return json(201, createRequestor(ctx, await readBody(request, RequestorCreate)));
      },
    },
    {
      method: "GET",
      pattern: "/v2/requestors",
      scope: "requestors:read",
      handle({ url }) {
        const query = readQuery(url, RequestorListParams);
        const page = listRequestors(ctx, {
          ...pageOf(query),
        });
        return listJson(ctx, url, page);
      },
    },
    {
      method: "GET",
      pattern: "/v2/requestors/:id",
      scope: "requestors:read",
      handle({ url, params }) {
        readQuery(url, NoQuery);
        return json(200, getRequestor(ctx, params.id as string));
      },
    },
    {
      method: "PATCH",
      pattern: "/v2/requestors/:id",
      scope: "requestors:write",
      async handle({ request, url, params }) {
        readQuery(url, NoQuery);
        const patch = await readBody(request, RequestorUpdate);
        return json(200, updateRequestor(ctx, params.id as string, patch));
      },
    },
  ];
}
