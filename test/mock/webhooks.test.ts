/** The reference server's webhook endpoints over plain HTTP: every rule at its boundary. */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { MockServiceOptions } from "../../src/mock/index.js";
import {
  Webhook,
  WebhookCreateResponse,
  WebhookDelivery,
  WebhookTestResult,
} from "../../src/schemas/webhooks.js";
import { verifyWebhook } from "../../src/webhooks/index.js";
import { emitEventForTesting, eventLogForTesting } from "../helpers/mock-internals.js";
import { webhookUrlOfLength } from "../helpers/webhook-url.js";
import { createApi, expectError, setup } from "./helpers.js";
import { createWebhook, EVENT, healthOf, readWebhook, statusData } from "./webhook-helpers.js";

const x = (n: number) => "x".repeat(n);
/** A valid https URL exactly `n` characters long. */
const noDns = async () => [] as string[];

function inboxSetup(options: MockServiceOptions = {}) {
  return setup({ delivery: "inbox", lookupHost: noDns, ...options });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("create, read, list, update, delete", () => {
  it("creates a webhook: 201, the secret once, every field of the spec on read", async () => {
    const { api, mock } = inboxSetup();
    const created = await createWebhook(api, { description: "Status updates" });
    expect(WebhookCreateResponse.parse(created)).toEqual(created);
    expect(created).toMatchObject({
      name: "Records",
      url: "https://hooks.example.test/medrecords",
      events: [EVENT],
      description: "Status updates",
      is_enabled: true,
      auto_disabled_at: null,
      last_failure: null,
      created_at: mock.clock.now().toISOString(),
    });
    expect(created.secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);

    const read = await readWebhook(api, created.id);
    expect(Webhook.parse(read)).toEqual(read);
    expect(read).not.toHaveProperty("secret");
    expect(read).toMatchObject({
      consecutive_failures: 0,
      last_failure_at: null,
      last_success_at: null,
      auto_disabled_at: null,
      last_failure: null,
      secret_hint: `...${created.secret.slice(-4)}`,
      created_at: created.created_at,
      updated_at: created.created_at,
    });
    expect(read.created_by).toMatch(/^key_/);
    expect(JSON.stringify(read)).not.toContain(created.secret);
  });

  it("description defaults to null; duplicated event types are stored once", async () => {
    const { api } = inboxSetup();
    const created = await createWebhook(api, { events: [EVENT, EVENT] });
    expect(created.description).toBeNull();
    expect(created.events).toEqual([EVENT]);
  });

  it("lists a bare array, newest first", async () => {
    const { api } = inboxSetup();
    const a = await createWebhook(api, { name: "a" });
    const b = await createWebhook(api, { name: "b" });
    const list = await api.get<Webhook[]>("/v2/webhooks");
    expect(list.status).toBe(200);
    expect(list.body.map((w) => w.id)).toEqual([b.id, a.id]);
  });

  it("PATCH changes only what is given and moves updated_at; DELETE answers 204", async () => {
    const { api, mock } = inboxSetup();
    const created = await createWebhook(api);
    mock.clock.advance("1m");
    const patched = await api.patch<Webhook>(`/v2/webhooks/${created.id}`, {
      description: "new",
      events: ["retrieval_request.documents_available", "retrieval_request.action_required"],
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: "Records", description: "new" });
    expect(patched.body.events).toEqual([
      "retrieval_request.documents_available",
      "retrieval_request.action_required",
    ]);
    expect(Date.parse(patched.body.updated_at)).toBeGreaterThan(Date.parse(created.created_at));

    const removed = await api.call(`DELETE`, `/v2/webhooks/${created.id}`);
    expect(removed.status).toBe(204);
    expect(removed.body).toBeUndefined();
    expectError(await api.get(`/v2/webhooks/${created.id}`), 404, "not_found");
    expectError(await api.call("DELETE", `/v2/webhooks/${created.id}`), 404, "not_found");
    expectError(await api.get(`/v2/webhooks/${created.id}/deliveries`), 404, "not_found");
  });

  it("is_enabled true resets consecutive_failures and clears auto_disabled_at; false disables", async () => {
    const { api } = inboxSetup();
    const created = await createWebhook(api);
    const off = await api.patch<Webhook>(`/v2/webhooks/${created.id}`, { is_enabled: false });
    expect(off.body).toMatchObject({ is_enabled: false, auto_disabled_at: null });
    const on = await api.patch<Webhook>(`/v2/webhooks/${created.id}`, { is_enabled: true });
    expect(on.body).toMatchObject({
      is_enabled: true,
      consecutive_failures: 0,
      auto_disabled_at: null,
    });
  });
});

describe("limits (spec, Webhooks rules 1-2 and Limits)", () => {
  it("the 20th webhook is created, the 21st is 409 limit_exceeded, and a deletion frees a place", async () => {
    const { api } = inboxSetup();
    const ids: string[] = [];
    for (let i = 1; i <= 20; i++) ids.push((await createWebhook(api, { name: `hook ${i}` })).id);
    const refused = await api.post("/v2/webhooks", {
      name: "hook 21",
      url: "https://hooks.example.test/21",
      events: [EVENT],
    });
    expectError(refused, 409, "limit_exceeded");
    expect((await api.get<Webhook[]>("/v2/webhooks")).body).toHaveLength(20);
    await api.call("DELETE", `/v2/webhooks/${ids[0]}`);
    await createWebhook(api, { name: "hook 21" });
  });

  const base = { name: "Records", url: "https://hooks.example.test/h", events: [EVENT] };
  const boundaries: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
    ["name 100 / 101", { name: x(100) }, { name: x(101) }],
    ["description 500 / 501", { description: x(500) }, { description: x(501) }],
    ["url 2048 / 2049", { url: webhookUrlOfLength(2048) }, { url: webhookUrlOfLength(2049) }],
  ];

  it.each(boundaries)(
    "%s: the limit passes, one over is 400 invalid_request",
    async (_, ok, bad) => {
      const { api } = inboxSetup();
      expect((await api.post("/v2/webhooks", { ...base, ...ok })).status).toBe(201);
      const message = expectError(
        await api.post("/v2/webhooks", { ...base, name: "other", ...bad }),
        400,
        "invalid_request",
      );
      expect(message).toContain(Object.keys(bad)[0]);
    },
  );

  it.each(boundaries)("%s on PATCH: the same codes", async (_, ok, bad) => {
    const { api } = inboxSetup();
    const created = await createWebhook(api);
    expect((await api.patch(`/v2/webhooks/${created.id}`, ok)).status).toBe(200);
    expectError(await api.patch(`/v2/webhooks/${created.id}`, bad), 400, "invalid_request");
  });

  const invalid: Array<[string, Record<string, unknown>]> = [
    ["an empty name", { name: "" }],
    ["no name", { name: undefined }],
    ["no url", { url: undefined }],
    ["an ftp url", { url: "ftp://hooks.example.test/h" }],
    ["a relative url", { url: "/hooks" }],
    ["a url with credentials", { url: "https://user:pw@hooks.example.test/h" }],
    ["events []", { events: [] }],
    ["no events", { events: undefined }],
    ["an unknown event type", { events: ["retrieval_request.created"] }],
    ["webhook.test as a subscription", { events: ["webhook.test"] }],
    ["a number as description", { description: 5 }],
    ["an unknown property", { secret: "whsec_mine" }],
  ];

  it.each(invalid)("%s is 400 validation_error", async (_, fields) => {
    const { api } = inboxSetup();
    expectError(await api.post("/v2/webhooks", { ...base, ...fields }), 400, "validation_error");
  });

  // Webhook URLs are absolute ASCII URIs (RFC 3986), http or https, without user info.
  const notUris: Array<[string, string]> = [
    ["a space in the path", "https://hooks.example.test/a b"],
    ["a non-ASCII host", "https://hööks.example/"],
    ["a non-ASCII path", "https://hooks.example.test/hööks"],
    ["user info", "https://user:pw@hooks.example.test/h"],
    ["an empty user info", "https://@hooks.example.test/h"],
    ["a broken percent-encoding", "https://hooks.example.test/a%2"],
    ["an ftp url", "ftp://hooks.example.test/h"],
    ["a relative url", "/hooks"],
  ];

  it.each(notUris)("a url with %s is 400 validation_error on create and PATCH", async (_, url) => {
    const { api } = inboxSetup();
    const created = await createWebhook(api);
    const message = expectError(
      await api.post("/v2/webhooks", { ...base, name: "other", url }),
      400,
      "validation_error",
    );
    expect(message).toMatch(/^url: /);
    expectError(await api.patch(`/v2/webhooks/${created.id}`, { url }), 400, "validation_error");
    expect((await readWebhook(api, created.id)).url).toBe(created.url);
  });

  it("a percent-encoded space and an xn-- host are URIs: stored as sent on create and PATCH", async () => {
    const { api } = inboxSetup();
    const url = "https://hooks.example.test/a%20b";
    const created = await createWebhook(api, { url });
    expect(created.url).toBe(url);
    const next = "https://xn--hks-qoaa.example/a%C3%B6";
    expect((await api.patch(`/v2/webhooks/${created.id}`, { url: next })).status).toBe(200);
    expect((await readWebhook(api, created.id)).url).toBe(next);
  });

  it("an over-length value wins over other problems: invalid_request, every field named", async () => {
    const { api } = inboxSetup();
    const message = expectError(
      await api.post("/v2/webhooks", { ...base, name: x(101), events: [] }),
      400,
      "invalid_request",
    );
    expect(message).toContain("name");
    expect(message).toContain("events");
  });

  it("PATCH needs at least one property; malformed JSON and unknown properties are validation_error", async () => {
    const { api } = inboxSetup();
    const created = await createWebhook(api);
    const path = `/v2/webhooks/${created.id}`;
    expect(expectError(await api.patch(path, {}), 400, "validation_error")).toMatch(
      /at least one/i,
    );
    expectError(await api.call("PATCH", path, { raw: "{" }), 400, "validation_error");
    expectError(await api.patch(path, { secret: "x" }), 400, "validation_error");
    expectError(await api.patch(path, { is_enabled: "yes" }), 400, "validation_error");
  });

  it("duplicate names are 409 conflict, on create and on rename; keeping one's own name is fine", async () => {
    const { api } = inboxSetup();
    const a = await createWebhook(api, { name: "A" });
    await createWebhook(api, { name: "B" });
    expectError(await api.post("/v2/webhooks", { ...base, name: "A" }), 409, "conflict");
    expectError(await api.patch(`/v2/webhooks/${a.id}`, { name: "B" }), 409, "conflict");
    expect((await api.patch(`/v2/webhooks/${a.id}`, { name: "A" })).status).toBe(200);
    // Exact comparison: another case is another name.
    expect((await api.post("/v2/webhooks", { ...base, name: "a" })).status).toBe(201);
  });
});

