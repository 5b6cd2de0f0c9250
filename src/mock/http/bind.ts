/**
 * The reference server's one binding of the contract to the model: what
 * every route does around its handler (scopes, query, body, status and list
 * envelope) is done here from the operation's declaration, so a handler is
 * only the call into the model. The handlers are one record typed over the
 * contract's keys ({@link Handlers}): an operation without one fails `tsc`,
 * naming it.
 */
import type { z } from "zod";
import { CONTRACT, type Contract, OPERATION_IDS } from "../../contract/index.js";
import { EMPTY_BODY, type Operation, type PathParamsOf } from "../../contract/operation.js";
import { type ApiKeyRecord, requireScope } from "../model/api-keys.js";
import { type Page, toListEnvelope } from "../model/paginate.js";
import {
  type ApiCall,
  type ApiRoute,
  json,
  NoQuery,
  parseJsonBody,
  readJsonText,
  readNoBody,
  readQuery,
} from "./handlers/shared.js";

type QueryOf<O extends Operation> = O extends { readonly query: infer Q extends z.ZodType }
  ? z.output<Q>
  : Record<string, never>;

type BodySchemaOf<O extends Operation> = O extends { readonly body: infer B extends z.ZodType }
  ? B
  : undefined;

type BodyOf<B> = B extends z.ZodType ? z.output<B> : undefined;

/** What a bound handler is given: the request, already checked and parsed. */
export interface BoundCall<O extends Operation, B> {
  readonly params: PathParamsOf<O["path"]>;
  /** The query, parsed by the operation's schema (empty when it takes none). */
  readonly query: QueryOf<O>;
  /** The body, parsed by the operation's schema (or the binding's); undefined when it takes none. */
  readonly body: B;
  readonly apiKey: ApiKeyRecord;
  /** The X-Request-Id this call is answered with. */
  readonly requestId: string;
  readonly url: URL;
  readonly request: Request;
}

