import * as z from "zod";
import type * as Wire from "../types/wire.js";

/**
 * The open part of every `openEnum`: any other string. One shared instance,
 * so that the OpenAPI generator can recognise it and write `{ type: "string" }`
 * (zod has no JSON Schema for a custom type).
 */
export const OpenEnumOther = z.custom<string & {}>((v) => typeof v === "string");

/**
 * An enum in a response: the values the spec lists, typed as that union plus
 * `string & {}` so that a value the service adds later neither breaks parsing
 * nor erases editor completion of the known ones.
 */
export function openEnum<const T extends readonly [string, ...string[]]>(values: T) {
  return z.union([z.enum(values), OpenEnumOther]);
}

/** A calendar date, `YYYY-MM-DD`, that exists (no 2023-02-29). */
export const IsoDate = z.iso.date({
  error: "Expected a date as YYYY-MM-DD (ISO 8601), such as 2025-11-03",
});
export type IsoDate = z.infer<typeof IsoDate>;

/** An ISO 8601 date-time; offsets other than `Z` are accepted. */
export const IsoDateTime = z.iso.datetime({ offset: true });
export type IsoDateTime = z.infer<typeof IsoDateTime>;

/**
 * A date or date-time query parameter: an ISO 8601 string, or a `Date`, which
 * is sent as its ISO string (`toISOString()`; for a `"date"` parameter, its
 * UTC calendar day). An invalid `Date`, or one outside the years 0000 to 9999
 * (whose ISO string, `+010000-01-01T...`, no server accepts), fails validation
 * before sending. The only place a query parameter takes a `Date`: the wire,
 * the reference server and the OpenAPI document see the string.
 *
 * @example created_after: dateQuery("date-time") // accepts "2026-01-01T00:00:00Z" or new Date()
 */
export function dateQuery(format: "date" | "date-time") {
  const expected = `Expected an ISO 8601 ${format === "date" ? "date (YYYY-MM-DD)" : "date-time"} or a valid Date`;
  return z.union(
    [
      format === "date" ? IsoDate : IsoDateTime,
      z
        .date({ error: expected })
        .refine((date) => {
          const year = date.getUTCFullYear();
          return year >= 0 && year <= 9999;
        }, "Expected a Date between the years 0000 and 9999")
        .transform((date) =>
          format === "date" ? date.toISOString().slice(0, 10) : date.toISOString(),
        ),
    ],
    { error: expected },
  );
}

/**
 * A MIME type such as `application/pdf`, parameters allowed, in any case.
 * Both cases are spelled out instead of an `i` flag, which a JSON Schema
 * pattern (the OpenAPI document) cannot carry.
 */
export const MimeType = z
  .string()
  .regex(/^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+(\s*;.*)?$/, "Invalid MIME type");

/**
 * Whether a date lies in the past relative to `nowMs`: the date is read as
 * its first instant (00:00 UTC), so today passes and tomorrow fails. A text
 * that is no date passes: its format is the error to report, alone.
 */
export function isPastDate(date: string, nowMs: number): boolean {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(date) ? Date.parse(`${date}T00:00:00Z`) : Number.NaN;
  return Number.isNaN(ms) || ms <= nowMs;
}

/** Error body of every failed API call. */
export const ErrorBody = z.object({
  /** What went wrong. */
  error: z.object({
    /** Machine-readable, e.g. `validation_error`: branch on this, not on `message`. */
    code: z.string(),
    /** Human-readable explanation. */
    message: z.string(),
  }),
});
export interface ErrorBody extends Wire.ErrorBody {}

/** Smallest page size of list endpoints. */
export const PAGE_LIMIT_MIN = 1;
/** Largest page size of list endpoints (docs/spec-decisions.md, "Lists"). */
export const PAGE_LIMIT_MAX = 100;
/** Page size of list endpoints when `limit` is omitted. */
export const DEFAULT_PAGE_LIMIT = 25;
/**
 * `limit` as a query string writes it: decimal digits, without a sign, a
 * space, a fraction, an exponent, a radix prefix (`0x10`, `0b11`) or a
 * leading zero, so each page size has one spelling and `next` links repeat
 * it as sent (docs/spec-decisions.md, "Lists").
 */