describe("webhook URLs must be public (spec, Webhooks rule 6)", () => {
  const refused = [
    "http://127.0.0.1/h",
    "http://127.8.9.10:8080/h",
    "http://localhost/h",
    "http://LOCALHOST./h",
    "http://api.localhost/h",
    "http://10.1.2.3/h",
    "http://172.16.0.1/h",
    "http://172.31.255.255/h",
    "http://192.168.1.1/h",
    "http://169.254.169.254/latest/meta-data",
    "http://100.64.0.1/h",
    "http://0.0.0.0/h",
    "http://224.0.0.1/h",
    "http://255.255.255.255/h",
    "http://2130706433/h", // decimal 127.0.0.1
    "http://0177.0.0.1/h", // octal
    "http://0x7f.0.0.1/h", // hex
    "http://0x7f000001/h",
    "http://127.1/h",
    "http://3232235777/h", // decimal 192.168.1.1
    "http://[::1]/h",
    "http://[::]/h",
    "http://[::ffff:127.0.0.1]/h", // IPv4-mapped
    "http://[::ffff:7f00:1]/h",
    "http://[::ffff:8.8.8.8]/h", // mapped, even when public: never needed, often abused
    "http://[fe80::1]/h", // link-local
    "http://[fc00::1]/h", // unique-local
    "http://[fd12:3456::1]/h",
    "http://[ff02::1]/h",
    "http://[64:ff9b::a00:1]/h", // NAT64 of 10.0.0.1
    "http://[2002:c0a8:101::1]/h", // 6to4 of 192.168.1.1
  ];

  it.each(refused)("%s is refused with 400 invalid_request", async (url) => {
    const { api } = inboxSetup();
    const message = expectError(
      await api.post("/v2/webhooks", { name: "n", url, events: [EVENT] }),
      400,
      "invalid_request",
    );
    expect(message).toMatch(/^url: /);
    expect(message).not.toContain(url);
  });

  it.each(refused)("%s is accepted with allowPrivateWebhookUrls", async (url) => {
    const { api } = inboxSetup({ allowPrivateWebhookUrls: true });
    expect((await api.post("/v2/webhooks", { name: "n", url, events: [EVENT] })).status).toBe(201);
  });

  it("public addresses are accepted", async () => {
    const { api } = inboxSetup();
    let n = 0;
    for (const url of [
      "https://93.184.215.14/h",
      "http://8.8.8.8/h",
      "https://[2606:4700::1111]/h",
      "https://[64:ff9b::808:808]/h",
    ]) {
      expect(
        (await api.post("/v2/webhooks", { name: `n${n++}`, url, events: [EVENT] })).status,
      ).toBe(201);
    }
  });

  it("a name is refused when any address it resolves to is private; one that does not resolve is accepted", async () => {
    const addresses: Record<string, string[]> = {
      "public.example.test": ["93.184.215.14", "2606:4700::1111"],
      "sneaky.example.test": ["93.184.215.14", "10.0.0.7"],
      "mapped.example.test": ["::ffff:192.168.0.1"],
    };
    const lookedUp: string[] = [];
    const { api } = setup({
      delivery: "inbox",
      lookupHost: async (host) => {
        lookedUp.push(host);
        return addresses[host] ?? [];
      },
    });
    const create = (name: string, host: string) =>
      api.post("/v2/webhooks", { name, url: `https://${host}/h`, events: [EVENT] });
    expect((await create("a", "public.example.test")).status).toBe(201);
    expect((await create("b", "nowhere.example.test")).status).toBe(201);
    expectError(await create("c", "sneaky.example.test"), 400, "invalid_request");
    expectError(await create("d", "mapped.example.test"), 400, "invalid_request");
    expect(lookedUp).toEqual([
      "public.example.test",
      "nowhere.example.test",
      "sneaky.example.test",
      "mapped.example.test",
    ]);
    // Literals are judged as written: no lookup.
    await create("e", "8.8.8.8");
    expect(lookedUp).toHaveLength(4);
  });

  it("a failing lookup refuses the URL (fail closed), naming the cause", async () => {
    const { api } = setup({
      delivery: "inbox",
      lookupHost: async () => {
        throw Object.assign(new Error("SERVFAIL"), { code: "ESERVFAIL" });
      },
    });
    const response = await api.post("/v2/webhooks", {
      name: "n",
      url: "https://x.example.test/",
      events: [EVENT],
    });
    expect(expectError(response, 400, "invalid_request")).toContain(
      "could not be resolved (ESERVFAIL)",
    );
  });

  it("PATCH to a private URL is refused the same way", async () => {
    const { api } = inboxSetup();
    const created = await createWebhook(api);
    expectError(
      await api.patch(`/v2/webhooks/${created.id}`, { url: "http://[::ffff:10.0.0.1]/" }),
      400,
      "invalid_request",
    );
    expect((await readWebhook(api, created.id)).url).toBe(created.url);
  });
});