/** A page of a list operation, and fields the envelope carries besides `results`, `next` and `previous`. */
export interface ListResult<T = unknown> extends Page<T> {
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** The success body an operation declares (what its `response` schema parses to). */
export type AnswerOf<O extends Operation> = O extends {
  readonly response: infer R extends z.ZodType;
}
  ? z.output<R>
  : undefined;

/** One item of a list operation's envelope. */
export type ItemOf<O extends Operation> =
  AnswerOf<O> extends { readonly results: readonly (infer T)[] } ? T : never;

/**
 * What a handler returns, typed from the operation's declaration: a page of
 * its items for a list, nothing for a 204, else its success body (so a
 * handler answering anything else fails `tsc`, naming the field).
 */
export type ResultOf<O extends Operation> = O extends { readonly list: true }
  ? ListResult<ItemOf<O>>
  : O extends { readonly status: 204 }
    ? undefined
    : AnswerOf<O>;

export interface BindOptions<B> {
  /**
   * Validates the body with this schema instead of the operation's: one
   * whose rules follow the mock's clock (a date in the past), or one that
   * leaves a rule to the model's own, more precise error.
   */
  readonly body?: B;
}

/** The function that answers an operation: the call into the model. */
export type Handler<O extends Operation, B = BodyOf<BodySchemaOf<O>>> = (
  call: BoundCall<O, B>,
) => ResultOf<O> | Promise<ResultOf<O>>;

/**
 * How the reference server answers an operation: its handler, or its
 * handler with a server-only variant of the body schema (one whose rules
 * follow the mock's clock), which must parse to the declared body's type.
 */
export type Binding<O extends Operation> =
  | Handler<O>
  | {
      readonly handle: Handler<O>;
      readonly body: z.ZodType<BodyOf<BodySchemaOf<O>>>;
    };

/** One binding per operation of a contract, keyed as the contract is. */
export type HandlersOf<C extends { readonly [id: string]: Operation }> = {
  readonly [K in keyof C]: Binding<C[K]>;
};

/** One binding per operation of the contract, keyed by operationId. */
export type Handlers = HandlersOf<Contract>;

/**
 * Every operation of the contract bound to its handler, in the contract's
 * order (the order routes are matched in).
 */
export function bindContract(ctx: { readonly baseUrl: string }, handlers: Handlers): ApiRoute[] {
  return OPERATION_IDS.map((id) => {
    const binding = handlers[id] as Binding<Operation>;
    const operation: Operation = CONTRACT[id];
    return typeof binding === "function"
      ? bind(ctx, operation, binding)
      : bind(ctx, operation, binding.handle, { body: binding.body });
  });
}

/**
 * The route of `operation`, answered by `handler`. `ctx.baseUrl` (read at
 * each call) is the origin of a list's `next`/`previous` links.
 */
function bind<O extends Operation, B extends z.ZodType | undefined = BodySchemaOf<O>>(
  ctx: { readonly baseUrl: string },
  operation: O,
  handler: (call: BoundCall<O, BodyOf<B>>) => ResultOf<O> | Promise<ResultOf<O>>,
  options: BindOptions<B> = {},
): ApiRoute {
  const querySchema = operation.query ?? NoQuery;
  const declared = operation.body;
  const bodySchema = (options.body ?? declared) as z.ZodType | typeof EMPTY_BODY | undefined;
  const rules = operation.scopeRules ?? [];
  const always = rules.flatMap((rule) => (rule.when === "always" ? [rule.scope] : []));
  const bodyHas = (checked: "before-validation" | "after-validation") =>
    rules.flatMap((rule) => (rule.when === "body-has" && rule.checked === checked ? [rule] : []));
  const beforeValidation = bodyHas("before-validation");
  const afterValidation = bodyHas("after-validation");

  const render = (result: unknown, url: URL): Response => {
    if (operation.status === 204) return new Response(null, { status: 204 });
    if (operation.list !== true) return json(operation.status, result);
    const page = result as ListResult;
    const envelope = toListEnvelope(page, (item) => item, { baseUrl: ctx.baseUrl, url });
    return json(
      operation.status,
      page.extra === undefined ? envelope : { ...envelope, ...page.extra },
    );
  };

  const run = (call: ApiCall, query: unknown, body: unknown): Response | Promise<Response> => {
    const bound = {
      params: call.params,
      query,
      body,
      apiKey: call.apiKey,
      requestId: call.requestId,
      url: call.url,
      // Read only by a handler that needs it, so a GET builds no Request.
      get request() {
        return call.request;
      },
    } as BoundCall<O, BodyOf<B>>;
    const result = handler(bound);
    return result instanceof Promise
      ? result.then((settled) => render(settled, call.url))
      : render(result, call.url);
  };

  const readBodyThenRun = async (call: ApiCall, query: unknown): Promise<Response> => {
    if (bodySchema === EMPTY_BODY) {
      await readNoBody(call.request);
      return run(call, query, undefined);
    }
    const text = await readJsonText(call.request);
    // Before validation, so a key without the scope learns no validation rules.
    if (beforeValidation.length > 0) {
      const raw = parseLoosely(text);
      for (const rule of beforeValidation) {
        if (hasProperty(raw, rule.property)) requireScope(call.apiKey, rule.scope);
      }
    }
    const body = parseJsonBody(text, bodySchema as z.ZodType);
    for (const rule of afterValidation) {
      if (hasProperty(body, rule.property)) requireScope(call.apiKey, rule.scope);
    }
    return run(call, query, body);
  };

  return {
    operation,
    method: operation.method,
    pattern: operation.path,
    handle(call) {
      requireScope(call.apiKey, operation.scope);
      for (const scope of always) requireScope(call.apiKey, scope);
      const query = readQuery(call.url, querySchema);
      return bodySchema === undefined ? run(call, query, undefined) : readBodyThenRun(call, query);
    },
  };
}

/** The JSON value of a body, or undefined when it is not JSON (validation then answers). */
function parseLoosely(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function hasProperty(value: unknown, property: string): boolean {
  if (typeof value !== "object" || value === null) return false;
  return (
    Object.hasOwn(value, property) && (value as Record<string, unknown>)[property] !== undefined
  );
}
