/**
 * The OpenAPI 3.1 description of the whole /v2 surface, generated rather than
 * written: every operation from the contract (src/contract) the client and
 * the reference server are built on, every field, limit and enum from its zod
 * schemas, and the components, tags and webhook deliveries from components.ts. Plain JSON,
 * with keys in a fixed order so that a change shows as a small diff.
 *
 * Imports no msw: the CLI prints it and must run without msw installed.
 */

import * as z from "zod";
import { errorResponsesOf, SHARED_ERROR_RESPONSES } from "../contract/error-responses.js";
import {
  EMPTY_BODY,
  OPERATIONS,
  type Operation,
  pathParamNames,
  type QueryParameterDoc,
} from "../contract/index.js";
import { CaseCreate, DATE_OF_INJURY_RULE } from "../schemas/cases.js";
import {
  DEFAULT_PAGE_LIMIT,
  OpenEnumOther,
  PAGE_LIMIT_MAX,
  PAGE_LIMIT_MIN,
  PageLimit,
} from "../schemas/common.js";
import { DELIVERY_ONLY_EVENT_TYPES, EVENT_LOG_TYPES, UnknownEvent } from "../schemas/event-list.js";
import { WebhookEvent } from "../schemas/events.js";
import {
  ACTION_RESPONSE_MESSAGE_MAX,
  ActionResponseMessage,
  RetrievalRequestCreate,
} from "../schemas/retrieval-requests.js";
import { WEBHOOK_DELIVERY_TIMEOUT_MS, WebhookUpdate } from "../schemas/webhooks.js";
import { API_KEY_PREFIX } from "../shared/api-key.js";
import { WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS } from "../shared/tolerance.js";
import { WEBHOOK_HEADERS } from "../webhooks/headers.js";
import { REQUEST_COMPONENTS, RESPONSE_COMPONENTS, TAGS, WEBHOOK_EVENTS } from "./components.js";

export type JsonSchema = { [keyword: string]: unknown };
export type Ref = { $ref: string };

export interface ResponseObject {
  description: string;
  headers?: Record<string, Ref>;
  content?: { "application/json": { schema: JsonSchema } };
}

export interface ParameterObject {
  name: string;
  in: "path" | "query" | "header";
  required: boolean;
  description?: string;
  schema: JsonSchema;
}

export interface OperationObject {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  parameters?: (ParameterObject | Ref)[];
  requestBody?: {
    required: true;
    description?: string;
    content: Partial<Record<RequestMediaType, { schema: JsonSchema }>>;
  };
  responses: Record<string, ResponseObject | Ref>;
  security: Record<string, string[]>[];
  /** The scope the route checks before anything else; also in `security`. */
  "x-required-scope"?: string;
  /**
   * Every scope the operation can need: the route's, then those the spec's
   * combination rules add, always or in the case the description states.
   */
  "x-required-scopes"?: string[];
}

export type HttpMethod = "get" | "put" | "post" | "patch" | "delete";
export type PathItem = Partial<Record<HttpMethod, OperationObject>>;

export interface OpenApiDocument {
  openapi: "3.1.0";
  info: { title: string; version: string; description: string };
  servers: { url: string; description: string; variables: Record<string, JsonSchema> }[];
  security: Record<string, string[]>[];
  tags: { name: string; description: string }[];
  paths: Record<string, PathItem>;
  webhooks: Record<string, PathItem>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, ResponseObject>;
    parameters: Record<string, ParameterObject>;
    headers: Record<string, { description: string; schema: JsonSchema }>;
    securitySchemes: Record<string, JsonSchema>;
  };
}

const METHOD_ORDER: readonly HttpMethod[] = ["get", "put", "post", "patch", "delete"];
const schemaRef = (id: string): Ref => ({ $ref: `#/components/schemas/${id}` });
const json = (schema: JsonSchema) => ({ "application/json": { schema } });

/**
 * What an API request body may be sent as: JSON, under its own type or any
 * `+json` one, with any charset (docs/spec-decisions.md); anything else is 415.
 */
export const REQUEST_MEDIA_TYPES = ["application/json", "application/*+json"] as const;
export type RequestMediaType = (typeof REQUEST_MEDIA_TYPES)[number];

// ------------------------------------------------------------------ schemas

/**
 * Rules the zod schemas hold as refinements, which zod cannot write as JSON
 * Schema. Each is stated here in JSON Schema so that the document refuses
 * what the client refuses; keyed by the zod schema they belong to.
 */
