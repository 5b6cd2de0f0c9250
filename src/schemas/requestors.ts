import * as z from "zod";
import type * as Wire from "../types/wire.js";
import { IsoDateTime, ListParams } from "./common.js";

/** Longest `name` of a retrieval profile (requestor). */
export const REQUESTOR_NAME_MAX = 200;
/** Longest `email` of a requestor (the longest address SMTP can carry). */
export const REQUESTOR_EMAIL_MAX = 254;
/** Longest `organization` of a requestor. */
export const REQUESTOR_ORGANIZATION_MAX = 200;
/** Longest `phone` of a requestor. */
export const REQUESTOR_PHONE_MAX = 50;

/** A retrieval profile: who at the firm the provider deals with for a request. */
export const Requestor = z.strictObject({
  id: z
    .string()
    .meta({ description: "Opaque identifier: the `requestor_id` of a retrieval request." }),
  name: z.string().meta({ description: "The person's name." }),
  email: z
    .string()
    .meta({ format: "email" })
    .meta({ description: "Where the provider writes to." }),
  organization: z
    .string()
    .nullable()
    .meta({ description: "The firm or department; null when not given." }),
  phone: z.string().nullable().meta({ description: "As written; null when not given." }),
  created_at: IsoDateTime.meta({ description: "ISO 8601 date-time." }),
  updated_at: IsoDateTime.meta({ description: "ISO 8601 date-time; changes with every update." }),
});
export interface Requestor extends Wire.Requestor {}

const name = z.string().min(1).max(REQUESTOR_NAME_MAX);
const email = z.email().max(REQUESTOR_EMAIL_MAX);
const organization = z.string().max(REQUESTOR_ORGANIZATION_MAX);
const phone = z.string().max(REQUESTOR_PHONE_MAX);

/** Request body of requestor creation; also the inline `requestor` of a retrieval request. */
export const RequestorCreate = z.strictObject({
  name: name.meta({ description: "1 to 200 characters." }),
  email: email.meta({ description: "An email address, up to 254 characters." }),
  organization: organization.optional().meta({ description: "Up to 200 characters." }),
  phone: phone.optional().meta({ description: "Up to 50 characters." }),
});
export interface RequestorCreate extends Wire.RequestorCreate {}

/** Request body of a partial requestor update: only supplied fields change. */
export const RequestorUpdate = z.strictObject({
  name: name.optional().meta({ description: "1 to 200 characters." }),
  email: email.optional().meta({ description: "An email address, up to 254 characters." }),
  organization: organization
    .nullable()
    .optional()
    .meta({ description: "Up to 200 characters; null clears it." }),
  phone: phone.nullable().optional().meta({ description: "Up to 50 characters; null clears it." }),
});
export interface RequestorUpdate extends Wire.RequestorUpdate {}

/** Query of `mr.requestors.list()`: the page size and cursor of every list. */
export const RequestorListParams = ListParams;
export type RequestorListParams = ListParams;