export const PAGE_LIMIT_PATTERN = /^[1-9][0-9]*$/;
const PAGE_LIMIT_MESSAGE = `Expected an integer from ${PAGE_LIMIT_MIN} to ${PAGE_LIMIT_MAX} written in decimal digits`;
/**
 * Page size of list endpoints: an integer from `PAGE_LIMIT_MIN` to `PAGE_LIMIT_MAX`;
 * as text (the query string, what the reference server parses), only in
 * the {@link PAGE_LIMIT_PATTERN} spelling. Anything else is 400
 * validation_error, and the client refuses it before sending.
 */
export const PageLimit = z
  .union([z.number(), z.string().regex(PAGE_LIMIT_PATTERN).transform(Number)], {
    error: PAGE_LIMIT_MESSAGE,
  })
  .pipe(
    // `abort`: a value past the safe integers (`1e21` written out) is one problem, not two.
    z
      .int({ error: PAGE_LIMIT_MESSAGE, abort: true })
      .min(PAGE_LIMIT_MIN, PAGE_LIMIT_MESSAGE)
      .max(PAGE_LIMIT_MAX, PAGE_LIMIT_MESSAGE),
  );

/** Query parameters shared by every list endpoint. */
export const ListParams = z.strictObject({
  /** Items per page, 1 to `PAGE_LIMIT_MAX`. @default `DEFAULT_PAGE_LIMIT` */
  limit: PageLimit.optional(),
  /** Where to start: a page's `nextCursor` (or `cursor`) from an earlier listing. */
  cursor: z.string().min(1).optional(),
});
export interface ListParams extends Wire.ListParams {}

// An absolute link, a URI in the OpenAPI document; parsed as any string.
const PageLink = z.string().meta({ format: "uri" });

/** The list envelope: absolute `next`/`previous` links, or null at the ends. */
export function ListEnvelope<T extends z.ZodType>(item: T) {
  return z.strictObject({
    /** This page's items. */
    results: z.array(item),
    /** Absolute address of the next page; null on the last. */
    next: PageLink.nullable(),
    /** Absolute address of the previous page; null on the first. */
    previous: PageLink.nullable(),
  });
}
/** A page of a list endpoint as the service sends it; the client wraps it in a `Page`. */
export type ListEnvelope<T> = {
  /** This page's items. */
  results: T[];
  /** Absolute address of the next page; null on the last. */
  next: string | null;
  /** Absolute address of the previous page; null on the first. */
  previous: string | null;
};

/** A zod issue, structurally: what picking the code needs. */
interface IssueLike {
  readonly code: string;
  readonly origin?: string;
}

// Request schemas whose over-length values the spec answers with
// invalid_request instead of validation_error. Kept beside the schemas so
// that the client's pre-send check and the reference server pick the same code.
const overLengthIsInvalidRequest = new WeakSet<z.ZodType>();

/**
 * Marks a request schema as one where "values over the length limits return
 * 400 invalid_request" (spec, Webhooks rule 2); returns the schema.
 */
export function overLengthAsInvalidRequest<S extends z.ZodType>(schema: S): S {
  overLengthIsInvalidRequest.add(schema);
  return schema;
}

/** Whether an issue is a string or array longer than its limit. */
function isOverLength(issue: IssueLike): boolean {
  return issue.code === "too_big" && (issue.origin === "string" || issue.origin === "array");
}

/**
 * The spec's code for a body that failed `schema`: invalid_request when the
 * schema is marked and any value is over its length limit (the more specific
 * rule wins over a mix of problems; the message still lists every one),
 * validation_error otherwise.
 */
export function requestErrorCode(
  schema: z.ZodType,
  issues: readonly IssueLike[],
): "validation_error" | "invalid_request" {
  return overLengthIsInvalidRequest.has(schema) && issues.some(isOverLength)
    ? "invalid_request"
    : "validation_error";
}
