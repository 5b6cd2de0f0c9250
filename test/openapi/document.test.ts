/** The OpenAPI document's shape: version, coverage of the contract's operations, scopes, statuses. */
import { describe, expect, it } from "vitest";
import { OPERATIONS } from "../../src/contract/index.js";
import { EMPTY_BODY } from "../../src/contract/operation.js";
import { createMockService } from "../../src/mock/index.js";
import {
  buildOpenApiDocument,
  type HttpMethod,
  type OpenApiDocument,
  openApiDocument,
} from "../../src/openapi/document.js";
import { CaseCreate } from "../../src/schemas/cases.js";
import { EMAIL_PATTERN } from "../../src/schemas/email.js";
import { EVENT_TYPE_FILTER_MAX } from "../../src/schemas/event-list.js";
import { ACTION_RESPONSE_MESSAGE_MAX } from "../../src/schemas/retrieval-requests.js";
import { HTTP_URL_PATTERN } from "../../src/schemas/uri.js";
import { WEBHOOK_HEADERS } from "../../src/webhooks/headers.js";
import { createOpenApiValidator } from "../helpers/openapi-validator.js";
import { createApi } from "../mock/helpers.js";

const doc = openApiDocument();

function operationsOf(document: OpenApiDocument) {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
  );
}

function operation(method: string, path: string) {
  const found = doc.paths[path]?.[method.toLowerCase() as HttpMethod];
  if (found === undefined) throw new Error(`${method} ${path} is not in the document`);
  return found;
}

