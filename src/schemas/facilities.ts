import { z } from "zod";
import { ListParams } from "./common.js";

/** Limits of a facility given inline when creating a retrieval request. */
export const FACILITY_NAME_MAX = 200;
export const FACILITY_ADDRESS_MAX = 500;
export const FACILITY_PHONE_MAX = 50;
/** Length bound of a facility search text. */
export const FACILITY_QUERY_MAX = 200;

/** A provider that records are requested from: from the directory, or given inline. */
export const Facility = z.strictObject({
  id: z.string(),
  name: z.string(),
  address: z.string(),
  phone: z.string().nullable(),
  fax: z.string().nullable(),
});
export type Facility = z.infer<typeof Facility>;

/** A facility given inline in a retrieval request, when it is not in the directory. */
export const FacilityCreate = z.strictObject({
  name: z.string().min(1).max(FACILITY_NAME_MAX),
  address: z.string().min(1).max(FACILITY_ADDRESS_MAX),
  phone: z.string().max(FACILITY_PHONE_MAX).optional(),
  fax: z.string().max(FACILITY_PHONE_MAX).optional(),
});
export type FacilityCreate = z.infer<typeof FacilityCreate>;

/**
 * Query of GET /v2/facilities. `query` is required: every whitespace-separated
 * word must appear, case-insensitively, in the name or the address.
 */
export const FacilitySearchParams = ListParams.extend({
  query: z.string().trim().min(1).max(FACILITY_QUERY_MAX),
});
export type FacilitySearchParams = z.input<typeof FacilitySearchParams>;
