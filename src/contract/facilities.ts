/** Facilities: the directory of providers records are requested from. */
import { ListEnvelope } from "../schemas/common.js";
import { Facility, FacilitySearchParams } from "../schemas/facilities.js";
import { defineOperation } from "./operation.js";

export const FacilityList = ListEnvelope(Facility);

export const search = defineOperation({
  operationId: "searchFacilities",
  method: "GET",
  path: "/v2/facilities",
  summary: "Search the facility directory",
  tag: "Facilities",
  description: "Every whitespace-separated word of `query` must appear in the name or address.",
  query: FacilitySearchParams,
  parameters: {
    query:
      "Every whitespace-separated word must appear, case-insensitively, in the name or the address.",
  },
  status: 200,
  response: FacilityList,
  list: true,
  scope: "retrievals:read",
} as const);

/**
 * This module's operations keyed by operationId, in the order the OpenAPI
 * document lists them: `CONTRACT` (./index.ts) is these records in turn.
 */
export const operations = {
  searchFacilities: search,
} as const;