const REFINEMENTS = new Map<z.ZodType, (schema: JsonSchema) => void>([
  // `.refine(at least one property)`.
  [WebhookUpdate, (s) => Object.assign(s, { minProperties: 1 })],
  // `.superRefine`: exactly one of each id / inline pair.
  [
    RetrievalRequestCreate,
    (s) => {
      const pairs = [
        ["case_id", "case"],
        ["facility_id", "facility"],
        ["requestor_id", "requestor"],
      ];
      const properties = s.properties as JsonSchema;
      for (const name of pairs.flat()) {
        if (!(name in properties))
          throw new Error(`openapi: RetrievalRequestCreate.${name} is gone`);
      }
      s.allOf = pairs.map((pair) => ({ oneOf: pair.map((name) => ({ required: [name] })) }));
    },
  ],
  // `.regex(NON_BLANK_PATTERN).trim().max(ACTION_RESPONSE_MESSAGE_MAX)`: the pattern (not blank)
  // stays; the bound holds after trimming, so a longest message with surrounding spaces is valid,
  // and a bound on the raw string would refuse it.
  [
    ActionResponseMessage,
    (s) => {
      delete s.maxLength;
      s.description = `Surrounding whitespace is trimmed; what remains must be 1 to ${ACTION_RESPONSE_MESSAGE_MAX} characters (400 otherwise).`;
    },
  ],
  // A number or its decimal spelling (`PAGE_LIMIT_PATTERN`), piped into the bounds: on the wire,
  // an integer query parameter.
  [
    PageLimit,
    (s) => {
      for (const key of Object.keys(s)) delete s[key];
      Object.assign(s, { type: "integer", minimum: PAGE_LIMIT_MIN, maximum: PAGE_LIMIT_MAX });
    },
  ],
  // `.refine(not a known type)`: a known type with malformed data is not an UnknownEvent, nor is
  // `webhook.test`, which is never logged.
  [
    UnknownEvent.shape.type,
    (s) => Object.assign(s, { not: { enum: [...EVENT_LOG_TYPES, ...DELIVERY_ONLY_EVENT_TYPES] } }),
  ],
  // `.refine(isPastDate)`: no JSON Schema keyword compares with today, so the description says it.
  [
    CaseCreate.shape.date_of_injury.unwrap(),
    (s) => Object.assign(s, { description: DATE_OF_INJURY_RULE }),
  ],
  // The inline `case` is a CaseCreate from the same factory (another instance): point at the component.
  [
    RetrievalRequestCreate.shape.case.unwrap(),
    (s) => {
      for (const key of Object.keys(s)) delete s[key];
      Object.assign(s, schemaRef("CaseCreate"));
    },
  ],
]);

// zod writes its own regular expression beside these formats. The format says
// the same to readers and validators, and the regexes (up to 300 characters)
// would drown the document. Not `email`: "email" means different rules to
// different validators, so the document states the service's own
// (EMAIL_PATTERN, RFC 5321 mailboxes at a host name) as the pattern beside the format.
const FORMATS_WITH_ZOD_PATTERN = new Set(["date", "date-time", "uuid"]);

export function override({
  zodSchema,
  jsonSchema,
}: {
  zodSchema: unknown;
  jsonSchema: JsonSchema;
}) {
  const def = (zodSchema as z.ZodType)._zod.def;
  if (typeof jsonSchema.format === "string" && FORMATS_WITH_ZOD_PATTERN.has(jsonSchema.format)) {
    delete jsonSchema.pattern;
  }
  // z.int() bounds every integer to the safe range; that says nothing to a reader of the API.
  if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
  if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
  // A JSON Schema pattern has no flags: a case-insensitive regex would come out stricter.
  if (typeof jsonSchema.pattern === "string") {
    for (const check of def.checks ?? []) {
      const pattern = (check._zod.def as { pattern?: unknown }).pattern;
      if (pattern instanceof RegExp && /[ims]/.test(pattern.flags)) {
        throw new Error(`openapi: /${pattern.source}/${pattern.flags} has flags JSON Schema lacks`);
      }
    }
  }
  // A non-strict z.object strips unknown keys, so the client accepts them
  // (error bodies, event data): the document must not forbid them.
  if (def.type === "object" && (def as z.core.$ZodObjectDef).catchall === undefined) {
    delete jsonSchema.additionalProperties;
  }
  REFINEMENTS.get(zodSchema as z.ZodType)?.(jsonSchema);
}