describe("scopes", () => {
  it("creating needs webhooks:write and retrievals:read; reading needs webhooks:read", async () => {
    const { mock, api } = inboxSetup();
    const created = await createWebhook(api);
    const writer = createApi(mock, mock.apiKeys.create({ scopes: ["webhooks:write"] }));
    const message = expectError(
      await writer.post("/v2/webhooks", {
        name: "n",
        url: "https://a.example.test",
        events: [EVENT],
      }),
      403,
      "insufficient_scope",
    );
    expect(message).toContain("retrievals:read");
    expectError(await writer.get("/v2/webhooks"), 403, "insufficient_scope");
    // Renaming does not subscribe; changing events does.
    expect((await writer.patch(`/v2/webhooks/${created.id}`, { name: "m" })).status).toBe(200);
    expectError(
      await writer.patch(`/v2/webhooks/${created.id}`, { events: [EVENT] }),
      403,
      "insufficient_scope",
    );

    const reader = createApi(mock, mock.apiKeys.create({ scopes: ["webhooks:read"] }));
    expect((await reader.get("/v2/webhooks")).status).toBe(200);
    expect((await reader.get(`/v2/webhooks/${created.id}/deliveries`)).status).toBe(200);
    for (const [method, path] of [
      ["POST", `/v2/webhooks/${created.id}/test`],
      ["DELETE", `/v2/webhooks/${created.id}`],
      ["PATCH", `/v2/webhooks/${created.id}`],
    ] as const) {
      expectError(
        await reader.call(method, path, { body: { name: "z" } }),
        403,
        "insufficient_scope",
      );
    }
  });
});

