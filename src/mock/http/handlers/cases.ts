import { makeCaseCreate } from "../../../schemas/cases.js";
import { createCase, getCase, listCases, updateCase } from "../../model/cases.js";
import type { ModelContext } from "../../model/state.js";
import type { Handlers } from "../bind.js";
import { pageOf } from "./shared.js";

export function caseHandlers(ctx: ModelContext) {
  // "date_of_injury in the past" must follow the mock clock, not the machine's.
  const CaseCreate = makeCaseCreate(() => ctx.clock.now().getTime());
  return {
    createCase: { handle: ({ body }) => createCase(ctx, body), body: CaseCreate },
    listCases: ({ query }) => listCases(ctx, { external_id: query.external_id }, pageOf(query)),
    getCase: ({ params }) => getCase(ctx, params.case_id),
    updateCase: ({ params, body }) => updateCase(ctx, params.case_id, body),
  } satisfies Partial<Handlers>;
}