/**
 * Schemas zod cannot represent: the open part of an open enum is any string;
 * a `Date` bound of the event list query is an SDK convenience sent as its ISO
 * string, so nothing on the wire matches it (`{ not: {} }`, then dropped by
 * `wireForm`). Anything else is a new case to decide, not to paper over.
 */
export function unrepresentable(
  allowDate: boolean,
): z.core.UnrepresentableHandler<z.core.$ZodTypes> {
  return ({ zodSchema, message, path }) => {
    if (zodSchema === (OpenEnumOther as z.core.$ZodType)) return { type: "string" };
    if (allowDate && zodSchema._zod.def.type === "date") return { not: {} };
    throw new Error(`openapi: ${message} (at ${path.join(".") || "the root"})`);
  };
}

/** Converts a set of named zod schemas to components that $ref each other. */
function components(named: Record<string, z.ZodType>, io: "input" | "output") {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(named)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry as z.core.$ZodRegistry<{ id?: string }>, {
    io,
    uri: (id) => schemaRef(id).$ref,
    unrepresentable: unrepresentable(false),
    override,
  });
  return Object.fromEntries(
    Object.entries(schemas).map(([id, { $schema: _dialect, $id: _id, ...rest }]) => [id, rest]),
  ) as Record<string, JsonSchema>;
}

function allComponentSchemas(): Record<string, JsonSchema> {
  const requests = components(REQUEST_COMPONENTS, "input");
  const responses = components(RESPONSE_COMPONENTS, "output");
  for (const id of Object.keys(requests)) {
    if (id in responses)
      throw new Error(`openapi: component ${id} is both a request and a response`);
  }
  return sortKeys({ ...requests, ...responses });
}

/** The component id of a request or response schema; every body is a named component. */
function refTo(schema: z.ZodType, where: string): Ref {
  for (const named of [REQUEST_COMPONENTS, RESPONSE_COMPONENTS]) {
    const id = Object.keys(named).find((key) => named[key] === schema);
    if (id !== undefined) return schemaRef(id);
  }
  throw new Error(`openapi: the body schema of ${where} is not in components.ts`);
}

/**
 * A query parameter as it travels: a string. The SDK's list params also take
 * a `Date` or an array (`type`) and convert them before sending; those forms
 * never reach the service, so they are dropped from an `anyOf`.
 */
function wireForm(schema: JsonSchema): JsonSchema {
  if (!Array.isArray(schema.anyOf)) return schema;
  const { anyOf, ...rest } = schema;
  const kept = (anyOf as JsonSchema[]).filter((branch) => branch.type !== "array" && !branch.not);
  return kept.length === 1 ? { ...rest, ...kept[0] } : { ...rest, anyOf: kept };
}

const PAGING_PARAMETERS: Record<string, string> = {
  limit: `Page size, ${PAGE_LIMIT_MIN} to ${PAGE_LIMIT_MAX} in decimal digits (no sign, leading zero, fraction or exponent); ${DEFAULT_PAGE_LIMIT} when omitted.`,
  cursor:
    "Where the page starts; take it from a `next` or `previous` link rather than building it.",
};

function queryParameters(
  query: z.ZodObject,
  descriptions: Readonly<Record<string, string | QueryParameterDoc>> = {},
): ParameterObject[] {
  const schema = z.toJSONSchema(query, {
    io: "input",
    metadata: z.registry(),
    unrepresentable: unrepresentable(true),
    override,
  }) as JsonSchema;
  const properties = schema.properties as Record<string, JsonSchema>;
  for (const name of Object.keys(descriptions)) {
    if (!(name in properties)) throw new Error(`openapi: no query parameter ${name} to describe`);
  }
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, s]) => {
    const given = descriptions[name];
    const description = typeof given === "object" ? given.description : given;
    const pattern = typeof given === "object" ? { pattern: given.pattern.source } : {};
    const text = description ?? PAGING_PARAMETERS[name];
    return {
      name,
      in: "query",
      required: required.has(name),
      ...(text ? { description: text } : {}),
      schema: { ...wireForm(s), ...pattern },
    };
  });
}

// ------------------------------------------------------------------ operations

const sharedResponse = (name: string): Ref => ({ $ref: `#/components/responses/${name}` });

const REQUEST_ID = { "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" } };

function errorResponse(description: string, status: number): ResponseObject {
  const headers: Record<string, Ref> = { ...REQUEST_ID };
  if (status === 429) headers["Retry-After"] = { $ref: "#/components/headers/Retry-After" };
  return { description, headers, content: json(schemaRef("Error")) };
}

