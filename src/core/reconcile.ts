/**
 * Creates with an unknown outcome (docs/spec-decisions.md, "Client
 * behaviour"): a create that timed out, lost its connection after sending or
 * was answered with a 5xx may exist. With `reconcile: true` the resource is
 * looked up by its `external_id` and returned when it exists, and the create
 * is sent again when it does not, so a retrieval request is never sent to a
 * provider twice because an answer was lost.
 */
import type { Operation } from "../contract/operation.js";
import { APIPromise, type WithResponse } from "./api-promise.js";
import { APIError, ConnectionError, TimeoutError } from "./errors.js";
import type { RequestOptions } from "./options.js";
import { type Core, describeOperation, type ResponseOf, validateError } from "./request.js";

/** Options of `cases.create` and `retrievalRequests.create`. */
export interface CreateOptions extends RequestOptions {
  /**
   * After a failure that may have created the resource anyway (the error's
   * `mayHaveSucceeded`), look it up by the body's `external_id` (a list
   * filtered on it) and resolve the existing one; when there is none, send
   * the create again, at most `maxRetries` times. Needs an `external_id`
   * that names this one create (without one the call is refused before
   * sending, with a `ValidationError` naming `external_id`) and a key that
   * may list the resource (`cases:read`, `retrievals:read`). When the lookup
   * itself fails, the create's error is thrown: the outcome is still unknown.
   * `.withResponse()` then gives the response that produced the resource:
   * the create's 201, or the lookup's list page.
   * @default false
   * @example await mr.cases.create({ title, client_name, external_id: "matter-1042" }, { reconcile: true })
   */
  reconcile?: boolean;
}

/** Whether `error` says that the service may have carried the request out. */
export function mayHaveSucceeded(error: unknown): boolean {
  return (
    (error instanceof APIError ||
      error instanceof ConnectionError ||
      error instanceof TimeoutError) &&
    error.mayHaveSucceeded
  );
}

/**
 * Calls the create operation `create`; with `reconcile: true`, reconciles an
 * unknown outcome through the list operation `list` and its `external_id`
 * filter. What `cases.create` and `retrievalRequests.create` are made of.
 */
export function reconciledCreate<
  C extends Operation,
  L extends Operation & { readonly list: true },
>(
  core: Core,
  create: C,
  list: L,
  body: unknown,
  options: CreateOptions = {},
): APIPromise<ResponseOf<C>, C["operationId"]> {
  const { reconcile = false, ...request } = options;
  if (!reconcile) return core.call(create, { body }, request);
  return new APIPromise<ResponseOf<C>, C["operationId"]>(
    createOrFind(core, create, list, body, request),
  );
}

async function createOrFind<C extends Operation>(
  core: Core,
  create: C,
  list: Operation,
  body: unknown,
  request: RequestOptions,
): Promise<WithResponse<ResponseOf<C>>> {
  const externalId = (body as { external_id?: unknown } | null | undefined)?.external_id;
  if (typeof externalId !== "string" || externalId === "") {
    throw validateError(
      describeOperation(create),
      "external_id",
      "Required with `reconcile: true`: a create whose outcome is unknown is looked up by it",
    );
  }
  const find = async (): Promise<WithResponse<ResponseOf<C>> | undefined> => {
    const query = { external_id: externalId, limit: 1 };
    const page = await core.call(list, { query }, request).withResponse();
    const [first] = (page.data as unknown as { results: { external_id?: string | null }[] })
      .results;
    // Checked again here: a service that ignored the filter must not hand back another resource.
    if (first?.external_id !== externalId) return undefined;
    return { ...page, data: first as ResponseOf<C> };
  };
  const budget = request.maxRetries ?? core.options.maxRetries;
  // Whether any create sent so far may have acted: a later definite refusal
  // (an upload already consumed, say) may be the trace of that earlier one.
  let earlier = false;
  for (let sent = 0; ; sent++) {
    let error: unknown;
    try {
      return await core.call(create, { body }, request).withResponse();
    } catch (failure) {
      error = failure;
    }
    const unknownOutcome = mayHaveSucceeded(error);
    earlier ||= unknownOutcome;
    if (!earlier) throw error;
    const found = await find().catch(() => {
      throw error;
    });
    if (found !== undefined) return found;
    // A definite refusal would be refused again; an unknown outcome is retried within the budget.
    if (!unknownOutcome || sent >= budget) throw error;
  }
}
