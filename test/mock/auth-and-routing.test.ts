import { describe, expect, it } from "vitest";
import type { Scope } from "../../src/mock/index.js";
import { SCOPES } from "../../src/schemas/scopes.js";
import {
  bytesOf,
  createApi,
  createCase,
  expectError,
  putBytes,
  REQUEST_ID,
  setup,
  signUpload,
} from "./helpers.js";

describe("API keys", () => {
  it("are medrecords_sk_live_ followed by 32 base62 characters, each one different", () => {
    const { mock } = setup();
    const keys = Array.from({ length: 20 }, () => mock.apiKeys.create());
    for (const key of keys) expect(key).toMatch(/^medrecords_sk_live_[0-9A-Za-z]{32}$/);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("refuses to create a key with a scope the spec does not define", () => {
    const { mock } = setup();
    expect(() => mock.apiKeys.create({ scopes: ["cases:delete" as Scope] })).toThrow(
      /Unknown scope/,
    );
  });
});

describe("authentication", () => {
  it("answers 401 invalid_api_key when the Authorization header is missing", async () => {
    const { api } = setup();
    expectError(await api.get("/v2/cases", { key: null }), 401, "invalid_api_key");
  });

  it.each(["Basic abc", "Bearer", "Bearer ", "medrecords_sk_live_x", "Bearer a b"])(
    "answers 401 invalid_api_key for the malformed header %j",
    async (header) => {
      const { api } = setup();
      const response = await api.get("/v2/cases", {
        key: null,
        headers: { authorization: header },
      });
      expectError(response, 401, "invalid_api_key");
    },
  );

  it("answers 401 invalid_api_key for an unknown key without echoing it", async () => {
    const { api } = setup();
    const unknown = "medrecords_sk_live_UnknownUnknownUnknownUnknown1234";
    const message = expectError(
      await api.get("/v2/cases", { key: unknown }),
      401,
      "invalid_api_key",
    );
    expect(message).not.toContain("UnknownUnknown");
    expect(message).not.toContain("medrecords_sk_live_");
    // A key of the right shape it does not know: most likely one from before a restart.
    expect(message).toMatch(/do not survive a restart unless given in MEDRECORDS_API_KEY/);
  });

  it("says nothing of restarts for a value that is not a key of the service's shape", async () => {
    const { api } = setup();
    const message = expectError(
      await api.get("/v2/cases", { key: "sk_test_notours_1234567890abcdef" }),
      401,
      "invalid_api_key",
    );
    expect(message).not.toContain("restart");
  });

  it("apiKeys.register accepts a key of the service's shape, with its scopes, and refuses another", async () => {
    const { mock } = setup();
    const kept = "medrecords_sk_live_kept0000000000000000000000000001";
    expect(mock.apiKeys.register(kept, { scopes: ["cases:read"] })).toBe(kept);
    const api = createApi(mock, kept);
    expect((await api.get("/v2/cases")).status).toBe(200);
    expectError(
      await api.post("/v2/cases", { title: "T", client_name: "C" }),
      403,
      "insufficient_scope",
    );
    for (const bad of [
      "sk_live_abc",
      "medrecords_sk_live_short",
      "medrecords_sk_live_with space 0000000",
    ]) {
      expect(() => mock.apiKeys.register(bad)).toThrow(/shape/);
      try {
        mock.apiKeys.register(bad);
      } catch (error) {
        expect((error as Error).message).not.toContain(bad);
      }
    }
  });

  it("a key from another mock service is unknown here", async () => {
    const { mock } = setup();
    const other = setup();
    const response = await createApi(mock, other.key).get("/v2/cases");
    expectError(response, 401, "invalid_api_key");
  });

  it("checks the key before the route: an unknown path without a key is 401, not 404", async () => {
    const { api } = setup();
    expectError(await api.get("/v2/nothing-here", { key: null }), 401, "invalid_api_key");
  });
});

describe("scopes", () => {
  const endpoints: Array<[method: string, path: string, scope: Scope]> = [
    ["POST", "/v2/cases", "cases:write"],
    ["GET", "/v2/cases", "cases:read"],
    ["GET", "/v2/cases/case_x", "cases:read"],
    ["PATCH", "/v2/cases/case_x", "cases:write"],
    ["POST", "/v2/cases/case_x/sign-upload", "documents:write"],
    ["POST", "/v2/retrieval-requests/sign-upload", "retrievals:write"],
    ["POST", "/v2/cases/case_x/documents", "documents:write"],
    ["GET", "/v2/documents", "documents:read"],
    ["GET", "/v2/documents/doc_x", "documents:read"],
    ["PATCH", "/v2/documents/doc_x", "documents:write"],
    ["GET", "/v2/documents/doc_x/download", "documents:read"],
    ["POST", "/v2/webhooks", "webhooks:write"],
    // Every subscribable event is a retrieval event (spec, Authentication).
    ["POST", "/v2/webhooks", "retrievals:read"],
    ["GET", "/v2/webhooks", "webhooks:read"],
    ["GET", "/v2/webhooks/wh_x", "webhooks:read"],
    ["PATCH", "/v2/webhooks/wh_x", "webhooks:write"],
    ["DELETE", "/v2/webhooks/wh_x", "webhooks:write"],
    ["POST", "/v2/webhooks/wh_x/test", "webhooks:write"],
    ["GET", "/v2/webhooks/wh_x/deliveries", "webhooks:read"],
    ["POST", "/v2/webhooks/wh_x/deliveries/whdel_x/redeliver", "webhooks:write"],
  ];

  it.each(endpoints)(
    "%s %s needs %s: 403 insufficient_scope naming it",
    async (method, path, scope) => {
      const { mock } = setup();
      const key = mock.apiKeys.create({ scopes: SCOPES.filter((s) => s !== scope) });
      const body = method === "GET" ? undefined : {};
      const response = await createApi(mock, key).call(method, path, { body });
      const message = expectError(response, 403, "insufficient_scope");
      expect(message).toBe(`This API key lacks the required scope ${scope}.`);
    },
  );

  it.each(endpoints)(
    "%s %s is allowed for a key created without scopes (every scope)",
    async (method, path) => {
      const { mock } = setup();
      const body = method === "GET" ? undefined : {};
      const response = await createApi(mock, mock.apiKeys.create()).call(method, path, { body });
      expect(response.status).not.toBe(403);
      expect(response.status).not.toBe(401);
    },
  );

  it("a key with exactly the needed scope passes", async () => {
    const { mock } = setup();
    const key = mock.apiKeys.create({ scopes: ["cases:write"] });
    const response = await createApi(mock, key).post("/v2/cases", {
      title: "Doe v. Acme",
      client_name: "Jane Doe",
    });
    expect(response.status).toBe(201);
  });

  it("checks the route before the scope: an unknown path with a scopeless key is 404", async () => {
    const { mock } = setup();
    const key = mock.apiKeys.create({ scopes: [] });
    expectError(await createApi(mock, key).get("/v2/unknown"), 404, "not_found");
  });

  it("checks the scope before the body: an invalid body without the scope is 403", async () => {
    const { mock } = setup();
    const key = mock.apiKeys.create({ scopes: ["cases:read"] });
    const response = await createApi(mock, key).call("POST", "/v2/cases", { raw: "{not json" });
    expectError(response, 403, "insufficient_scope");
  });
});

describe("routing", () => {
  it.each([
    ["GET", "/v2/unknown"],
    ["GET", "/v1/cases"],
    ["GET", "/"],
    ["GET", "/v2/cases/"],
    ["DELETE", "/v2/cases/case_x"],
    ["PUT", "/v2/cases"],
    ["POST", "/v2/documents"],
    ["GET", "/v2/cases/case_x/sign-upload"],
  ])("%s %s is 404 not_found (unknown route or wrong method)", async (method, path) => {
    const { api } = setup();
    expectError(await api.call(method, path), 404, "not_found");
  });

  it("an absent case or document is 404 not_found", async () => {
    const { api } = setup();
    expectError(await api.get("/v2/cases/case_missing"), 404, "not_found");
    expectError(await api.patch("/v2/cases/case_missing", { title: "x" }), 404, "not_found");
    expectError(await api.get("/v2/documents/doc_missing"), 404, "not_found");
    expectError(await api.patch("/v2/documents/doc_missing", { archived: true }), 404, "not_found");
    expectError(await api.get("/v2/documents/doc_missing/download"), 404, "not_found");
    expectError(
      await api.post("/v2/cases/case_missing/sign-upload", {
        file_name: "a.pdf",
        file_type: "application/pdf",
      }),
      404,
      "not_found",
    );
    expectError(
      await api.post("/v2/cases/case_missing/documents", { upload_id: crypto.randomUUID() }),
      404,
      "not_found",
    );
  });

  it("validates the body before looking the resource up: a bad PATCH of an absent case is 400", async () => {
    const { api } = setup();
    expectError(await api.patch("/v2/cases/case_missing", { nope: 1 }), 400, "validation_error");
  });

  it("refuses query parameters on an endpoint that takes none", async () => {
    const { api } = setup();
    const c = await createCase(api);
    const message = expectError(
      await api.get(`/v2/cases/${c.id}?expand=all`),
      400,
      "validation_error",
    );
    expect(message).toBe("expand: Unknown property");
  });
});

describe("request Content-Type", () => {
  const caseBody = JSON.stringify({ title: "t", client_name: "c" });

  it.each([
    "application/json",
    "application/json; charset=utf-8",
    "Application/JSON;Charset=UTF-8",
    "application/merge-patch+json",
    "application/vnd.medrecords.v2+json; charset=utf-8",
  ])("a JSON body sent as %s is read", async (contentType) => {
    const { api } = setup();
    const created = await api.call("POST", "/v2/cases", {
      raw: caseBody,
      headers: { "content-type": contentType },
    });
    expect(created.status).toBe(201);
  });

  it.each([
    ["text/plain", { "content-type": "text/plain" }],
    ["application/x-www-form-urlencoded", { "content-type": "application/x-www-form-urlencoded" }],
    ["application/jsonx", { "content-type": "application/jsonx" }],
    ["application/json-seq", { "content-type": "application/json-seq" }],
    ["text/json", { "content-type": "text/json" }],
  ])(
    "a JSON body sent as %s is 415 unsupported_media_type saying what to send",
    async (_, headers) => {
      const { api } = setup();
      const message = expectError(
        await api.call("POST", "/v2/cases", { raw: caseBody, headers }),
        415,
        "unsupported_media_type",
      );
      expect(message).toContain("Content-Type: application/json");
    },
  );

  it("a body without any Content-Type is 415, on operations that take a body and on those that take none", async () => {
    const { mock, key, api } = setup({ delivery: "inbox" });
    const send = (method: string, path: string, body: string) =>
      mock.fetch(`${mock.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}` },
        body,
      });
    const created = await send("POST", "/v2/cases", caseBody);
    expect(created.status).toBe(415);
    expect(await created.json()).toMatchObject({ error: { code: "unsupported_media_type" } });
    const hook = await api.post<{ id: string }>("/v2/webhooks", {
      name: "n",
      url: "https://hooks.example.test/h",
      events: ["retrieval_request.status_changed"],
    });
    expect((await send("POST", `/v2/webhooks/${hook.body.id}/test`, "{}")).status).toBe(415);
  });

  it("a request without a body needs no Content-Type: an empty POST to the webhook test still works", async () => {
    const { mock, key, api } = setup({ delivery: "inbox" });
    const hook = (name: string) =>
      api.post<{ id: string }>("/v2/webhooks", {
        name,
        url: "https://hooks.example.test/h",
        events: ["retrieval_request.status_changed"],
      });
    const bare = await hook("bare");
    const tested = await mock.fetch(`${mock.baseUrl}/v2/webhooks/${bare.body.id}/test`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}` },
      body: "",
    });
    expect(tested.status).toBe(200);
    // A label on no bytes is not a body either.
    const labelled = await hook("labelled");
    const answered = await api.call("POST", `/v2/webhooks/${labelled.body.id}/test`, {
      raw: "",
      headers: { "content-type": "text/plain" },
    });
    expect(answered.status).toBe(200);
  });
});

describe("X-Request-Id", () => {
  it("is on every API response, success or error, and differs per response", async () => {
    const { api } = setup();
    const responses = [
      await api.post("/v2/cases", { title: "t", client_name: "c" }),
      await api.get("/v2/cases"),
      await api.get("/v2/cases", { key: null }),
      await api.get("/v2/cases/case_missing"),
      await api.get("/v2/unknown"),
      await api.call("POST", "/v2/cases", { raw: "{" }),
    ];
    const ids = responses.map((r) => r.headers.get("x-request-id"));
    for (const id of ids) expect(id).toMatch(REQUEST_ID);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("is on every storage response, success or error", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const signed = await signUpload(api, c.id);
    const responses = [
      await putBytes(mock, signed.upload_url, bytesOf("abc")),
      await putBytes(mock, signed.upload_url, bytesOf("abc"), { "content-type": "text/plain" }),
      await mock.fetch(`${mock.storageUrl}/uploads/unknown`, { method: "PUT", body: "x" }),
      await mock.fetch(`${mock.storageUrl}/nowhere`),
    ];
    for (const response of responses)
      expect(response.headers.get("x-request-id")).toMatch(REQUEST_ID);
  });

  it("JSON responses say application/json", async () => {
    const { api } = setup();
    const created = await api.post("/v2/cases", { title: "t", client_name: "c" });
    expect(created.headers.get("content-type")).toBe("application/json");
    expect((await api.get("/v2/cases")).headers.get("content-type")).toBe("application/json");
  });
});
