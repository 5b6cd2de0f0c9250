/**
 * The API contract: every operation, declared once (src/contract/*), and
 * gathered in one record keyed by operationId. The client, the reference
 * server and the OpenAPI document read it; the server's handlers
 * (src/mock/http/handlers) and the client's method table (src/client-methods.ts)
 * are typed over its keys, so an operation left out of either fails `tsc`,
 * naming it. Internal: not exported from any of the package's entry points.
 */
import * as cases from "./cases.js";
import * as documents from "./documents.js";
import * as events from "./events.js";
import * as facilities from "./facilities.js";
import type { Operation } from "./operation.js";
import * as requestors from "./requestors.js";
import * as retrievalRequests from "./retrieval-requests.js";
import * as uploads from "./uploads.js";
import * as webhooks from "./webhooks.js";

export * from "./operation.js";
export { cases, documents, events, facilities, requestors, retrievalRequests, uploads, webhooks };

/** A record of operations whose every key is its operation's `operationId`. */
export type KeyedByOperationId<C> = {
  readonly [K in keyof C]: Operation & { readonly operationId: K };
};

/**
 * Every operation, keyed by its operationId, in the order the reference
 * server matches them and the OpenAPI document lists them: each module's
 * `operations`, in the document's order of tags.
 */
export const CONTRACT = {
  ...cases.operations,
  ...uploads.operations,
  ...documents.operations,
  ...webhooks.operations,
  ...retrievalRequests.operations,
  ...facilities.operations,
  ...requestors.operations,
  ...events.operations,
} as const;

/** The operationIds a contract module declares (its exported operations). */
type DeclaredIn<M> = {
  [K in keyof M]: M[K] extends Operation ? M[K]["operationId"] : never;
}[keyof M];

/** Accepts only `never`: what is left over fails here, named. */
type None<T extends never> = T;

/**
 * Fails to compile, naming the operationId, while a module declares an
 * operation its `operations` record (and so `CONTRACT`) leaves out.
 */
export type EveryDeclaredOperationIsInTheContract = None<
  Exclude<
    | DeclaredIn<typeof cases>
    | DeclaredIn<typeof uploads>
    | DeclaredIn<typeof documents>
    | DeclaredIn<typeof webhooks>
    | DeclaredIn<typeof retrievalRequests>
    | DeclaredIn<typeof facilities>
    | DeclaredIn<typeof requestors>
    | DeclaredIn<typeof events>,
    keyof typeof CONTRACT
  >
>;

/** The contract's record type. */
export type Contract = typeof CONTRACT;

/** The operationId of an operation of the contract: the contract's keys. */
export type OperationId = keyof Contract;

/** Every operation, in the contract's order. A key that is not its operation's operationId fails here. */
export const OPERATIONS: readonly Operation[] = Object.values(
  CONTRACT satisfies KeyedByOperationId<Contract>,
);

/** The operationIds, in the contract's order. */
export const OPERATION_IDS = Object.keys(CONTRACT) as OperationId[];
