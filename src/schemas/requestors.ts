import { z } from "zod";
import { IsoDateTime, ListParams } from "./common.js";

/** Limits of a retrieval profile (requestor). */
export const REQUESTOR_NAME_MAX = 200;
export const REQUESTOR_EMAIL_MAX = 254;
export const REQUESTOR_ORGANIZATION_MAX = 200;
export const REQUESTOR_PHONE_MAX = 50;

/** A retrieval profile: who at the firm the provider deals with for a request. */
export const Requestor = z.strictObject({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  organization: z.string().nullable(),
  phone: z.string().nullable(),
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
});
export type Requestor = z.infer<typeof Requestor>;

const name = z.string().min(1).max(REQUESTOR_NAME_MAX);
const email = z.email().max(REQUESTOR_EMAIL_MAX);
const organization = z.string().max(REQUESTOR_ORGANIZATION_MAX);
const phone = z.string().max(REQUESTOR_PHONE_MAX);

/** Request body of requestor creation; also the inline `requestor` of a retrieval request. */
export const RequestorCreate = z.strictObject({
  name,
  email,
  organization: organization.optional(),
  phone: phone.optional(),
});
export type RequestorCreate = z.infer<typeof RequestorCreate>;

/** Request body of a partial requestor update: only supplied fields change. */
export const RequestorUpdate = z.strictObject({
  name: name.optional(),
  email: email.optional(),
  organization: organization.nullable().optional(),
  phone: phone.nullable().optional(),
});
export type RequestorUpdate = z.infer<typeof RequestorUpdate>;

export const RequestorListParams = ListParams;
export type RequestorListParams = z.infer<typeof RequestorListParams>;
