/**
 * Where one response departs from what its operation declares (src/contract):
 * the status (the success status, the listed error statuses, any 5xx), the
 * error code (the codes the status's description names), and the body's
 * shape (the response schema, or the error body).
 */
import {
  codesIn,
  descriptionOf,
  errorResponsesOf,
  SERVER_ERROR_CODES,
} from "../contract/error-responses.js";
import type { Operation } from "../contract/operation.js";
import { ErrorBody } from "../schemas/common.js";
import type { Drift, ShapeDrift } from "./drift.js";
import { checkShape } from "./shape-check.js";

/** A response as the checker reads it: status and parsed JSON body (undefined when none). */
export interface CheckedResponse {
  readonly status: number;
  readonly body: unknown;
  readonly requestId: string | undefined;
}

/** The statuses and codes an operation lists, worked out once per operation. */
interface Listed {
  readonly statuses: string;
  readonly codes: ReadonlyMap<number, readonly string[]>;
}

const listedCache = new WeakMap<Operation, Listed>();

function listedOf(op: Operation): Listed {
  let listed = listedCache.get(op);
  if (listed === undefined) {
    const errors = errorResponsesOf(op);
    listed = {
      statuses: [op.status, ...errors.map((error) => error.status), "5xx"].join(", "),
      codes: new Map(errors.map((error) => [error.status, codesIn(descriptionOf(error))])),
    };
    listedCache.set(op, listed);
  }
  return listed;
}

/** The error codes `op` lists for `status` (a 5xx: the server error codes); empty when none. */
export function listedCodes(op: Operation, status: number): readonly string[] {
  return (status >= 500 ? SERVER_ERROR_CODES : listedOf(op).codes.get(status)) ?? [];
}

/** Every drift of `response` from what `op` declares. */
export function responseDrifts(op: Operation, response: CheckedResponse): Drift[] {
  return responseShapeDrifts(op, response).map((drift) => ({
    operation: op.operationId,
    status: response.status,
    request_id: response.requestId,
    ...drift,
  }));
}

/** The drifts of a response without its identity (what `medrecords drift` lists per exchange). */
export function responseShapeDrifts(op: Operation, response: CheckedResponse): ShapeDrift[] {
  const { status, body } = response;
  const listed = listedOf(op);
  if (status === op.status) {
    return op.response && status !== 204 ? checkShape(op.response, body) : [];
  }
  const codes = status >= 500 ? SERVER_ERROR_CODES : listed.codes.get(status);
  const out: ShapeDrift[] = [];
  if (codes === undefined && status < 500) {
    out.push({
      pointer: "",
      kind: "unexpected_status",
      expected: listed.statuses,
      got: String(status),
    });
  }
  if (status < 400) {
    // A success under another status (a create answered 200): its body is still the operation's.
    if (op.response && body !== undefined) checkShape(op.response, body, "", out);
    return out;
  }
  if (body === undefined) return out;
  checkShape(ErrorBody, body, "", out);
  const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
  if (codes !== undefined && typeof code === "string" && !codes.includes(code)) {
    out.push({
      pointer: "/error/code",
      kind: "unknown_error_code",
      expected: codes.length > 0 ? `one of ${codes.join(", ")}` : "a listed code",
      got: "string",
    });
  }
  return out;
}
