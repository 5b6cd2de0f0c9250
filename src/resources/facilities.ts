import * as facilities from "../contract/facilities.js";
import type { RequestOptions } from "../core/options.js";
import { type PagePromise, paginate } from "../core/pagination.js";
import { APIResource } from "../core/resource.js";
import type { Facility, FacilitySearchParams } from "../schemas/facilities.js";

/** The directory of providers that records are requested from. */
export class Facilities extends APIResource {
  /**
   * Facilities whose name or address contains every word of `query`
   * (case-insensitive): await for a page or `for await` over every match.
   * Use a result's `id` as `facility_id` of a retrieval request.
   */
  search(
    query: FacilitySearchParams,
    options?: RequestOptions,
  ): PagePromise<Facility, "searchFacilities"> {
    return paginate(this.core, facilities.search, { query }, options);
  }
}
