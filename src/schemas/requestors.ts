import * as z from "zod";
import type * as Wire from "../types/wire.js";
import { IsoDateTime, ListParams } from "./common.js";
import { Email, EmailOut } from "./email.js";
import { personal } from "./sensitive.js";

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
  /** Opaque identifier: the `requestor_id` of a retrieval request. */
  id: z.string(),
  /** The person's name. */
  name: personal("name", z.string()),
  /** Where the provider writes to. */
  email: personal("email", EmailOut),
  /** The firm or department; null when not given. */
  organization: z.string().nullable(),
  /** As written; null when not given. */
  phone: personal("phone", z.string()).nullable(),
  /** ISO 8601 date-time. */
  created_at: IsoDateTime,
  /** ISO 8601 date-time; changes with every update. */
  updated_at: IsoDateTime,
});
export interface Requestor extends Wire.Requestor {}

const name = personal("name", z.string().min(1).max(REQUESTOR_NAME_MAX));
const email = personal("email", Email.max(REQUESTOR_EMAIL_MAX));
const organization = z.string().max(REQUESTOR_ORGANIZATION_MAX);
const phone = personal("phone", z.string().max(REQUESTOR_PHONE_MAX));

/** Request body of requestor creation; also the inline `requestor` of a retrieval request. */
export const RequestorCreate = z.strictObject({
  /** 1 to {@link REQUESTOR_NAME_MAX} characters. */
  name,
  /** An email address, up to {@link REQUESTOR_EMAIL_MAX} characters. */
  email,
  /** Up to {@link REQUESTOR_ORGANIZATION_MAX} characters. */
  organization: organization.optional(),
  /** Up to {@link REQUESTOR_PHONE_MAX} characters. */
  phone: phone.optional(),
});
export interface RequestorCreate extends Wire.RequestorCreate {}

/** Request body of a partial requestor update: only supplied fields change. */
export const RequestorUpdate = z.strictObject({
  /** 1 to {@link REQUESTOR_NAME_MAX} characters. */
  name: name.optional(),
  /** An email address, up to {@link REQUESTOR_EMAIL_MAX} characters. */
  email: email.optional(),
  /** Up to {@link REQUESTOR_ORGANIZATION_MAX} characters; null clears it. */
  organization: organization.nullable().optional(),
  /** Up to {@link REQUESTOR_PHONE_MAX} characters; null clears it. */
  phone: phone.nullable().optional(),
});
export interface RequestorUpdate extends Wire.RequestorUpdate {}

/** Query of `mr.requestors.list()`: the page size and cursor of every list. */
export const RequestorListParams = ListParams;
export type RequestorListParams = ListParams;
