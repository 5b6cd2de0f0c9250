/**
 * JSON text nested `depth` arrays or objects deep, for the limits of code that
 * parses, walks or re-serializes a body (`JSON.stringify` recurses and
 * overflows the stack somewhere past a few thousand levels).
 */

/** How the levels are written. */
export type NestedJsonShape =
  /** `[[[]]]`: compact arrays. */
  | "arrays"
  /** `[ [ [ ]]]`: arrays with a space after each `[`, so not compact. */
  | "spaced-arrays"
  /** `{"a":{"a":1}}`: compact objects. */
  | "objects"
  /** An event envelope whose `data` holds the remaining levels. */
  | "event"
  /** `[[[`: opened, never closed (not JSON). */
  | "unclosed";

/** Nesting far past any runtime's recursion limit. */
export const VERY_DEEP = 100_000;

/** JSON text of `depth` (at least 1) levels of nesting in the given shape. */
export function nestedJson(depth: number, shape: NestedJsonShape): string {
  switch (shape) {
    case "arrays":
      return "[".repeat(depth) + "]".repeat(depth);
    case "spaced-arrays":
      return "[ ".repeat(depth) + "]".repeat(depth);
    case "objects":
      return `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
    case "event":
      return `{"id":"evt_deep","type":"webhook.test","created_at":"2026-01-01T00:00:00.000Z","data":${
        depth > 1 ? nestedJson(depth - 1, "objects") : "1"
      }}`;
    case "unclosed":
      return "[".repeat(depth);
  }
}