function responses(op: Operation) {
  const out: Record<string, ResponseObject | Ref> = {
    [op.status]: op.response
      ? {
          description: op.status === 201 ? "Created." : "OK.",
          headers: REQUEST_ID,
          content: json(refTo(op.response, op.operationId)),
        }
      : { description: "Done; no body.", headers: REQUEST_ID },
  };
  for (const error of errorResponsesOf(op)) {
    out[error.status] =
      error.own !== undefined
        ? errorResponse(error.own, error.status)
        : sharedResponse(error.shared as string);
  }
  // Any operation can meet a failing or overloaded service; the client retries these where safe.
  out["5XX"] = sharedResponse("ServerError");
  return out;
}

function operation(op: Operation): OperationObject {
  const parameters: ParameterObject[] = [
    ...pathParamNames(op.path).map((name) => ({
      name,
      in: "path" as const,
      required: true,
      schema: { type: "string" },
    })),
    ...(op.query ? queryParameters(op.query, op.parameters) : []),
  ];
  // An operation that refuses every body (EMPTY_BODY) documents none.
  const body = op.body === EMPTY_BODY ? undefined : op.body;
  const { always, sentence } = scopeRequirements(op);
  return {
    operationId: op.operationId,
    summary: op.summary,
    description: op.description ? `${op.description}\n\n${sentence}` : sentence,
    tags: [op.tag],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body
      ? {
          requestBody: {
            required: true as const,
            description:
              "JSON: `Content-Type: application/json` or another `+json` type, any charset (415 otherwise).",
            content: Object.fromEntries(
              REQUEST_MEDIA_TYPES.map((type) => [type, { schema: refTo(body, op.operationId) }]),
            ),
          },
        }
      : {}),
    responses: responses(op),
    // An API key is not OAuth, but OpenAPI 3.1 lets any scheme list the roles it needs:
    // those every call needs; the conditional ones are in `x-required-scopes` and the description.
    security: [{ bearerAuth: always }],
    "x-required-scope": op.scope,
    "x-required-scopes": [...new Set([op.scope, ...op.scopes])],
  };
}

/**
 * The scopes every call needs, and the sentence stating them with those needed
 * only sometimes: "Requires the `a` and `b` scopes; also `c` with an inline `case`."
 */
function scopeRequirements(op: Operation) {
  const when = op.scopeWhen ?? {};
  const extra = op.scopes.filter((scope) => scope !== op.scope);
  const always = [op.scope, ...extra.filter((scope) => when[scope] === undefined)];
  const sometimes = extra
    .filter((scope) => when[scope] !== undefined)
    .map((scope) => `\`${scope}\` ${when[scope]}`);
  const named = always.map((scope) => `\`${scope}\``);
  const head =
    named.length === 1
      ? `Requires the ${named[0]} scope`
      : `Requires the ${named.slice(0, -1).join(", ")} and ${named.at(-1)} scopes`;
  const sentence = sometimes.length === 0 ? `${head}.` : `${head}; also ${sometimes.join("; ")}.`;
  return { always, sentence };
}

function paths(): Record<string, PathItem> {
  const out: Record<string, PathItem> = {};
  // Method by method, so that each path item lists its methods in METHOD_ORDER.
  for (const method of METHOD_ORDER) {
    for (const op of OPERATIONS.filter((candidate) => candidate.method.toLowerCase() === method)) {
      out[op.path] = { ...out[op.path], [method]: operation(op) };
    }
  }
  return sortKeys(out);
}

// ------------------------------------------------------------------ webhooks

/** Title case of a header name: `x-service-signature-v1` → `X-Service-Signature-V1`. */
const headerName = (lower: string) =>
  lower.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());

const DELIVERY_HEADERS: Record<
  keyof typeof WEBHOOK_HEADERS,
  { description: string; pattern?: string }
> = {
  eventId: { description: "Equals the body's `id`: the key to deduplicate on." },
  eventType: { description: "Equals the body's `type`." },
  timestamp: {
    description: `Unix seconds when this attempt was signed; reject values more than ${WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS / 60} minutes from your clock.`,
    pattern: "^[0-9]+$",
  },
  signatureV1: {
    description:
      "`v1=` followed by the hex HMAC-SHA256 of `<timestamp>.<raw body>`, keyed with the webhook secret (the whole `whsec_...` string). The one to verify, in constant time, against the raw bytes.",
    pattern: "^v1=[0-9a-f]{64}$",
  },
  signatureLegacy: {
    description:
      "Legacy: `v0=` followed by the hex HMAC-SHA256 of the raw body alone, without a timestamp. Sent, never needed.",
  },
};

