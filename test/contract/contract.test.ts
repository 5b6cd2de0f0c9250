/**
 * The API contract (src/contract): each operation declared once, well formed,
 * and served by the reference server exactly as declared.
 */
import { describe, expect, it } from "vitest";
import {
  CONTRACT,
  EMPTY_BODY,
  OPERATIONS,
  type Operation,
  pathParamNames,
} from "../../src/contract/index.js";
import { apiRoutes } from "../../src/mock/http/routes.js";
import { contextOf } from "../../src/mock/service/service.js";
import { SCOPES } from "../../src/schemas/scopes.js";
import { createApi, expectError, setup } from "../mock/helpers.js";

const name = (op: Operation) => `${op.operationId} (${op.method} ${op.path})`;

describe("the contract", () => {
  it("keys every operation by its operationId", () => {
    for (const [key, op] of Object.entries(CONTRACT)) expect(op.operationId).toBe(key);
    expect(OPERATIONS).toEqual(Object.values(CONTRACT));
  });

  it("gives every operation its own operationId and its own method + path", () => {
    const ids = OPERATIONS.map((op) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    // `{id}` and `{case_id}` at the same place would route alike: compare with the names erased.
    const routes = OPERATIONS.map((op) => `${op.method} ${op.path.replace(/\{\w+\}/g, "{}")}`);
    expect(new Set(routes).size).toBe(routes.length);
  });

  it.each(OPERATIONS.map((op) => [name(op), op] as const))(
    "%s: its path is /v2/..., each parameter a whole segment named once",
    (_, op) => {
      expect(op.path).toMatch(/^\/v2(\/([a-z0-9-]+|\{[a-z_]+\}))+$/);
      const params = pathParamNames(op.path);
      expect(new Set(params).size).toBe(params.length);
      for (const param of params) expect(op.path.split("/")).toContain(`{${param}}`);
    },
  );

  it.each(OPERATIONS.map((op) => [name(op), op] as const))(
    "%s: `scopes` holds `scope` and every combination rule's scope, each a scope of the spec",
    (_, op) => {
      expect(op.scopes).toContain(op.scope);
      for (const rule of op.scopeRules ?? []) expect(op.scopes).toContain(rule.scope);
      for (const scope of op.scopes) expect(SCOPES).toContain(scope);
      expect(new Set(op.scopes).size).toBe(op.scopes.length);
      // The server checks each of them, but the event families' read scopes: the log filters on those.
      const checked = [op.scope, ...(op.scopeRules ?? []).map((rule) => rule.scope)];
      const filtered = op.tag === "Events" ? ["retrievals:read"] : [];
      expect(new Set([...checked, ...filtered])).toEqual(new Set(op.scopes));
    },
  );

  it.each(OPERATIONS.map((op) => [name(op), op] as const))(
    "%s: a 204 has no response schema, any other status has one; a list answers 200",
    (_, op) => {
      expect(op.response === undefined).toBe(op.status === 204);
      if (op.list) expect(op.status).toBe(200);
      if (op.method === "GET") expect(op.body).toBeUndefined();
    },
  );

  it("declares the client's retry policy: every method but POST is idempotent, and signing an upload", () => {
    // The client retries a call after a timeout or a 5xx only where `idempotent` says so.
    const idempotentPosts = OPERATIONS.filter((op) => op.method === "POST" && op.idempotent);
    expect(idempotentPosts.map((op) => op.operationId).sort()).toEqual([
      "signCaseUpload",
      "signRetrievalUpload",
    ]);
    for (const op of OPERATIONS)
      if (op.method !== "POST") expect(op.idempotent, name(op)).toBe(true);
  });

  it("holds the spec's combination rules (Authentication)", () => {
    const byId = Object.fromEntries(OPERATIONS.map((op) => [op.operationId, op]));
    expect(byId.createRetrievalRequest?.scopes).toEqual([
      "retrievals:write",
      "cases:write",
      "requestors:write",
    ]);
    expect(byId.createWebhook?.scopes).toEqual(["webhooks:write", "retrievals:read"]);
    expect(byId.updateWebhook?.scopes).toEqual(["webhooks:write", "retrievals:read"]);
    expect(byId.listEvents?.scopes).toEqual(["webhooks:read", "retrievals:read"]);
    expect(byId.getEvent?.scopes).toEqual(["webhooks:read", "retrievals:read"]);
  });
});

describe("the reference server serves the contract", () => {
  it("binds every operation once, in the contract's order", () => {
    const { mock } = setup();
    const served = apiRoutes(contextOf(mock)).map((route) => route.operation);
    expect(served).toEqual(OPERATIONS);
    expect(served.every((op, i) => op === OPERATIONS[i])).toBe(true);
  });

  // A valid body that triggers each rule (after-validation rules need a body that validates).
  const TRIGGERS: Record<string, unknown> = {
    case: {},
    requestor: {},
    events: ["retrieval_request.status_changed"],
  };
  const ruled = OPERATIONS.flatMap((op) =>
    (op.scopeRules ?? []).map((rule) => [name(op), rule.scope, op, rule] as const),
  );

  it.each(ruled)(
    "%s: a key without %s is refused 403 when the rule applies",
    async (_, scope, op, rule) => {
      const { mock } = setup();
      const key = mock.apiKeys.create({ scopes: SCOPES.filter((s) => s !== scope) });
      const path = op.path.replace(/\{(\w+)\}/g, "x_$1");
      const body = rule.when === "body-has" ? { [rule.property]: TRIGGERS[rule.property] } : {};
      const response = await createApi(mock, key).call(op.method, path, { body });
      expect(expectError(response, 403, "insufficient_scope")).toContain(scope);
    },
  );

  it("checks a before-validation rule on the raw body: an invalid body naming `case` is 403, not 400", async () => {
    const { mock } = setup();
    const key = mock.apiKeys.create({ scopes: ["retrievals:write"] });
    const response = await createApi(mock, key).post("/v2/retrieval-requests", {
      case: "not an object",
    });
    expectError(response, 403, "insufficient_scope");
  });

  it("refuses a body on an operation that takes none, and accepts {} or nothing", async () => {
    const { api } = setup();
    for (const op of OPERATIONS.filter((op) => op.body === EMPTY_BODY)) {
      const path = op.path.replace(/\{(\w+)\}/g, "x_$1");
      expectError(await api.call(op.method, path, { body: { extra: 1 } }), 400, "validation_error");
      // Past the body check, the model looks the resource up.
      expectError(await api.call(op.method, path, { body: {} }), 404, "not_found");
      expectError(await api.call(op.method, path), 404, "not_found");
    }
  });
});
