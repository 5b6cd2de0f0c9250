import { z } from "zod";
import { IsoDate, IsoDateTime, isPastDate, ListParams, openEnum } from "./common.js";

export const CASE_CATEGORIES = [
  "personal_injury",
  "motor_vehicle_accident",
  "medical_malpractice",
  "workers_compensation",
  "product_liability",
  "premises_liability",
  "wrongful_death",
  "other",
] as const;
export const CaseCategory = z.enum(CASE_CATEGORIES);
export type CaseCategory = z.infer<typeof CaseCategory>;

export const CASE_STATUSES = ["active", "pending", "closed", "archived"] as const;
export const CaseStatus = z.enum(CASE_STATUSES);
export type CaseStatus = z.infer<typeof CaseStatus>;

/** A legal matter with client details. */
export const Case = z.strictObject({
  id: z.string(),
  case_number: z.string(),
  title: z.string(),
  client_name: z.string(),
  description: z.string().nullable().optional(),
  client_date_of_birth: IsoDate.nullable().optional(),
  client_address: z.string().nullable().optional(),
  client_phone: z.string().nullable().optional(),
  client_email: z.string().nullable().optional(),
  date_of_injury: IsoDate.nullable().optional(),
  deposition_date: IsoDate.nullable().optional(),
  case_category: openEnum(CASE_CATEGORIES),
  status: openEnum(CASE_STATUSES),
  external_id: z.string().nullable().optional(),
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
});
export type Case = z.infer<typeof Case>;

const title = z.string().min(1).max(500);
const description = z.string().max(5000);
const externalId = z.string().max(255);

/**
 * Builds the CaseCreate schema against a clock, because `date_of_injury` must
 * lie in the past of whoever validates: the caller's clock in the client, the
 * injected clock in the reference server.
 */
export function makeCaseCreate(now: () => number = () => Date.now()) {
  return z.strictObject({
    title,
    client_name: z.string().min(1).max(200),
    description: description.optional(),
    client_date_of_birth: IsoDate.optional(),
    client_address: z.string().max(500).optional(),
    client_phone: z.string().max(50).optional(),
    client_email: z.email().optional(),
    date_of_injury: IsoDate.refine((d) => isPastDate(d, now()), "Must be in the past").optional(),
    deposition_date: IsoDate.optional(),
    case_category: CaseCategory.optional(),
    status: z
      .enum(["active", "pending", "closed"], {
        error:
          "Invalid option: expected one of active, pending, closed (archived is not allowed on create)",
      })
      .optional(),
    external_id: externalId.optional(),
  });
}

/** Request body of case creation. Unknown properties are refused. */
export const CaseCreate = makeCaseCreate();
export type CaseCreate = z.infer<typeof CaseCreate>;

/** Request body of a partial case update: only supplied fields change. */
export const CaseUpdate = z.strictObject({
  title: title.optional(),
  description: description.nullable().optional(),
  client_email: z.email().nullable().optional(),
  status: CaseStatus.optional(),
  external_id: externalId.nullable().optional(),
});
export type CaseUpdate = z.infer<typeof CaseUpdate>;

export const CaseListParams = ListParams;
export type CaseListParams = z.infer<typeof CaseListParams>;
