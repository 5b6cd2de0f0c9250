import { CaseListParams, CaseUpdate, makeCaseCreate } from "../../schemas/cases.js";
import { createCase, getCase, listCases, updateCase } from "../model/cases.js";
import type { ModelContext } from "../model/state.js";
import { type ApiRoute, json, listJson, NoQuery, pageOf, readBody, readQuery } from "./shared.js";

export function caseRoutes(ctx: ModelContext): ApiRoute[] {
  // "date_of_injury in the past" must follow the mock clock, not the machine's.
  const CaseCreate = makeCaseCreate(() => ctx.clock.now().getTime());
  return [
    {
      method: "POST",
      pattern: "/v2/cases",
      scope: "cases:write",
      async handle({ request, url }) {
        readQuery(url, NoQuery);
        return json(201, createCase(ctx, await readBody(request, CaseCreate)));
      },
    },
    {
      method: "GET",
      pattern: "/v2/cases",
      scope: "cases:read",
      handle({ url }) {
        const query = readQuery(url, CaseListParams);
        const page = listCases(ctx, {
          ...pageOf(query),
        });
        return listJson(ctx, url, page);
      },
    },
    {
      method: "GET",
      pattern: "/v2/cases/:case_id",
      scope: "cases:read",
      handle({ url, params }) {
        readQuery(url, NoQuery);
        return json(200, getCase(ctx, params.case_id as string));
      },
    },
    {
      method: "PATCH",
      pattern: "/v2/cases/:case_id",
      scope: "cases:write",
      async handle({ request, url, params }) {
        readQuery(url, NoQuery);
        const patch = await readBody(request, CaseUpdate);
        return json(200, updateCase(ctx, params.case_id as string, patch));
      },
    },
  ];
}
