/**
 * Which client method calls each operation of the contract, derived from the
 * methods themselves: each names its operation in its return type
 * (`APIPromise<Case, "getCase">`, `PagePromise<Case, "listCases">`), which
 * only a call of that operation compiles against. An operation no method
 * names fails `tsc` here, naming it ({@link EveryOperationHasAMethod}); a
 * method that names one operation and calls another fails in its resource.
 * Nothing in the package imports it at run time; the tests call every
 * operation through `ClientMethods` (test/helpers/client-methods.ts).
 */
import type { z } from "zod";
import type { MedRecords } from "./client.js";
import type { Contract } from "./contract/index.js";
import type { Operation } from "./contract/operation.js";
import type { APIPromise } from "./core/api-promise.js";
import type { PagePromise } from "./core/pagination.js";
/** The names of the client's resources: `"cases" | "documents" | ...`. */
export type ResourceName = {
  [K in keyof MedRecords]: MedRecords[K] extends object ? K : never;
}[keyof MedRecords];

/** `"resource.method"` for every method of every resource. */
type MethodPath = {
  [R in ResourceName]: {
    [M in keyof MedRecords[R] & string]: MedRecords[R][M] extends (...args: never[]) => unknown
      ? `${R}.${M}`
      : never;
  }[keyof MedRecords[R] & string];
}[ResourceName];

/** The path template's ids as a tuple of strings, in order. */
type PathArgs<P extends string> = P extends `${string}{${string}}${infer Rest}`
  ? [string, ...PathArgs<Rest>]
  : [];

/** What a method of an operation takes first: its path ids, then its body (when it has one). */
export type LeadingArgs<O extends Operation> = O extends {
  readonly body: infer B extends z.ZodType;
}
  ? [...PathArgs<O["path"]>, z.input<B>]
  : PathArgs<O["path"]>;

type MethodAt<P extends MethodPath> = P extends `${infer R extends ResourceName}.${infer M}`
  ? M extends keyof MedRecords[R]
    ? MedRecords[R][M]
    : never
  : never;

/** The operationId a method names in its return type (`string` when it names none). */
export type OperationOfMethod<M> = M extends (...args: never[]) => infer R
  ? R extends APIPromise<unknown, infer Id>
    ? Id
    : R extends PagePromise<unknown, infer Id>
      ? Id
      : never
  : never;

/**
 * The methods that name operation `Id` in their return type and whose
 * parameters fit `O` (a deprecated alias names it too, as the method it
 * stands for).
 */
type MethodFor<Id extends string, O extends Operation> = {
  [P in MethodPath]: Names<OperationOfMethod<MethodAt<P>>, Id> extends true
    ? MethodAt<P> extends (...args: [...LeadingArgs<O>, ...never[]]) => unknown
      ? P
      : never
    : never;
}[MethodPath];

/** Whether a method naming `Named` names exactly `Id` (one naming none names nothing). */
type Names<Named, Id extends string> = [Named] extends [never]
  ? false
  : [Named] extends [Id]
    ? true
    : false;

/** For each operation of a contract, the client methods that call it. */
export type ClientMethodsOf<C extends { readonly [id: string]: Operation }> = {
  readonly [K in keyof C & string]: MethodFor<K, C[K]>;
};

/** Each operation of the contract and the client methods that call it. */
export type ClientMethods = ClientMethodsOf<Contract>;

/** The operations of `C` no client method calls. */
export type Unbound<C extends { readonly [id: string]: Operation }> = {
  [K in keyof C & string]: [MethodFor<K, C[K]>] extends [never] ? K : never;
}[keyof C & string];

/** Accepts only `never`: what is left over fails here, named. */
type None<T extends never> = T;

/**
 * Fails to compile, naming the operation, while an operation of the
 * contract has no client method ("Type '"getCaseSummary"' does not satisfy
 * the constraint 'never'").
 */
export type EveryOperationHasAMethod = None<Unbound<Contract>>;
