/**
 * The one error type the mock's model throws. Handlers never build error
 * responses themselves, so every failure has the spec's shape
 * `{ error: { code, message } }` and an `X-Request-Id`.
 */

export class MockApiError extends Error {
  override name = "MockApiError";
  readonly status: number;
  readonly code: string;
  /** Extra response headers, e.g. `Retry-After` of a 429. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    code: string,
    message: string,
    headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

export const notFound = (message = "The requested resource does not exist.") =>
  new MockApiError(404, "not_found", message);

/** A zod issue, structurally: the mock only needs where and why. */
interface IssueLike {
  readonly code: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly keys?: readonly string[];
}

/**
 * 400 `validation_error` (or the `code` given, e.g. `invalid_request` for an
 * over-length webhook field) listing each bad field as "field: reason".
 * Reasons come from the schema (zod says what was expected, never what was
 * sent), so no submitted value is echoed: bodies carry protected health information.
 */
export function validationError(
  issues: readonly IssueLike[],
  root: string,
  code: "validation_error" | "invalid_request" = "validation_error",
): MockApiError {
  const parts: string[] = [];
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys" && issue.keys) {
      const where = issue.path.length > 0 ? `${formatPath(issue.path)}.` : "";
      for (const key of issue.keys) parts.push(`${where}${key}: Unknown property`);
      continue;
    }
    const field = issue.path.length > 0 ? formatPath(issue.path) : root;
    parts.push(`${field}: ${issue.message}`);
  }
  return new MockApiError(400, code, parts.join("; ") || `${root}: Invalid`);
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out === "" ? String(segment) : `.${String(segment)}`;
  }
  return out;
}
