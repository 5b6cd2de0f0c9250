import { FacilitySearchParams } from "../../schemas/facilities.js";
import { searchFacilities } from "../model/facilities.js";
import type { ModelContext } from "../model/state.js";
import { type ApiRoute, listJson, pageOf, readQuery } from "./shared.js";

export function facilityRoutes(ctx: ModelContext): ApiRoute[] {
  return [
    {
      method: "GET",
      pattern: "/v2/facilities",
      scope: "retrievals:read",
      handle({ url }) {
        const query = readQuery(url, FacilitySearchParams);
        const page = searchFacilities(ctx, query.query, {
          ...pageOf(query),
        });
        return listJson(ctx, url, page);
      },
    },
  ];
}
