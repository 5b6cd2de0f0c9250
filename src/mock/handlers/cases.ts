import { cases } from "../../contract/index.js";
import { makeCaseCreate } from "../../schemas/cases.js";
import { bind } from "../bind.js";
import { createCase, getCase, listCases, updateCase } from "../model/cases.js";
import type { ModelContext } from "../model/state.js";
import type { ApiRoute } from "./shared.js";
import { pageOf } from "./shared.js";

export function caseRoutes(ctx: ModelContext): ApiRoute[] {
  // "date_of_injury in the past" must follow the mock clock, not the machine's.
  const CaseCreate = makeCaseCreate(() => ctx.clock.now().getTime());
  return [
    bind(ctx, cases.create, ({ body }) => createCase(ctx, body), { body: CaseCreate }),
    bind(ctx, cases.list, ({ query }) =>
      listCases(ctx, { external_id: query.external_id }, pageOf(query)),
    ),
    bind(ctx, cases.retrieve, ({ params }) => getCase(ctx, params.case_id)),
    bind(ctx, cases.update, ({ params, body }) => updateCase(ctx, params.case_id, body)),
  ];
}
