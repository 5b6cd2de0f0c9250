import { facilities } from "../../contract/index.js";
import { bind } from "../bind.js";
import { searchFacilities } from "../model/facilities.js";
import type { ModelContext } from "../model/state.js";
import { type ApiRoute, pageOf } from "./shared.js";

export function facilityRoutes(ctx: ModelContext): ApiRoute[] {
  return [
    bind(ctx, facilities.search, ({ query }) => searchFacilities(ctx, query.query, pageOf(query))),
  ];
}