function deliveryHeaders(): Record<string, ParameterObject> {
  const out: Record<string, ParameterObject> = {};
  for (const [key, lower] of Object.entries(WEBHOOK_HEADERS)) {
    const name = headerName(lower);
    const { description, pattern } = DELIVERY_HEADERS[key as keyof typeof WEBHOOK_HEADERS];
    out[name] = {
      name,
      in: "header",
      // Every delivery carries them all; only the legacy signature is of no use to a receiver.
      required: key !== "signatureLegacy",
      description,
      schema: pattern ? { type: "string", pattern } : { type: "string" },
    };
  }
  return out;
}

function webhooks(): Record<string, PathItem> {
  const parameters = Object.values(WEBHOOK_HEADERS).map((lower) => ({
    $ref: `#/components/parameters/${headerName(lower)}`,
  }));
  const out: Record<string, PathItem> = {};
  for (const schema of WebhookEvent.options) {
    const type = schema.shape.type.value;
    out[type] = {
      post: {
        // retrieval_request.status_changed → retrievalRequestStatusChangedEvent
        operationId: `${type.replace(/[._]([a-z])/g, (_m, c: string) => c.toUpperCase())}Event`,
        summary: type,
        description: `${WEBHOOK_EVENTS[type]}\n\nPOSTed to the webhook's URL. Deduplicate by \`id\`: events can arrive more than once and out of order.`,
        tags: ["Webhook events"],
        parameters,
        requestBody: { required: true, content: json(refTo(schema, type)) },
        responses: {
          "2XX": {
            description: `Received, within ${WEBHOOK_DELIVERY_TIMEOUT_MS / 1000} seconds. Any other status (redirects included), a timeout or a connection error is a failed attempt.`,
          },
        },
        // Deliveries carry no API key: they are signed with the webhook's secret (see the headers).
        security: [],
      },
    };
  }
  return sortKeys(out);
}

// ------------------------------------------------------------------ the document

/** Where the reference server serves the document, without a key. */
export const OPENAPI_PATH = "/v2/openapi.json";

export function buildOpenApiDocument(): OpenApiDocument {
  return {
    openapi: "3.1.0",
    info: {
      title: "Medical Record Retrieval API",
      version: "1.0.0",
      description:
        'Cases, case documents, retrieval requests, webhooks and the event log of the Medical Record Retrieval API v2. Generated from the zod schemas and the reference server\'s routes of the `medrecords` SDK. Every failed call answers `{ "error": { "code", "message" } }`; every response carries `X-Request-Id`. Email fields carry `format: email` and, as their `pattern`, the rule the service applies: an RFC 5321 mailbox (a dot-atom or quoted local part) at a host name, so every address the pattern takes the format admits too.',
    },
    servers: [
      {
        url: "{origin}",
        description: "The service's origin; every path begins with /v2.",
        variables: {
          origin: {
            default: "https://api.medrecords.test",
            description: "The reference server's default origin (`medrecords/mock`).",
          },
        },
      },
    ],
    security: [{ bearerAuth: [] }],
    tags: TAGS.map((tag) => ({ ...tag })),
    paths: paths(),
    webhooks: webhooks(),
    components: {
      schemas: allComponentSchemas(),
      responses: Object.fromEntries(
        Object.entries(SHARED_ERROR_RESPONSES).map(([name, [status, description]]) => [
          name,
          errorResponse(description, status),
        ]),
      ),
      parameters: deliveryHeaders(),
      headers: {
        "Retry-After": {
          description: "Seconds to wait before trying again.",
          schema: { type: "integer", minimum: 0 },
        },
        "X-Request-Id": {
          description:
            "Identifies the call; quote it to support. Events record it as `request_id`.",
          schema: { type: "string" },
        },
      },
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "API key",
          description: `An API key: \`Authorization: Bearer ${API_KEY_PREFIX}<secret>\`. Each operation lists every scope it can need in \`x-required-scopes\` (the conditions are in its description), the scopes every call needs in \`security\`, and the scope checked first in \`x-required-scope\`.`,
        },
      },
    },
  };
}

let cached: OpenApiDocument | undefined;

/** The document, built once and frozen (callers share it). */
export function openApiDocument(): OpenApiDocument {
  cached ??= deepFreeze(buildOpenApiDocument());
  return cached;
}

// ------------------------------------------------------------------ helpers

/** Keys sorted: a stable order for diffs. */
function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : 1)));
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
