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

/**
 * The prefix of each kind of id the service hands out (docs/spec-decisions.md,
 * "identifiers"), longest first so that `whdel_` is not read as `wh_`.
 */
const ID_PREFIXES: readonly { prefix: string; kind: string }[] = [
  { prefix: "whdel_", kind: "a webhook delivery id" },
  { prefix: "case_", kind: "a case id" },
  { prefix: "rqtr_", kind: "a requestor id" },
  { prefix: "rdoc_", kind: "a retrieval request's document id" },
  { prefix: "doc_", kind: "a document id" },
  { prefix: "ret_", kind: "a retrieval request id" },
  { prefix: "fac_", kind: "a facility id" },
  { prefix: "wh_", kind: "a webhook id" },
  { prefix: "ar_", kind: "an action request id" },
];

/** The prefix a path parameter's id has, by the path segment before it. */
const EXPECTED: Readonly<Record<string, string>> = {
  "cases/{case_id}": "case_",
  "documents/{document_id}": "doc_",
  "retrieval-requests/{retrieval_request_id}": "ret_",
  "requestors/{id}": "rqtr_",
  "webhooks/{id}": "wh_",
  "deliveries/{delivery_id}": "whdel_",
};

/**
 * For a 404: a sentence when an id of `params` has the prefix of another kind
 * of id than its place in `path` takes (a case id given as a retrieval
 * request id), naming both prefixes; undefined otherwise. Only the prefix of
 * the id is quoted.
 */
export function idKindHint(
  path: string,
  params: Readonly<Record<string, unknown>> | undefined,
): string | undefined {
  for (const [, segment, name] of path.matchAll(/([\w-]+)\/\{(\w+)\}/g)) {
    const value = params?.[name as string];
    // A retrieval request's documents have their own prefix.
    const expected =
      segment === "documents" && path.startsWith("/v2/retrieval-requests/")
        ? "rdoc_"
        : EXPECTED[`${segment}/{${name}}`];
    if (typeof value !== "string" || expected === undefined || value.startsWith(expected)) continue;
    const given = ID_PREFIXES.find(({ prefix }) => value.startsWith(prefix));
    if (given === undefined) continue;
    const wanted = ID_PREFIXES.find(({ prefix }) => prefix === expected)?.kind ?? expected;
    return `The ${name} given starts with ${given.prefix}, the prefix of ${given.kind}: ${name} takes ${wanted}, which starts with ${expected}.`;
  }
  return undefined;
}
