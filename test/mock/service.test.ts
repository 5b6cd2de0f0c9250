import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMockService } from "../../src/mock/index.js";
import type { Case } from "../../src/schemas/cases.js";
import type { ListEnvelope } from "../../src/schemas/common.js";
import type { SignUploadResponse } from "../../src/schemas/uploads.js";
import {
  createApi,
  createCase,
  expectError,
  REQUEST_ID,
  START,
  setup,
  uploadDocument,
} from "./helpers.js";

describe("createMockService options", () => {
  it("defaults to the api and storage origins of medrecords.test", () => {
    const mock = createMockService();
    expect(mock.baseUrl).toBe("https://api.medrecords.test");
    expect(mock.storageUrl).toBe("https://storage.medrecords.test");
  });

  it("serves custom origins and signs uploads on the custom storage origin", async () => {
    const { mock, api } = setup({
      baseUrl: "http://localhost:4010/",
      storageUrl: "http://127.0.0.1:4011",
    });
    expect(mock.baseUrl).toBe("http://localhost:4010");
    expect(mock.storageUrl).toBe("http://127.0.0.1:4011");
    const c = await createCase(api);
    const signed = await api.post<SignUploadResponse>(`/v2/cases/${c.id}/sign-upload`, {
      file_name: "a.pdf",
      file_type: "application/pdf",
    });
    expect(signed.body.upload_url.startsWith("http://127.0.0.1:4011/uploads/")).toBe(true);
  });

  it.each([
    ["a path", { baseUrl: "https://api.medrecords.test/v2" }],
    ["a query", { storageUrl: "https://storage.medrecords.test/?x=1" }],
    ["a relative URL", { baseUrl: "/api" }],
    ["another scheme", { baseUrl: "ftp://api.medrecords.test" }],
    ["the same origin twice", { baseUrl: "https://a.test", storageUrl: "https://a.test" }],
  ])("refuses %s", (_, options) => {
    expect(() => createMockService(options)).toThrow(TypeError);
  });

  it("accepts allowPrivateWebhookUrls for the webhooks slice", () => {
    expect(() => createMockService({ allowPrivateWebhookUrls: true })).not.toThrow();
  });
});

describe("handle() and fetch()", () => {
  it("handle() returns undefined for an origin that is not the mock's", async () => {
    const { mock } = setup();
    expect(await mock.handle(new Request("https://example.com/v2/cases"))).toBeUndefined();
  });

  it("fetch() rejects with a TypeError for another origin, like a network failure", async () => {
    const { mock } = setup();
    await expect(mock.fetch("https://example.com/v2/cases")).rejects.toThrow(TypeError);
  });

  it("fetch() accepts a URL object and a Request", async () => {
    const { mock, key } = setup();
    const headers = { authorization: `Bearer ${key}` };
    expect((await mock.fetch(new URL("/v2/cases", mock.baseUrl), { headers })).status).toBe(200);
    expect((await mock.fetch(new Request(`${mock.baseUrl}/v2/cases`, { headers }))).status).toBe(
      200,
    );
  });

  it("fetch() honours an aborted signal", async () => {
    const { mock } = setup();
    const controller = new AbortController();
    controller.abort();
    await expect(
      mock.fetch(`${mock.baseUrl}/v2/cases`, { signal: controller.signal }),
    ).rejects.toThrow();
  });
});

describe("reset()", () => {
  it("empties every resource but keeps the keys and the clock", async () => {
    const { mock, api, key } = setup();
    const c = await createCase(api);
    const doc = await uploadDocument(mock, api, c.id);
    mock.clock.advance("1h");
    const scoped = mock.apiKeys.create({ scopes: ["cases:read"] });

    mock.reset();

    expect(mock.clock.now().getTime()).toBe(Date.parse(START) + 3_600_000);
    expectError(await api.get(`/v2/cases/${c.id}`), 404, "not_found");
    expectError(await api.get(`/v2/documents/${doc.id}`), 404, "not_found");
    expect((await api.get<ListEnvelope<Case>>("/v2/cases")).body.results).toEqual([]);
    expect((await createApi(mock, scoped).get("/v2/cases")).status).toBe(200);
    const again = await createCase(createApi(mock, key));
    expect(again.case_number).toBe("MR-000001");
  });
});

describe("MSW handlers", () => {
  const mock = createMockService({ now: START });
  const key = mock.apiKeys.create();
  const server = setupServer(...mock.handlers);
  beforeAll(() => server.listen({ onUnhandledFrame: "error" }));
  afterAll(() => server.close());

  it("serve the API and the storage origin to the global fetch", async () => {
    const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const created = await fetch(`${mock.baseUrl}/v2/cases`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ title: "Doe v. Acme", client_name: "Jane Doe" }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("x-request-id")).toMatch(REQUEST_ID);
    const c = (await created.json()) as Case;

    const signed = await fetch(`${mock.baseUrl}/v2/cases/${c.id}/sign-upload`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ file_name: "a.txt", file_type: "text/plain" }),
    });
    const { upload_url } = (await signed.json()) as SignUploadResponse;
    const put = await fetch(upload_url, {
      method: "PUT",
      headers: { "content-type": "text/plain", "content-length": "5" },
      body: "hello",
    });
    expect(put.status).toBe(200);
    expect(put.headers.get("x-request-id")).toMatch(REQUEST_ID);
  });

  it("answer errors through MSW too", async () => {
    const response = await fetch(`${mock.baseUrl}/v2/cases`);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: { code: "invalid_api_key" } });
  });
});