describe("the test operation (spec, Webhooks rule 3)", () => {
  it("sends one signed webhook.test and answers 200 with the result", async () => {
    const { api, mock } = inboxSetup();
    const created = await createWebhook(api);
    const result = await api.post<WebhookTestResult>(`/v2/webhooks/${created.id}/test`);
    expect(result.status).toBe(200);
    expect(WebhookTestResult.parse(result.body)).toEqual(result.body);
    expect(result.body).toMatchObject({
      success: true,
      status_code: 200,
      error: null,
      sent_at: mock.clock.now().toISOString(),
    });
    expect(result.body.event_id).toMatch(
      /^evt_test_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
    expect(mock.deliveries.inbox).toHaveLength(1);
    const sent = mock.deliveries.inbox[0]!;
    expect(sent).toMatchObject({ url: created.url, webhookId: created.id, attempt: 1 });
    expect(JSON.parse(sent.body)).toEqual({
      id: result.body.event_id,
      type: "webhook.test",
      created_at: result.body.sent_at,
      data: { webhook_id: created.id },
    });
    const event = await verifyWebhook({
      payload: sent.body,
      headers: sent.headers,
      secret: created.secret,
    });
    expect(event.type).toBe("webhook.test");
    // Not an event of the log: it concerns no resource and is never caught up on.
    expect(eventLogForTesting(mock)).toEqual([]);
  });

  it("one test per webhook every 10 s of the mock clock: 9.999 s is 429 with Retry-After, 10 s passes", async () => {
    const { api, mock } = inboxSetup();
    const a = await createWebhook(api, { name: "a" });
    const b = await createWebhook(api, { name: "b" });
    expect((await api.post(`/v2/webhooks/${a.id}/test`)).status).toBe(200);

    mock.clock.advance("3s");
    const early = await api.post(`/v2/webhooks/${a.id}/test`);
    expectError(early, 429, "rate_limited");
    expect(early.headers.get("retry-after")).toBe("7");
    // Per webhook: another one is not limited.
    expect((await api.post(`/v2/webhooks/${b.id}/test`)).status).toBe(200);

    mock.clock.advance(6_999); // 9.999 s after the first test
    const edge = await api.post(`/v2/webhooks/${a.id}/test`);
    expectError(edge, 429, "rate_limited");
    expect(edge.headers.get("retry-after")).toBe("1");

    mock.clock.advance(1); // exactly 10 s: a refused call did not move the window
    expect((await api.post(`/v2/webhooks/${a.id}/test`)).status).toBe(200);
    expectError(await api.post(`/v2/webhooks/${a.id}/test`), 429, "rate_limited");
    expect(mock.deliveries.inbox).toHaveLength(3);
  });

  it("the 429 says the clock is manual and how to advance it, since waiting never clears it", async () => {
    const { api, mock } = inboxSetup();
    expect(mock.clock.mode).toBe("manual");
    const hook = await createWebhook(api);
    expect((await api.post(`/v2/webhooks/${hook.id}/test`)).status).toBe(200);
    mock.clock.advance("3s");
    const refused = await api.post(`/v2/webhooks/${hook.id}/test`);
    expect(expectError(refused, 429, "rate_limited")).toBe(
      'A webhook can be tested once every 10 seconds; retry after 7 s of the mock\'s clock, which is manual (it stands still until advanced): advance it with mock.clock.advance("7s") or POST /__mock/clock/advance.',
    );
    expect(refused.headers.get("retry-after")).toBe("7");
    // Doing what it says clears it.
    mock.clock.advance("7s");
    expect((await api.post(`/v2/webhooks/${hook.id}/test`)).status).toBe(200);
  });

  it("works on a disabled webhook and changes no health field; refuses a body", async () => {
    const { api, mock } = inboxSetup();
    const created = await createWebhook(api);
    await api.patch(`/v2/webhooks/${created.id}`, { is_enabled: false });
    const before = healthOf(await readWebhook(api, created.id));
    expect((await api.post(`/v2/webhooks/${created.id}/test`)).status).toBe(200);
    expect(healthOf(await readWebhook(api, created.id))).toEqual(before);
    mock.clock.advance("10s");
    expectError(
      await api.post(`/v2/webhooks/${created.id}/test`, { dry_run: true }),
      400,
      "validation_error",
    );
    expectError(await api.post("/v2/webhooks/wh_missing/test"), 404, "not_found");
  });
});

describe("delivery in inbox mode", () => {
  it("each event goes to every enabled webhook subscribed to its type, signed, with its headers", async () => {
    const { api, mock } = inboxSetup();
    const subscribed = await createWebhook(api, { name: "s" });
    await createWebhook(api, {
      name: "other type",
      events: ["retrieval_request.documents_available"],
    });
    const off = await createWebhook(api, { name: "off" });
    await api.patch(`/v2/webhooks/${off.id}`, { is_enabled: false });

    const entry = emitEventForTesting(mock, EVENT, statusData(), { requestId: "req_1" });
    await mock.deliveries.flush();

    expect(entry).toMatchObject({
      object: "event",
      type: EVENT,
      api_version: "v2",
      request_id: "req_1",
      created_at: mock.clock.now().toISOString(),
    });
    expect(entry.id).toMatch(/^rr-[0-9a-f]{64}$/);
    expect(mock.deliveries.inbox).toHaveLength(1);
    const sent = mock.deliveries.inbox[0]!;
    expect(sent).toMatchObject({
      url: subscribed.url,
      webhookId: subscribed.id,
      eventId: entry.id,
      attempt: 1,
    });
    expect(sent.body).toBe(
      JSON.stringify({
        id: entry.id,
        type: EVENT,
        created_at: entry.created_at,
        data: statusData(),
      }),
    );
    expect(sent.headers).toMatchObject({
      "content-type": "application/json",
      "x-webhook-event-id": entry.id,
      "x-webhook-event-type": EVENT,
    });
    // Signed with this machine's clock, not the mock's.
    expect(
      Math.abs(Number(sent.headers["x-service-timestamp"]) - Math.floor(Date.now() / 1000)),
    ).toBeLessThanOrEqual(1);
    expect(sent.headers["x-service-signature-v1"]).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(sent.headers["x-service-signature"]).toMatch(/^v0=[0-9a-f]{64}$/);
    await verifyWebhook({
      payload: sent.body,
      headers: sent.headers,
      secret: subscribed.secret,
    });

    const health = await readWebhook(api, subscribed.id);
    expect(health).toMatchObject({
      consecutive_failures: 0,
      last_success_at: mock.clock.now().toISOString(),
    });
  });

  it("lists deliveries newest first with pages, and redelivers one: same body and id, fresh signature", async () => {
    const { api, mock } = inboxSetup();
    const hook = await createWebhook(api);
    const events = [1, 2, 3].map((n) => {
      mock.clock.advance("1s");
      return emitEventForTesting(mock, EVENT, statusData(n));
    });
    await mock.deliveries.flush();

    const first = await api.get<{ results: WebhookDelivery[]; next: string | null }>(
      `/v2/webhooks/${hook.id}/deliveries?limit=2`,
    );
    expect(first.status).toBe(200);
    expect(first.body.results.map((d) => d.event_id)).toEqual([events[2]!.id, events[1]!.id]);
    for (const d of first.body.results) expect(WebhookDelivery.parse(d)).toEqual(d);
    expect(first.body.results[0]).toMatchObject({
      webhook_id: hook.id,
      event_type: EVENT,
      attempt: 1,
      status_code: 200,
      error: null,
      success: true,
      next_attempt_at: null,
      is_test: false,
      is_redelivery: false,
    });
    const second = await api.get<{ results: WebhookDelivery[]; next: string | null }>(
      first.body.next!,
    );
    expect(second.body.results.map((d) => d.event_id)).toEqual([events[0]!.id]);
    expect(second.body.next).toBeNull();

    mock.clock.advance("10m");
    // Ten minutes pass on this machine's clock too, which signs the redelivery.
    const tenMinutesOn = Date.now() + 600_000;
    vi.spyOn(Date, "now").mockReturnValue(tenMinutesOn);
    const original = second.body.results[0]!;
    const redelivered = await api.post<WebhookDelivery>(
      `/v2/webhooks/${hook.id}/deliveries/${original.id}/redeliver`,
    );
    expect(redelivered.status).toBe(200);
    expect(redelivered.body).toMatchObject({
      event_id: original.event_id,
      is_redelivery: true,
      success: true,
      created_at: mock.clock.now().toISOString(),
    });
    expect(redelivered.body.id).not.toBe(original.id);
    const [firstSend, resend] = [mock.deliveries.inbox[0]!, mock.deliveries.inbox[3]!];
    expect(resend.body).toBe(firstSend.body);
    expect(resend.headers["x-webhook-event-id"]).toBe(original.event_id);
    expect(resend.headers["x-service-timestamp"]).not.toBe(
      firstSend.headers["x-service-timestamp"],
    );
    expect(resend.headers["x-service-signature-v1"]).not.toBe(
      firstSend.headers["x-service-signature-v1"],
    );
    await verifyWebhook({
      payload: resend.body,
      headers: resend.headers,
      secret: hook.secret,
    });
    const latest = await api.get<{ results: WebhookDelivery[] }>(
      `/v2/webhooks/${hook.id}/deliveries?limit=1`,
    );
    expect(latest.body.results[0]!.id).toBe(redelivered.body.id);
  });

  it("redelivery: 404 for an unknown or foreign delivery, 409 conflict while disabled", async () => {
    const { api, mock } = inboxSetup();
    const a = await createWebhook(api, { name: "a" });
    const b = await createWebhook(api, { name: "b" });
    emitEventForTesting(mock, EVENT, statusData());
    await mock.deliveries.flush();
    const own = await api.get<{ results: WebhookDelivery[] }>(`/v2/webhooks/${a.id}/deliveries`);
    const deliveryId = own.body.results[0]!.id;
    expectError(
      await api.post(`/v2/webhooks/${a.id}/deliveries/whdel_missing/redeliver`),
      404,
      "not_found",
    );
    expectError(
      await api.post(`/v2/webhooks/${b.id}/deliveries/${deliveryId}/redeliver`),
      404,
      "not_found",
    );
    await api.patch(`/v2/webhooks/${a.id}`, { is_enabled: false });
    expectError(
      await api.post(`/v2/webhooks/${a.id}/deliveries/${deliveryId}/redeliver`),
      409,
      "conflict",
    );
  });

  it("reset() empties webhooks, the inbox and the log", async () => {
    const { api, mock } = inboxSetup();
    await createWebhook(api);
    emitEventForTesting(mock, EVENT, statusData());
    await mock.deliveries.flush();
    expect(mock.deliveries.inbox).toHaveLength(1);
    const inbox = mock.deliveries.inbox;
    mock.reset();
    expect(mock.deliveries.inbox).toBe(inbox);
    expect(inbox).toHaveLength(0);
    expect((await api.get<Webhook[]>("/v2/webhooks")).body).toEqual([]);
    expect(eventLogForTesting(mock)).toEqual([]);
  });

  it("the delivery option refuses an unknown mode", () => {
    expect(() => setup({ delivery: "smtp" as never })).toThrow(/fetch.*inbox/);
  });
});
