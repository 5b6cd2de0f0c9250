/**
 * A drift: one way a response departs from the spec (or, replayed, from the
 * reference server's answer). It names where and what kind, never a value
 * the response carried, so a drift report can leave the firm.
 */

/**
 * What departs:
 * - `unknown_field`: a field the spec does not have;
 * - `missing_field`: a field the spec marks always present is absent;
 * - `unknown_enum_value`: a value the spec's enum does not list;
 * - `wrong_type`: a value of another JSON type than the spec's;
 * - `unexpected_status`: a status the operation does not list;
 * - `unknown_error_code`: an error code the spec does not list for that status;
 * - `different_status`, `different_error_code`, `different_pagination`: replayed,
 *   the reference server answers the recorded request otherwise (`medrecords drift`).
 */
export type DriftKind =
  | "unknown_field"
  | "missing_field"
  | "unknown_enum_value"
  | "wrong_type"
  | "unexpected_status"
  | "unknown_error_code"
  | "different_status"
  | "different_error_code"
  | "different_pagination";

/** One departure from the spec, as `onDrift` receives it. */
export interface Drift {
  /** The OpenAPI operationId, e.g. `getCase`. */
  operation: string;
  /** The response's HTTP status. */
  status: number;
  /** The response's `X-Request-Id`, for the service's support; undefined when it sent none. */
  request_id: string | undefined;
  /** A JSON pointer into the response body, e.g. `/results/0/case_number`; `""` for the status. */
  pointer: string;
  kind: DriftKind;
  /** What the spec says: a type (`"string"`, `"string or null"`), the enum's values, or the listed statuses or codes. */
  expected: string;
  /**
   * A type name (`"number"`, `"object"`, `"missing"` for a missing field),
   * never a value; for a status, the status (also in `status`).
   */
  got: string;
}

/** A drift without the response's identity: what the shape check finds at a pointer. */
export type ShapeDrift = Pick<Drift, "pointer" | "kind" | "expected" | "got">;

/** The JSON type of a value: what a drift says it got. */
export function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (value === undefined) return "missing";
  return typeof value;
}

/** One reference token of a JSON pointer (RFC 6901: `~` and `/` escaped). */
export function pointerToken(key: string | number): string {
  return String(key).replaceAll("~", "~0").replaceAll("/", "~1");
}
