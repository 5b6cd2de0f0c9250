/**
 * Calls any operation of the contract through the client method that calls
 * it (test/helpers/client-methods.ts), with the arguments in the order every such
 * method takes them: the path template's ids, then the body (when the
 * operation has one), then the query (when it has one).
 */

import {
  CONTRACT,
  type Operation,
  type OperationId,
  pathParamNames,
} from "../../src/contract/index.js";
import type { MedRecords } from "../../src/index.js";
import { VALID_BODIES, VALID_QUERIES } from "../fuzz/arbitraries.js";
import { CLIENT_METHODS } from "./client-methods.js";

/** `METHOD /path/:param`, as VALID_BODIES and the reference server's routes key an operation. */
export const routeKey = (op: Operation) => `${op.method} ${op.path.replace(/\{(\w+)\}/g, ":$1")}`;

/** A valid body for `op` (undefined when it takes none). */
export const validBody = (op: Operation): unknown =>
  typeof op.body === "object" ? VALID_BODIES[routeKey(op)]?.[0] : undefined;

/** A valid query for `op` (undefined, the method's default, when it needs nothing). */
export const validQuery = (op: Operation): unknown => VALID_QUERIES[routeKey(op)];

export interface CallArguments {
  /** The value of each path id, by the template's name. */
  ids: (name: string) => string;
  body?: unknown;
  query?: unknown;
}

/** `"cases.retrieve"`, the client method that calls the operation. */
export const methodOf = (id: OperationId): string => CLIENT_METHODS[id];

/** Calls operation `id` through its client method. */
export function callOperation(
  mr: MedRecords,
  id: OperationId,
  { ids, body = validBody(CONTRACT[id]), query = validQuery(CONTRACT[id]) }: CallArguments,
): PromiseLike<unknown> {
  const op: Operation = CONTRACT[id];
  const [resource, method] = CLIENT_METHODS[id].split(".") as [string, string];
  const args: unknown[] = pathParamNames(op.path).map(ids);
  if (typeof op.body === "object") args.push(body);
  if (op.query !== undefined) args.push(query);
  const target = (mr as unknown as Record<string, Record<string, (...a: unknown[]) => unknown>>)[
    resource
  ]!;
  return target[method]!.call(target, ...args) as PromiseLike<unknown>;
}
