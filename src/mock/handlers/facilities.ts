import { DEFAULT_PAGE_LIMIT } from "../../schemas/common.js";
import { FacilitySearchParams } from "../../schemas/facilities.js";
import { searchFacilities } from "../model/facilities.js";
import { toListEnvelope } from "../model/paginate.js";
import type { ModelContext } from "../model/state.js";
import { type ApiRoute, json, readQuery } from "./shared.js";

export function facilityRoutes(ctx: ModelContext): ApiRoute[] {
  return [
    {
      method: "GET",
      pattern: "/v2/facilities",
      scope: "retrievals:read",
      handle({ url }) {
        const query = readQuery(url, FacilitySearchParams);
        const page = searchFacilities(ctx, query.query, {
          limit: query.limit ?? DEFAULT_PAGE_LIMIT,
          cursor: query.cursor,
        });
        return json(
          200,
          toListEnvelope(page, (item) => item, { baseUrl: ctx.baseUrl, url }),
        );
      },
    },
  ];
}
