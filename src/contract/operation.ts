/**
 * One API operation, declared once: what the client sends, what the
 * reference server accepts and answers, and what the OpenAPI document
 * describes. Internal: not exported from any of the package's entry points.
 */
import type { z } from "zod";
import type { Scope } from "../schemas/scopes.js";

export type HttpMethod = "GET" | "POST" | "PATCH" | "DELETE";

/** The tags of the OpenAPI document, in its order. */
export type Tag =
  | "Cases"
  | "Documents"
  | "Retrieval requests"
  | "Facilities"
  | "Requestors"
  | "Webhooks"
  | "Events";

/** Error statuses an operation answers with a description of its own. */
export type ErrorStatus = 400 | 404 | 409 | 429;

/** A query parameter's description, and the pattern of its wire form. */
export interface QueryParameterDoc {
  readonly description: string;
  readonly pattern: RegExp;
}

/** The names of a path template's parameters: `"/v2/cases/{case_id}"` gives `"case_id"`. */
export type PathParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? Name | PathParamNames<Rest>
  : never;

/** The decoded path parameters of a path template. */
export type PathParamsOf<P extends string> = { readonly [K in PathParamNames<P>]: string };

/**
 * An operation without a request body that still reads one, to refuse it:
 * nothing, or an empty JSON object `{}`, is accepted; anything else is an
 * unknown property (400 `validation_error`).
 */
export const EMPTY_BODY = "empty";

/**
 * A scope needed on top of {@link Operation.scope}, checked by the
 * reference server before the handler runs (spec, Authentication:
 * combination rules).
 */
export type ScopeRule =
  /** Needed by every call, checked right after the operation's scope. */
  | { readonly scope: Scope; readonly when: "always" }
  /**
   * Needed when the JSON body has `property`: on the raw body before
   * validation (a key without the scope learns no validation rules), or on
   * the validated body.
   */
  | {
      readonly scope: Scope;
      readonly when: "body-has";
      readonly property: string;
      readonly checked: "before-validation" | "after-validation";
    };

export interface Operation<P extends string = string> {
  /** The OpenAPI operationId, e.g. `getCase`. */
  readonly operationId: string;
  readonly method: HttpMethod;
  /** The path template in OpenAPI syntax, e.g. `/v2/cases/{case_id}`. */
  readonly path: P;
  readonly summary: string;
  readonly tag: Tag;
  /** Rules a caller needs beyond the summary, e.g. scopes checked on top of the route's. */
  readonly description?: string;
  /** The query's schema; absent when the operation refuses every parameter. */
  readonly query?: z.ZodObject;
  /**
   * Descriptions of query parameters (`limit` and `cursor` have a common one),
   * with the `pattern` the service holds a parameter's wire form to where the
   * query schema checks less (the document states it).
   */
  readonly parameters?: Readonly<Record<string, string | QueryParameterDoc>>;
  /**
   * The request body's schema; {@link EMPTY_BODY} when the operation takes
   * none but refuses a non-empty one; absent when a body is never read (GET).
   */
  readonly body?: z.ZodType | typeof EMPTY_BODY;
  /** Success status: 201 creates, 204 deletes, 200 everything else. */
  readonly status: 200 | 201 | 204;
  /** The success body's schema; absent with 204. */
  readonly response?: z.ZodType;
  /** A paginated list: the server answers a page as the list envelope, with `next`/`previous` links. */
  readonly list?: true;
  /** The scope checked before anything else of the operation. */
  readonly scope: Scope;
  /**
   * Every scope the operation can need: {@link scope}, the combination
   * rules of {@link scopeRules}, and the read scope of the event families
   * the event log filters on.
   * @default [scope, ...the scopes of scopeRules]
   */
  readonly scopes: readonly Scope[];
  /** Scopes the server checks on top of {@link scope}, and when. */
  readonly scopeRules?: readonly ScopeRule[];
  /**
   * When a scope of {@link scopes} beyond {@link scope} is needed, in words
   * for the OpenAPI document (e.g. "with an inline `case`"); a scope not
   * named here is needed by every call.
   */
  readonly scopeWhen?: Readonly<Partial<Record<Scope, string>>>;
  /**
   * Whether sending it twice is harmless, so the client may retry it after
   * a timeout or a 5xx. Every method but POST is; signing an upload is too.
   * @default method !== "POST"
   */
  readonly idempotent: boolean;
  /**
   * Errors beyond those of every operation (400 validation_error, 401, 403,
   * and 404 where the path names a resource), or a more precise description
   * of one of those: the codes this operation can answer with.
   */
  readonly errors?: Readonly<Partial<Record<ErrorStatus, string>>>;
}

/** An operation as declared: {@link Operation.scopes} and {@link Operation.idempotent} may take their defaults. */
export type OperationDeclaration<P extends string = string> = Omit<
  Operation<P>,
  "scopes" | "idempotent"
> &
  Partial<Pick<Operation<P>, "scopes" | "idempotent">>;

/**
 * Declares an operation, keeping its literal types (path template, method,
 * status) and filling in the defaults of `scopes` and `idempotent`.
 */
export function defineOperation<const P extends string, const O extends OperationDeclaration<P>>(
  operation: O & { readonly path: P },
): O & Operation<P> {
  return {
    ...operation,
    scopes: operation.scopes ?? [
      operation.scope,
      ...(operation.scopeRules ?? []).map((rule) => rule.scope),
    ],
    idempotent: operation.idempotent ?? operation.method !== "POST",
  };
}

/** The names of a path template's parameters, in order. */
export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((match) => match[1] as string);
}
