import * as z from "zod";
import type * as Wire from "../types/wire.js";
import { ListParams } from "./common.js";

/** Longest `name` of a facility given inline when creating a retrieval request. */
export const FACILITY_NAME_MAX = 200;
/** Longest `address` of an inline facility. */
export const FACILITY_ADDRESS_MAX = 500;
/** Longest `phone`, and `fax`, of an inline facility. */
export const FACILITY_PHONE_MAX = 50;
/** Length bound of a facility search text. */
export const FACILITY_QUERY_MAX = 200;

/** A provider that records are requested from: from the directory, or given inline. */
export const Facility = z.strictObject({
  id: z
    .string()
    .meta({ description: "Opaque identifier: the `facility_id` of a retrieval request." }),
  name: z.string().meta({ description: "E.g. the hospital's or clinic's name." }),
  address: z.string().meta({ description: "Postal address, as one string." }),
  phone: z.string().nullable().meta({ description: "As written; null when unknown." }),
  fax: z.string().nullable().meta({ description: "As written; null when unknown." }),
});
export interface Facility extends Wire.Facility {}

/** A facility given inline in a retrieval request, when it is not in the directory. */
export const FacilityCreate = z.strictObject({
  name: z.string().min(1).max(FACILITY_NAME_MAX).meta({ description: "1 to 200 characters." }),
  address: z
    .string()
    .min(1)
    .max(FACILITY_ADDRESS_MAX)
    .meta({ description: "Postal address, 1 to 500 characters." }),
  phone: z
    .string()
    .max(FACILITY_PHONE_MAX)
    .optional()
    .meta({ description: "Up to 50 characters." }),
  fax: z.string().max(FACILITY_PHONE_MAX).optional().meta({ description: "Up to 50 characters." }),
});
export interface FacilityCreate extends Wire.FacilityCreate {}

/**
 * Query of GET /v2/facilities. `query` is required: every whitespace-separated
 * word must appear, case-insensitively, in the name or the address.
 */
export const FacilitySearchParams = ListParams.extend({
  query: z.string().trim().min(1).max(FACILITY_QUERY_MAX).meta({
    description: 'Words to find, e.g. `"mercy springfield"`; 1 to 200 characters after trimming.',
  }),
});
export interface FacilitySearchParams extends Wire.FacilitySearchParams {}