describe("the OpenAPI document", () => {
  it("is OpenAPI 3.1 for the API, document version 1.0.0 (spec, Versioning)", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.title).toBe("Medical Record Retrieval API");
    expect(doc.info.version).toBe("1.0.0");
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({
      type: "http",
      scheme: "bearer",
    });
  });

  it("is plain JSON, built the same every time, and cached frozen", () => {
    const first = JSON.stringify(buildOpenApiDocument());
    expect(JSON.stringify(buildOpenApiDocument())).toBe(first);
    expect(JSON.stringify(JSON.parse(first))).toBe(first);
    expect(openApiDocument()).toBe(doc);
    expect(Object.isFrozen(doc.paths)).toBe(true);
    expect(Object.keys(doc.paths)).toEqual(Object.keys(doc.paths).sort());
    expect(Object.keys(doc.components.schemas)).toEqual(Object.keys(doc.components.schemas).sort());
  });

  it("has every operation of the contract, with its scopes, and nothing else", () => {
    expect(OPERATIONS.length).toBeGreaterThan(0);
    for (const contract of OPERATIONS) {
      const op = operation(contract.method, contract.path);
      expect(op.operationId).toBe(contract.operationId);
      const extra = contract.scopes.filter((scope) => scope !== contract.scope);
      const always = extra.filter((scope) => contract.scopeWhen?.[scope] === undefined);
      expect(op.security, `${contract.method} ${contract.path}`).toEqual([
        { bearerAuth: [contract.scope, ...always] },
      ]);
      expect(op["x-required-scope"]).toBe(contract.scope);
      expect(op["x-required-scopes"]).toEqual([contract.scope, ...extra]);
      expect(op.description).toContain(`\`${contract.scope}\``);
      for (const scope of extra) {
        const when = contract.scopeWhen?.[scope];
        expect(op.description).toContain(
          when === undefined ? `\`${scope}\`` : `\`${scope}\` ${when}`,
        );
      }
    }
    expect(operationsOf(doc)).toHaveLength(OPERATIONS.length);
    const ids = operationsOf(doc).map(({ operation: op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("states the scopes the spec's endpoint tables give (read independently of the contract)", () => {
    // Copied from the spec's Endpoints tables; the document takes its scopes from the contract.
    const spec: [string, string, string][] = [
      ["POST", "/v2/cases", "cases:write"],
      ["GET", "/v2/cases/{case_id}", "cases:read"],
      ["PATCH", "/v2/cases/{case_id}", "cases:write"],
      ["POST", "/v2/cases/{case_id}/sign-upload", "documents:write"],
      ["POST", "/v2/retrieval-requests/sign-upload", "retrievals:write"],
      ["POST", "/v2/retrieval-requests/{retrieval_request_id}/action-response", "retrievals:write"],
      ["POST", "/v2/webhooks", "webhooks:write"],
      ["GET", "/v2/webhooks", "webhooks:read"],
      ["PATCH", "/v2/webhooks/{id}", "webhooks:write"],
      ["DELETE", "/v2/webhooks/{id}", "webhooks:write"],
      ["POST", "/v2/webhooks/{id}/test", "webhooks:write"],
      ["GET", "/v2/events", "webhooks:read"],
      ["GET", "/v2/events/{id}", "webhooks:read"],
    ];
    for (const [method, path, scope] of spec) {
      expect(operation(method, path)["x-required-scope"], `${method} ${path}`).toBe(scope);
    }
  });

  it("lists every scope an operation can need, the spec's combination rules included", () => {
    // The spec's Authentication and Events sections, read independently of the contract.
    const scopes = (method: string, path: string) => operation(method, path)["x-required-scopes"];
    expect(scopes("POST", "/v2/webhooks")).toEqual(["webhooks:write", "retrievals:read"]);
    expect(operation("POST", "/v2/webhooks").security).toEqual([
      { bearerAuth: ["webhooks:write", "retrievals:read"] },
    ]);
    expect(scopes("PATCH", "/v2/webhooks/{id}")).toEqual(["webhooks:write", "retrievals:read"]);
    expect(scopes("POST", "/v2/retrieval-requests")).toEqual([
      "retrievals:write",
      "cases:write",
      "requestors:write",
    ]);
    // The inline resources are conditional: only retrievals:write is needed by every call.
    expect(operation("POST", "/v2/retrieval-requests").security).toEqual([
      { bearerAuth: ["retrievals:write"] },
    ]);
    expect(operation("POST", "/v2/retrieval-requests").description).toMatch(
      /`cases:write` with an inline `case`.*`requestors:write` with an inline `requestor`/,
    );
    for (const path of ["/v2/events", "/v2/events/{id}"]) {
      expect(scopes("GET", path)).toEqual(["webhooks:read", "retrievals:read"]);
      expect(operation("GET", path).description).toContain("`retrieval_request.*`");
    }
    expect(scopes("GET", "/v2/cases/{case_id}")).toEqual(["cases:read"]);
  });

  it("answers with the success statuses of the spec decisions (§9)", () => {
    const success = (method: string, path: string) =>
      Object.keys(operation(method, path).responses).filter((status) => status.startsWith("2"));
    for (const path of ["/v2/cases", "/v2/webhooks", "/v2/retrieval-requests", "/v2/requestors"]) {
      expect(success("POST", path)).toEqual(["201"]);
    }
    expect(success("POST", "/v2/cases/{case_id}/documents")).toEqual(["201"]);
    expect(success("POST", "/v2/cases/{case_id}/sign-upload")).toEqual(["200"]);
    expect(success("POST", "/v2/webhooks/{id}/test")).toEqual(["200"]);
    expect(success("PATCH", "/v2/cases/{case_id}")).toEqual(["200"]);
    expect(success("DELETE", "/v2/webhooks/{id}")).toEqual(["204"]);
    expect(operation("DELETE", "/v2/webhooks/{id}").responses[204]).not.toHaveProperty("content");
    for (const { method, operation: op } of operationsOf(doc)) {
      if (method === "get") expect(Object.keys(op.responses)).toContain("200");
    }
  });

  it("documents the errors each operation can answer", () => {
    for (const { path, operation: op } of operationsOf(doc)) {
      expect(Object.keys(op.responses), path).toEqual(
        expect.arrayContaining(["400", "401", "403"]),
      );
      if (path.includes("{")) expect(Object.keys(op.responses), path).toContain("404");
    }
    expect(operation("POST", "/v2/webhooks").responses).toHaveProperty("409");
    expect(operation("POST", "/v2/webhooks/{id}/test").responses[429]).toMatchObject({
      description: expect.stringContaining("10 seconds"),
      headers: { "Retry-After": expect.anything() },
    });
    expect(doc.components.schemas.Error).toMatchObject({
      properties: { error: { required: ["code", "message"] } },
    });
  });

  it("lists 429 rate_limited with Retry-After on every operation: the spec shows no general limit", () => {
    for (const { method, path, operation: op } of operationsOf(doc)) {
      const entry = op.responses[429];
      expect(entry, `${method} ${path}`).toBeDefined();
      const response = entry && "$ref" in entry ? doc.components.responses.RateLimited : entry;
      expect(response?.headers, `${method} ${path}`).toHaveProperty("Retry-After");
      expect(response?.description).toContain("`rate_limited`");
    }
  });

  it("takes request bodies as JSON (application/json or +json) and answers 415 otherwise, also where every body but {} is refused", () => {
    const withBody = operationsOf(doc).filter(({ operation: op }) => op.requestBody);
    expect(withBody.map(({ operation: op }) => op.operationId)).toContain("respondToActionRequest");
    // Operations that read a body only to refuse any but `{}` (delete, test, redeliver).
    const refusing = new Set(
      OPERATIONS.filter((o) => o.body === EMPTY_BODY).map((o) => o.operationId),
    );
    expect(refusing.size).toBeGreaterThanOrEqual(3);
    for (const { method, path, operation: op } of operationsOf(doc)) {
      const where = `${method} ${path}`;
      if (op.requestBody === undefined) {
        if (refusing.has(op.operationId)) {
          expect(op.responses[415], where).toEqual({
            $ref: "#/components/responses/UnsupportedMediaType",
          });
          expect(op.responses, where).toHaveProperty("413");
        } else {
          expect(op.responses, where).not.toHaveProperty("415");
        }
        continue;
      }
      expect(Object.keys(op.requestBody.content), where).toEqual([
        "application/json",
        "application/*+json",
      ]);
      expect(op.responses[415], where).toEqual({
        $ref: "#/components/responses/UnsupportedMediaType",
      });
    }
    expect(doc.components.responses.UnsupportedMediaType?.description).toContain(
      "`unsupported_media_type`",
    );
  });

  it("bounds the action-response message after trimming, not on the raw string", () => {
    const validator = createOpenApiValidator(doc);
    const url = "/v2/retrieval-requests/rr_1/action-response";
    const message = (text: string) =>
      validator.validateRequestBody({ method: "POST", url, body: { message: text } });
    const longest = "x".repeat(ACTION_RESPONSE_MESSAGE_MAX);
    // Valid: the maximum after trimming, wrapped in spaces (longer than the maximum raw).
    expect(message(`  ${longest}  `)).toEqual([]);
    expect(message(longest)).toEqual([]);
    // The rule is stated for readers; JSON Schema cannot trim.
    expect(doc.components.schemas.ActionResponse).toMatchObject({
      properties: {
        message: {
          type: "string",
          description: expect.stringContaining(`1 to ${ACTION_RESPONSE_MESSAGE_MAX} characters`),
        },
      },
    });
    const schema = (doc.components.schemas.ActionResponse as { properties: Record<string, object> })
      .properties.message;
    expect(schema).not.toHaveProperty("maxLength");
    expect(schema).not.toHaveProperty("minLength");
  });

  it("states the shapes the spec gives: event ids, the v1 signature, api_version, emails and URIs", () => {
    const validator = createOpenApiValidator(doc);
    const hex64 = "0123456789abcdef".repeat(4);
    const entry = {
      id: `rr-${hex64}`,
      object: "event",
      type: "retrieval_request.action_required",
      created_at: "2026-03-01T10:00:00.000Z",
      api_version: "v2",
      request_id: null,
      data: {
        retrieval_request_id: "ret_1",
        case_id: null,
        public_updated_at: "2026-03-01T10:00:00.000Z",
        action_request_id: "ar_1",
      },
    };
    const event = (body: unknown) =>
      validator.validateResponse({ method: "GET", url: "/v2/events/x", status: 200, body });
    expect(event(entry)).toEqual([]);
    expect(event({ ...entry, id: `rr-${hex64.slice(1)}` })).not.toEqual([]);
    expect(event({ ...entry, id: `rr-${hex64}0` })).not.toEqual([]);
    expect(event({ ...entry, id: `rr-${hex64.toUpperCase()}` })).not.toEqual([]);
    expect(event({ ...entry, api_version: "v3" })).not.toEqual([]);
    // A webhook.test body as delivered (never a log entry: test/contract/spec-fidelity.test.ts).
    const test = {
      id: "evt_test_0b7e2a44-5a0e-4c55-9d0a-3f1c2b8e9d10",
      type: "webhook.test",
      created_at: "2026-03-01T10:00:00.000Z",
      data: { webhook_id: "wh_1" },
    };
    const headers = {
      "X-Webhook-Event-Id": test.id,
      "X-Webhook-Event-Type": test.type,
      "X-Service-Timestamp": "1772359200",
      "X-Service-Signature-V1": `v1=${hex64}`,
    };
    const delivery = (body: unknown) => validator.validateDelivery({ headers, body });
    expect(delivery(test)).toEqual([]);
    expect(delivery({ ...test, id: "evt_test_0b7e2a44" })).not.toEqual([]);
    expect(delivery({ ...test, id: `rr-${hex64}` })).not.toEqual([]);

    const signature = doc.components.parameters["X-Service-Signature-V1"]?.schema.pattern as string;
    expect(new RegExp(signature).test(`v1=${hex64}`)).toBe(true);
    expect(new RegExp(signature).test(`v1=${hex64.slice(1)}`)).toBe(false);
    expect(new RegExp(signature).test(`v0=${hex64}`)).toBe(false);

    const schemas = doc.components.schemas as Record<
      string,
      { properties: Record<string, unknown> }
    >;
    // The service's own rules, as patterns beside the formats (test/contract/spec-fidelity.test.ts).
    const email = { type: "string", format: "email", pattern: EMAIL_PATTERN.source };
    expect(schemas.Requestor?.properties.email).toEqual(email);
    expect(schemas.Case?.properties.client_email).toMatchObject({
      anyOf: [email, { type: "null" }],
    });
    for (const id of ["Webhook", "WebhookCreateResponse"]) {
      expect(schemas[id]?.properties.url, id).toEqual({
        type: "string",
        format: "uri",
        pattern: HTTP_URL_PATTERN.source,
      });
    }
    expect(schemas.CaseList?.properties.next).toMatchObject({
      anyOf: [{ type: "string", format: "uri" }, { type: "null" }],
    });
    expect(schemas.WebhookTestResult?.properties.event_id).toMatchObject({
      pattern: expect.stringMatching(/^\^evt_test_/),
    });
  });

  it("says in date_of_injury's description that it must be in the past, as the schema's refinement checks", () => {
    const schemas = doc.components.schemas as Record<
      string,
      { properties: Record<string, { description?: string; format?: string }> }
    >;
    const field = schemas.CaseCreate?.properties.date_of_injury;
    expect(field?.format).toBe("date");
    expect(field?.description).toContain("date_of_injury must be in the past");
    expect(CaseCreate.shape.date_of_injury.safeParse("2999-01-01").success).toBe(false);
  });

  it("states the events type filter as the reference server takes it: 1 to 20 known types, comma-separated", async () => {
    const parameter = (operation("GET", "/v2/events").parameters ?? []).find(
      (p) => "name" in p && p.name === "type",
    );
    const schema = (parameter as unknown as { schema: { pattern: string } }).schema;
    const pattern = new RegExp(schema.pattern, "u");
    const known = ["retrieval_request.status_changed", "webhook.disabled"];
    const twenty = Array.from({ length: 20 }, (_, i) => known[i % 2]).join(",");
    const values = [
      known[0]!,
      known.join(","),
      ` ${known[0]} , ${known[1]} `,
      twenty,
      `${twenty},${known[0]}`,
      "",
      " ",
      `${known[0]},`,
      `,${known[0]}`,
      `${known[0]},,${known[1]}`,
      "retrieval_request.nope",
      "retrieval_requestXstatus_changed",
      "webhook.test",
      `${known[0]}x`,
    ];
    const mock = createMockService();
    const api = createApi(mock, mock.apiKeys.create());
    const accepted: string[] = [];
    for (const value of values) {
      const answer = await api.get(`/v2/events?type=${encodeURIComponent(value)}`);
      expect([200, 400], value).toContain(answer.status);
      if (answer.status === 200) accepted.push(value);
      expect(pattern.test(value), JSON.stringify(value)).toBe(answer.status === 200);
    }
    expect(accepted).toEqual(values.slice(0, 4));
    expect(EVENT_TYPE_FILTER_MAX).toBe(20);
  });

  it("takes query parameters from the list-params schemas, as strings on the wire", () => {
    const names = (method: string, path: string) =>
      (operation(method, path).parameters ?? []).map((p) => ("name" in p ? p.name : p.$ref));
    expect(names("GET", "/v2/documents")).toEqual(["limit", "cursor", "case_id", "archived"]);
    expect(names("GET", "/v2/events")).toEqual([
      "limit",
      "cursor",
      "type",
      "created_after",
      "created_before",
      "object_id",
    ]);
    const events = operation("GET", "/v2/events").parameters ?? [];
    // The SDK also takes a Date and an array; only the string forms travel.
    expect(events.find((p) => "name" in p && p.name === "created_after")).toMatchObject({
      schema: { type: "string", format: "date-time" },
    });
    expect(events.find((p) => "name" in p && p.name === "type")).toMatchObject({
      schema: { type: "string", pattern: expect.any(String) },
    });
    expect(operation("GET", "/v2/facilities").parameters).toContainEqual(
      expect.objectContaining({ name: "query", required: true }),
    );
    expect(operation("GET", "/v2/cases").parameters).toContainEqual(
      expect.objectContaining({
        name: "limit",
        schema: { type: "integer", minimum: 1, maximum: 100 },
      }),
    );
  });

  it("keeps the limits and enums of the zod schemas", () => {
    const schemas = doc.components.schemas;
    expect(schemas.CaseCreate).toMatchObject({
      additionalProperties: false,
      required: ["title", "client_name"],
      properties: {
        title: { minLength: 1, maxLength: 500 },
        status: { enum: ["active", "pending", "closed"] },
      },
    });
    expect(schemas.WebhookCreate).toMatchObject({
      properties: { name: { maxLength: 100 }, url: { maxLength: 2048 }, events: { minItems: 1 } },
    });
    expect(schemas.WebhookList).toMatchObject({ type: "array", maxItems: 20 });
    expect(schemas.WebhookUpdate).toMatchObject({ minProperties: 1 });
    expect(schemas.RetrievalRequestCreate).toMatchObject({
      properties: { case: { $ref: "#/components/schemas/CaseCreate" } },
    });
    expect(schemas.RetrievalRequestList).toMatchObject({
      required: ["results", "next", "previous", "next_public_updated_since"],
    });
  });

  it("accepts unknown values of open enums, as the client does", () => {
    const validator = createOpenApiValidator(doc);
    const kase = {
      id: "case_1",
      case_number: "C-1",
      title: "t",
      client_name: "c",
      case_category: "a_category_added_later",
      status: "a_status_added_later",
      created_at: "2026-03-01T10:00:00.000Z",
      updated_at: "2026-03-01T10:00:00.000Z",
    };
    const check = (body: unknown) =>
      validator.validateResponse({ method: "GET", url: "/v2/cases/case_1", status: 200, body });
    expect(check(kase)).toEqual([]);
    expect(check({ ...kase, status: 42 })).not.toEqual([]);
    expect(doc.components.schemas.RetrievalStatus).toEqual({
      anyOf: [
        {
          type: "string",
          enum: ["pending", "processing", "action_required", "completed", "cancelled"],
        },
        { type: "string" },
      ],
    });
  });

  it("describes every webhook delivery with its payload and signature headers", () => {
    expect(Object.keys(doc.webhooks)).toEqual([
      "retrieval_request.action_required",
      "retrieval_request.documents_available",
      "retrieval_request.status_changed",
      "webhook.test",
    ]);
    const headerNames = Object.values(WEBHOOK_HEADERS);
    for (const [type, item] of Object.entries(doc.webhooks)) {
      const post = item.post!;
      expect(post.security).toEqual([]);
      const refs = (post.parameters ?? []).map((p) => ("$ref" in p ? p.$ref : p.name));
      expect(refs.map((ref) => ref.split("/").pop()!.toLowerCase())).toEqual(headerNames);
      expect(post.requestBody?.content["application/json"]?.schema, type).toHaveProperty("$ref");
    }
    expect(doc.components.parameters["X-Service-Signature-V1"]).toMatchObject({
      in: "header",
      required: true,
    });
  });
});
