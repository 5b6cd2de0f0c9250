/**
 * The rule for a path parameter's value (an id), shared by the client and
 * the CLI: a non-empty, well-formed string that is not `.` or `..`. A segment
 * of `.` or `..` is resolved away by every URL parser, so `retrieve("..")`
 * would call another route (GET /v2/, a list), and a control path
 * (`/__mock/retrieval-requests/../...`) another control operation.
 */

/** Why `value` cannot be a path parameter, in words; undefined when it can. */
export function pathParamProblem(value: unknown): string | undefined {
  if (typeof value !== "string" || value === "") return "Expected a non-empty string identifier";
  if (value === "." || value === "..") return 'Expected an identifier, not "." or ".."';
  try {
    encodeURIComponent(value);
  } catch {
    // A lone surrogate has no UTF-8 form (URIError), so no address can carry it.
    return "Expected a well-formed string identifier";
  }
  return undefined;
}
