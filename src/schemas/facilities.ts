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
  /** Opaque identifier: the `facility_id` of a retrieval request. */
  id: z.string(),
  /** E.g. the hospital's or clinic's name. */
  name: z.string(),
  /** Postal address, as one string. */
  address: z.string(),
  /** As written; null when unknown. */
  phone: z.string().nullable(),
  /** As written; null when unknown. */
  fax: z.string().nullable(),
});
export interface Facility extends Wire.Facility {}

/** A facility given inline in a retrieval request, when it is not in the directory. */
export const FacilityCreate = z.strictObject({
  /** 1 to {@link FACILITY_NAME_MAX} characters. */
  name: z.string().min(1).max(FACILITY_NAME_MAX),
  /** Postal address, 1 to {@link FACILITY_ADDRESS_MAX} characters. */
  address: z.string().min(1).max(FACILITY_ADDRESS_MAX),
  /** Up to {@link FACILITY_PHONE_MAX} characters. */
  phone: z.string().max(FACILITY_PHONE_MAX).optional(),
  /** Up to {@link FACILITY_PHONE_MAX} characters. */
  fax: z.string().max(FACILITY_PHONE_MAX).optional(),
});
export interface FacilityCreate extends Wire.FacilityCreate {}

/**
 * Query of GET /v2/facilities. `query` is required: every whitespace-separated
 * word must appear, case-insensitively, in the name or the address.
 */
export const FacilitySearchParams = ListParams.extend({
  /** Words to find, e.g. `"mercy springfield"`; 1 to {@link FACILITY_QUERY_MAX} characters after trimming. */
  query: z.string().trim().min(1).max(FACILITY_QUERY_MAX),
});
export interface FacilitySearchParams extends Wire.FacilitySearchParams {}
