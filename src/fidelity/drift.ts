// The types live with core's port (src/core/exchange-observer.ts), which the client's options name.
import type { Drift } from "../core/exchange-observer.js";

export type { Drift, DriftKind } from "../core/exchange-observer.js";

/**
 * A drift: one way a response departs from the spec (or, replayed, from the
 * reference server's answer). It names where and what kind, never a value
 * the response carried, so a drift report can leave the firm.
 */

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
