/**
 * Checks real responses against the OpenAPI document with ajv (JSON Schema
 * 2020-12, OpenAPI 3.1's dialect): finds the operation whose path template
 * matches the URL, the response documented for the status, and validates
 * the JSON body against its schema.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { fullFormats } from "ajv-formats/dist/formats.js";
import type { OpenApiDocument, ResponseObject } from "../../src/openapi/document.js";

// ajv-formats is CommonJS; its `default` property is the plugin under either module system.
const addFormats = addFormatsModule.default;

export interface ResponseToCheck {
  method: string;
  /** Absolute URL or path; the query string is ignored. */
  url: string;
  status: number;
  /** The parsed JSON body; undefined when there is none. */
  body: unknown;
}

export interface DeliveryToCheck {
  /** Header names in any case. */
  headers: Record<string, string>;
  /** The parsed JSON body. */
  body: unknown;
}

export interface OpenApiValidator {
  /** Problems with the response, empty when it matches the document. */
  validateResponse(response: ResponseToCheck): string[];
  /** Problems with a request body, as `application/json`, empty when the operation accepts it. */
  validateRequestBody(request: { method: string; url: string; body: unknown }): string[];
  /** Problems with a webhook delivery (found by its body's `type` under `webhooks`), empty when it matches. */
  validateDelivery(delivery: DeliveryToCheck): string[];
  /** "METHOD template" of the documented operation a request goes to, e.g. `GET /v2/cases/{case_id}`. */
  operationOf(method: string, url: string): string | undefined;
}

// Where the document is registered with ajv, so that "#/components/..." refs resolve.
const DOC_ID = "https://medrecords.test/openapi.json";

