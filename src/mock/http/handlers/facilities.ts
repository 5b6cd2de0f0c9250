import { searchFacilities } from "../../model/facilities.js";
import type { ModelContext } from "../../model/state.js";
import type { Handlers } from "../bind.js";
import { pageOf } from "./shared.js";

export function facilityHandlers(ctx: ModelContext) {
  return {
    searchFacilities: ({ query }) => searchFacilities(ctx, query.query, pageOf(query)),
  } satisfies Partial<Handlers>;
}