export function createOpenApiValidator(doc: OpenApiDocument): OpenApiValidator {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats(ajv);
  // `format: email` is RFC 5321's Mailbox (JSON Schema). ajv-formats' full `email` is its dot-atom
  // local part at a domain with a dot; the RFC's quoted local part (`"a b"@firm.example`) and
  // one-label domain (`ops@localhost`), which the service takes, are added here, written apart
  // from the service's EMAIL_PATTERN (test/openapi/email-format.test.ts holds the two together).
  ajv.addFormat("email", (address: string) => isRfc5321Mailbox(address));
  // OpenAPI's own keys around the schemas; ajv's strict mode would refuse them as unknown keywords.
  for (const keyword of [
    "openapi",
    "info",
    "servers",
    "security",
    "tags",
    "paths",
    "webhooks",
    "components",
  ]) {
    ajv.addKeyword({ keyword });
  }
  ajv.addSchema({ ...structuredClone(doc), $id: DOC_ID });

  const templates = Object.keys(doc.paths).map((template) => ({
    template,
    regex: new RegExp(
      `^${template.replace(/[.*+?^${}()|[\]\\]/g, (c) => (c === "{" || c === "}" ? c : `\\${c}`)).replace(/\{[^}]+\}/g, "[^/]+")}$`,
    ),
  }));

  const templateOf = (url: string) => {
    const path = new URL(url, "https://placeholder.invalid").pathname;
    return { path, match: templates.find(({ regex }) => regex.test(path)) };
  };

  return {
    operationOf(method, url) {
      const { match } = templateOf(url);
      const lower = method.toLowerCase() as keyof (typeof doc.paths)[string];
      if (match === undefined || doc.paths[match.template]?.[lower] === undefined) return undefined;
      return `${method.toUpperCase()} ${match.template}`;
    },

    validateResponse({ method, url, status, body }) {
      const { path, match } = templateOf(url);
      if (match === undefined) return [`no path in the document matches ${path}`];
      const lower = method.toLowerCase();
      const operation = doc.paths[match.template]?.[lower as keyof (typeof doc.paths)[string]];
      if (operation === undefined) return [`${method} ${match.template} is not in the document`];
      const where = `${method.toUpperCase()} ${match.template} ${status}`;
      // An exact status wins over its range ("5XX"), as OpenAPI says.
      const key = [String(status), `${String(status)[0]}XX`].find(
        (candidate) => operation.responses[candidate] !== undefined,
      );
      const entry = key === undefined ? undefined : operation.responses[key];
      if (key === undefined || entry === undefined) return [`${where}: undocumented status`];
      const response = resolve(doc, entry);
      const media = response.content?.["application/json"];
      if (media === undefined) {
        return body === undefined || body === ""
          ? []
          : [`${where}: documented without a body, got one`];
      }
      if (body === undefined) return [`${where}: documented with a body, got none`];
      const pointer = ["paths", match.template, lower, "responses", key]
        .map((part) => part.replace(/~/g, "~0").replace(/\//g, "~1"))
        .join("/");
      const target =
        "$ref" in entry
          ? `${entry.$ref}/content/application~1json/schema`
          : `#/${pointer}/content/application~1json/schema`;
      return check(target, body, where);
    },

    validateRequestBody({ method, url, body }) {
      const { path, match } = templateOf(url);
      if (match === undefined) return [`no path in the document matches ${path}`];
      const lower = method.toLowerCase();
      const where = `${method.toUpperCase()} ${match.template}`;
      const operation = doc.paths[match.template]?.[lower as keyof (typeof doc.paths)[string]];
      if (operation?.requestBody === undefined) return [`${where} documents no request body`];
      const pointer = ["paths", match.template, lower, "requestBody", "content", "application/json"]
        .map((part) => part.replace(/~/g, "~0").replace(/\//g, "~1"))
        .join("/");
      return check(`#/${pointer}/schema`, body, where);
    },

    validateDelivery({ headers, body }) {
      const type = (body as { type?: unknown } | null)?.type;
      if (typeof type !== "string" || doc.webhooks[type]?.post === undefined) {
        return [`no webhook in the document for type ${String(type)}`];
      }
      const operation = doc.webhooks[type].post;
      const present = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
      const problems: string[] = [];
      for (const entry of operation.parameters ?? []) {
        const name =
          "$ref" in entry ? entry.$ref.replace("#/components/parameters/", "") : entry.name;
        const parameter = doc.components.parameters[name];
        if (parameter?.required && !present.has(name.toLowerCase())) {
          problems.push(`${type}: header ${name} is missing`);
        }
      }
      const pointer = `#/webhooks/${type.replace(/~/g, "~0").replace(/\//g, "~1")}/post/requestBody/content/application~1json/schema`;
      return [...problems, ...check(pointer, body, type)];
    },
  };

  function check(pointer: string, value: unknown, where: string): string[] {
    const validate = ajv.getSchema(`${DOC_ID}${pointer}`);
    if (validate === undefined) return [`${where}: no schema at ${pointer}`];
    if (validate(value)) return [];
    return (validate.errors ?? []).map(
      (e) => `${where}: ${e.instancePath || "(body)"} ${e.message} ${JSON.stringify(e.params)}`,
    );
  }
}

function resolve(doc: OpenApiDocument, entry: ResponseObject | { $ref: string }): ResponseObject {
  if (!("$ref" in entry)) return entry;
  const name = entry.$ref.replace("#/components/responses/", "");
  const found = doc.components.responses[name];
  if (found === undefined) throw new Error(`unresolved ${entry.$ref}`);
  return found;
}

const ATOM = "[a-z0-9!#$%&'*+/=?^_`{|}~-]+";
const LABEL = "[a-z0-9](?:[a-z0-9-]*[a-z0-9])?";
/** RFC 5321 Quoted-string: qtextSMTP (%d32-33 / %d35-91 / %d93-126) or a backslash pair. */
const QUOTED = '"(?:[ !#-\\[\\]-~]|\\\\[ -~])*"';
const QUOTED_MAILBOX = new RegExp(`^${QUOTED}@${LABEL}(?:\\.${LABEL})*$`, "i");
const ONE_LABEL_MAILBOX = new RegExp(`^${ATOM}(?:\\.${ATOM})*@${LABEL}$`, "i");

/**
 * RFC 5321's Mailbox without address literals: ajv-formats' full `email`
 * (Dot-string at a dotted domain), or a Quoted-string local part, or a
 * one-label domain.
 */
export function isRfc5321Mailbox(address: string): boolean {
  return (
    (fullFormats.email as RegExp).test(address) ||
    QUOTED_MAILBOX.test(address) ||
    ONE_LABEL_MAILBOX.test(address)
  );
}
