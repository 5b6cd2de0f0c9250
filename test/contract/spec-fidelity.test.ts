/**
 * Rules that the client, the reference server and the OpenAPI document must
 * state alike: email addresses, the page size, webhook URLs, the
 * action-response message, and what the event log can hold. Each rule runs
 * through the three readers of the schemas: the client's validation before
 * sending, the server's answer, and ajv with the generated document (the
 * validator test/e2e checks every answer with).
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATIONS } from "../../src/contract/index.js";
import { AnyEvent, InvalidRequestError, MedRecords, ValidationError } from "../../src/index.js";
import { openApiDocument } from "../../src/openapi/document.js";
import { PAGE_LIMIT_MAX, PAGE_LIMIT_MIN } from "../../src/schemas/common.js";
import { HTTP_URL_PATTERN } from "../../src/schemas/uri.js";
import { WEBHOOK_URL_MAX, WebhookCreate } from "../../src/schemas/webhooks.js";
import { fuzzParams } from "../fuzz/runs.js";
import { createOpenApiValidator } from "../helpers/openapi-validator.js";
import { createCase, type ErrorResponseBody, type JsonResponse, setup } from "../mock/helpers.js";
import { createRetrieval } from "../mock/retrieval-helpers.js";
import { createWebhook } from "../mock/webhook-helpers.js";

const validator = createOpenApiValidator(openApiDocument());

/** A mock, raw access to it, and a client over it that counts what it sends. */
function world() {
  // Private addresses allowed: only the syntax of webhook URLs is under test here.
  const { mock, key, api } = setup({ allowPrivateWebhookUrls: true });
  let sent = 0;
  const mr = new MedRecords({
    apiKey: key,
    baseUrl: mock.baseUrl,
    maxRetries: 0,
    fetch: (input, init) => {
      sent++;
      return mock.fetch(input, init);
    },
  });
  return { mock, api, mr, sent: () => sent };
}
type World = ReturnType<typeof world>;

/**
 * Whether the client refused the call before sending: a ValidationError (an
 * InvalidRequestError for an over-long webhook field, as the service answers).
 */
async function clientRefuses(w: World, call: () => PromiseLike<unknown>): Promise<boolean> {
  const before = w.sent();
  try {
    await call();
  } catch (error) {
    if (error instanceof ValidationError || error instanceof InvalidRequestError) {
      if (w.sent() === before) return true;
    }
  }
  expect(w.sent(), "a call the client accepts is sent").toBe(before + 1);
  return false;
}

/**
 * Whether the server refused the request as invalid: 400 validation_error
 * naming `field`. Anything else must be the answer to a valid request (2xx, or
 * a refusal that comes after validation, such as action_response_rejected).
 */
function serverRefuses(response: JsonResponse<unknown>, field: string, after?: string): boolean {
  const code = (response.body as ErrorResponseBody | undefined)?.error?.code;
  if (response.status === 400 && code === "validation_error") {
    expect((response.body as ErrorResponseBody).error.message).toContain(`${field}: `);
    return true;
  }
  if (after === undefined || code !== after) {
    expect(response.status, JSON.stringify(response.body)).toBeGreaterThanOrEqual(200);
    expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
  }
  return false;
}

/** Whether ajv, with the document, refuses the request body. */
function documentRefuses(method: string, url: string, body: unknown): boolean {
  return validator.validateRequestBody({ method, url, body }).length > 0;
}

// ------------------------------------------------------------------ email addresses

/** RFC 5321 mailboxes at a host name: dot-atom local parts (RFC 5322 characters included) and quoted ones. */
const VALID_EMAILS = [
  "a&b@firm.example",
  "x/y=z@firm.example",
  "o'brien+intake@firm.example",
  "{ops}|~#$%^`*?!@firm.example",
  "Jane.Doe@Sub.Firm-Name.example",
  "ops@localhost",
  `${"a".repeat(64)}@${"b".repeat(63)}.example`,
  '"quoted"@firm.example',
  '"a b"@firm.example',
];
/** Clearly not an address, or outside the rule (dots out of place, literal, comment, non-ASCII). */
const INVALID_EMAILS = [
  "",
  "plain",
  "@firm.example",
  "a@",
  "a b@firm.example",
  "a@b@firm.example",
  "a,b@firm.example",
  "a@-firm.example",
  "a@firm-.example",
  "a@firm..example",
  "a@firm.example.",
  "a@firm_name.example",
  `a@${"b".repeat(64)}.example`,
  ".@firm.example",
  ".a@firm.example",
  "a.@firm.example",
  "a..b@firm.example",
  '"a"b"@firm.example',
  "a@[192.0.2.1]",
  "a(note)@firm.example",
  "jané@firm.example",
  "a@fïrm.example",
  " a@firm.example",
  "a@firm.example\n",
];

interface EmailField {
  name: string;
  /** The field as the error message names it. */
  field: string;
  /** The bodies' method and path, as the document has it. */
  method: string;
  url: (ids: Ids) => string;
  body: (email: string) => Record<string, unknown>;
  client: (w: World, ids: Ids, body: Record<string, unknown>) => PromiseLike<unknown>;
  /** A refusal the server gives valid bodies of this field after validation. */
  after?: string;
}

interface Ids {
  caseId: string;
  requestorId: string;
  retrievalRequestId: string;
}

const EMAIL_FIELDS: EmailField[] = [
  {
    name: "CaseCreate.client_email",
    field: "client_email",
    method: "POST",
    url: () => "/v2/cases",
    body: (email) => ({ title: "Doe v. Acme", client_name: "Jane Doe", client_email: email }),
    client: (w, _, body) => w.mr.cases.create(body as never),
  },
  {
    name: "CaseUpdate.client_email",
    field: "client_email",
    method: "PATCH",
    url: (ids) => `/v2/cases/${ids.caseId}`,
    body: (email) => ({ client_email: email }),
    client: (w, ids, body) => w.mr.cases.update(ids.caseId, body as never),
  },
  {
    name: "RequestorCreate.email",
    field: "email",
    method: "POST",
    url: () => "/v2/requestors",
    body: (email) => ({ name: "Ann Counsel", email }),
    client: (w, _, body) => w.mr.requestors.create(body as never),
  },
  {
    name: "RequestorUpdate.email",
    field: "email",
    method: "PATCH",
    url: (ids) => `/v2/requestors/${ids.requestorId}`,
    body: (email) => ({ email }),
    client: (w, ids, body) => w.mr.requestors.update(ids.requestorId, body as never),
  },
  {
    name: "ActionResponse.requester_email",
    field: "requester_email",
    method: "POST",
    url: (ids) => `/v2/retrieval-requests/${ids.retrievalRequestId}/action-response`,
    body: (email) => ({ message: "Signed form attached.", requester_email: email }),
    client: (w, ids, body) =>
      w.mr.retrievalRequests.respondToAction(ids.retrievalRequestId, body as never),
    // No action request is open: a valid body passes validation, then meets this.
    after: "action_response_rejected",
  },
];

async function idsOf(w: World): Promise<Ids> {
  const kase = await createCase(w.api);
  const requestor = await w.api.post<{ id: string }>("/v2/requestors", {
    name: "Ann Counsel",
    email: "ann@firm.example",
  });
  expect(requestor.status).toBe(201);
  const retrieval = await createRetrieval(w.mock, w.api);
  return { caseId: kase.id, requestorId: requestor.body.id, retrievalRequestId: retrieval.id };
}

describe("email fields: RFC 5321 mailboxes at a host name, on the client, the server and in the document", () => {
  let w: World;
  let ids: Ids;
  beforeAll(async () => {
    w = world();
    ids = await idsOf(w);
  });

  const cases = EMAIL_FIELDS.flatMap((field) => [
    ...VALID_EMAILS.map(
      (email) => [field.name, JSON.stringify(email), "accepted", field, email, true] as const,
    ),
    ...INVALID_EMAILS.map(
      (email) => [field.name, JSON.stringify(email), "refused", field, email, false] as const,
    ),
  ]);

  it.each(cases)(
    "%s = %s is %s by all three",
    async (_name, _shown, _verdict, field, email, valid) => {
      const body = field.body(email);
      const url = field.url(ids);
      expect(await clientRefuses(w, () => field.client(w, ids, body)), "client refuses").toBe(
        !valid,
      );
      const response = await w.api.call(field.method, url, { body });
      expect(serverRefuses(response, field.field, field.after), "server refuses").toBe(!valid);
      expect(documentRefuses(field.method, url, body), "document refuses").toBe(!valid);
    },
  );

  it("answers addresses in the document's shape: a stored address passes the response schemas", async () => {
    const kase = await w.api.post("/v2/cases", EMAIL_FIELDS[0]!.body("a&b@firm.example"));
    expect(
      validator.validateResponse({
        method: "POST",
        url: "/v2/cases",
        status: kase.status,
        body: kase.body,
      }),
    ).toEqual([]);
    const requestor = await w.api.post("/v2/requestors", {
      name: "N",
      email: "x/y=z@firm.example",
    });
    expect(
      validator.validateResponse({
        method: "POST",
        url: "/v2/requestors",
        status: requestor.status,
        body: requestor.body,
      }),
    ).toEqual([]);
  });
});

// ------------------------------------------------------------------ limit

/** Every list operation, by the `limit` its query takes, with a URL that reaches it. */
function listUrls(ids: Ids & { webhookId: string }): Record<string, string> {
  const fill: Record<string, string> = {
    case_id: ids.caseId,
    retrieval_request_id: ids.retrievalRequestId,
    id: ids.webhookId,
  };
  // The parameters a list requires besides paging.
  const required: Record<string, string> = { "/v2/facilities": "query=mercy&" };
  const out: Record<string, string> = {};
  for (const op of OPERATIONS) {
    if (op.query === undefined || !("limit" in op.query.shape)) continue;
    const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => fill[name] ?? "missing");
    out[op.operationId] = `${path}?${required[op.path] ?? ""}`;
  }
  return out;
}

/** Spellings of a page size that are not the canonical decimal digits, or out of range. */
const BAD_LIMITS = [
  "0x10",
  "1e1",
  "0b11",
  "0o7",
  " 5",
  "5 ",
  "+5",
  "-5",
  "05",
  "010",
  "1.0",
  "5.",
  "Infinity",
  "NaN",
  "",
  "٥",
  String(PAGE_LIMIT_MIN - 1),
  String(PAGE_LIMIT_MAX + 1),
  "1000000000000000000000",
];

describe("limit: an integer from 1 to 100 in decimal digits, on every list", () => {
  let w: World;
  let urls: Record<string, string>;
  beforeAll(async () => {
    w = world();
    const ids = await idsOf(w);
    const webhook = await createWebhook(w.api);
    // Enough of every listed thing for a second page at limit=1.
    await createCase(w.api);
    urls = listUrls({ ...ids, webhookId: webhook.id });
  });

  it("covers every list of the contract", () => {
    const lists = OPERATIONS.filter((op) => op.list).map((op) => op.operationId);
    expect(lists.length).toBeGreaterThanOrEqual(8);
    expect(Object.keys(urls).sort()).toEqual(lists.sort());
  });

  it.each(BAD_LIMITS.map((value) => [JSON.stringify(value), value]))(
    "limit=%s is 400 validation_error on every list",
    async (_shown, value) => {
      for (const [operationId, url] of Object.entries(urls)) {
        const response = await w.api.get(`${url}limit=${encodeURIComponent(value)}`);
        expect(response.status, `${operationId}: ${JSON.stringify(response.body)}`).toBe(400);
        expect((response.body as ErrorResponseBody).error).toEqual({
          code: "validation_error",
          message: `limit: Expected an integer from ${PAGE_LIMIT_MIN} to ${PAGE_LIMIT_MAX} written in decimal digits`,
        });
      }
    },
  );

  it.each([String(PAGE_LIMIT_MIN), "7", String(PAGE_LIMIT_MAX)])(
    "limit=%s is taken on every list, and `next` repeats it as sent",
    async (value) => {
      for (const [operationId, url] of Object.entries(urls)) {
        const response = await w.api.get<{ next: string | null }>(`${url}limit=${value}`);
        expect(response.status, `${operationId}: ${JSON.stringify(response.body)}`).toBe(200);
        const next = response.body.next;
        if (next !== null) expect(new URL(next).searchParams.getAll("limit")).toEqual([value]);
      }
      // At limit=1 there is a next page of cases; its link carries the limit as sent.
      if (value === String(PAGE_LIMIT_MIN)) {
        const first = await w.api.get<{ next: string | null }>(`/v2/cases?limit=${value}`);
        expect(new URL(first.body.next as string).searchParams.get("limit")).toBe(value);
      }
    },
  );

  it("the client refuses the same before sending, and sends numbers as their decimal digits", async () => {
    for (const value of BAD_LIMITS) {
      expect(await clientRefuses(w, () => w.mr.cases.list({ limit: value as never })), value).toBe(
        true,
      );
    }
    for (const value of [
      PAGE_LIMIT_MIN - 1,
      PAGE_LIMIT_MAX + 1,
      2.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
    ]) {
      expect(await clientRefuses(w, () => w.mr.cases.list({ limit: value })), String(value)).toBe(
        true,
      );
    }
    const seen: string[] = [];
    const mr = new MedRecords({
      apiKey: "k",
      baseUrl: w.mock.baseUrl,
      fetch: async (input) => {
        seen.push(
          new URL(input instanceof Request ? input.url : String(input)).searchParams.get("limit") ??
            "",
        );
        return Response.json({ results: [], next: null, previous: null });
      },
    });
    for (const limit of [PAGE_LIMIT_MIN, 1e1, PAGE_LIMIT_MAX, "42" as never])
      await mr.cases.list({ limit });
    expect(seen).toEqual([String(PAGE_LIMIT_MIN), "10", String(PAGE_LIMIT_MAX), "42"]);
  });

  it("the document says the same: an integer from 1 to 100", () => {
    const doc = openApiDocument();
    for (const op of OPERATIONS.filter((o) => o.query !== undefined && "limit" in o.query.shape)) {
      const method = op.method.toLowerCase() as "get";
      const limit = doc.paths[op.path]?.[method]?.parameters?.find(
        (p) => "name" in p && p.name === "limit",
      );
      expect(limit, op.operationId).toMatchObject({
        in: "query",
        required: false,
        schema: { type: "integer", minimum: PAGE_LIMIT_MIN, maximum: PAGE_LIMIT_MAX },
      });
    }
  });
});

// ------------------------------------------------------------------ webhook URLs

const VALID_URLS = [
  "https://hooks.firm.example/medrecords",
  "http://hooks.firm.example:8080/a/b?c=d&e=f#g",
  "HTTPS://HOOKS.FIRM.EXAMPLE/",
  "https://hooks.firm.example:65535",
  "https://hooks.firm.example/a%20b/@/~x",
  "https://203.0.113.7/hook",
  "https://[2001:db8::1]:8443/hook",
  "https://xn--bcher-kva.example/",
];
const INVALID_URLS = [
  "mailto:ops@firm.example",
  "https://u:p@hooks.firm.example/",
  "https://u@hooks.firm.example/",
  "https://@hooks.firm.example/",
  "ftp://hooks.firm.example/",
  "ws://hooks.firm.example/",
  "https:hooks.firm.example",
  "https:///hooks.firm.example",
  "https://hooks.firm.example/a b",
  // WHATWG parsing drops these; the service must not store a URL other than the one given.
  " https://hooks.firm.example/",
  "https://hooks.firm.example/\t",
  "https://hooks.\nfirm.example/",
  "https://hooks.firm.example/ü",
  "https://bücher.example/",
  "https://hooks.firm.example:65536/",
  "https://hooks.firm.example/%zz",
  // Hosts the URL parser refuses: a control character once decoded, an IPvFuture, a number as last label.
  "https://%15/",
  "https://[v]/",
  "https://a.123/",
  "https://[::zz]/",
  "https://a.0x1/",
  "https://1.2.3.4.5/",
  "https://09/",
  "//hooks.firm.example/",
  "hooks.firm.example",
  `https://hooks.firm.example/${"a".repeat(WEBHOOK_URL_MAX)}`,
];

describe("webhook URLs: absolute ASCII http(s) URIs without user info, on the client, the server and in the document", () => {
  let w: World;
  let webhookId: string;
  beforeAll(async () => {
    w = world();
    webhookId = (await createWebhook(w.api)).id;
  });

  const body = (url: string) => ({
    name: `Hook ${url.length}`,
    url,
    events: ["retrieval_request.status_changed"],
  });
  const cases = [
    ...VALID_URLS.map((url) => [JSON.stringify(url).slice(0, 60), "accepted", url, true] as const),
    ...INVALID_URLS.map(
      (url) => [JSON.stringify(url).slice(0, 60), "refused", url, false] as const,
    ),
  ];

  it.each(cases)(
    "%s is %s by all three, on create and update",
    async (_shown, _verdict, url, valid) => {
      expect(await clientRefuses(w, () => w.mr.webhooks.update(webhookId, { url })), "client").toBe(
        !valid,
      );
      const created = await w.api.post("/v2/webhooks", {
        ...body(url),
        name: `Hook ${Math.random()}`,
      });
      // An over-long URL is invalid_request (spec, Webhooks rule 2), every other problem validation_error.
      if (url.length > WEBHOOK_URL_MAX) {
        expect(created.status).toBe(400);
        expect((created.body as ErrorResponseBody).error.code).toBe("invalid_request");
      } else {
        expect(serverRefuses(created, "url"), "server").toBe(!valid);
      }
      if (valid) await w.api.call("DELETE", `/v2/webhooks/${(created.body as { id: string }).id}`);
      expect(documentRefuses("POST", "/v2/webhooks", body(url)), "document, create").toBe(!valid);
      expect(
        documentRefuses("PATCH", `/v2/webhooks/${webhookId}`, { url }),
        "document, update",
      ).toBe(!valid);
    },
  );

  it("the pattern is the server's rule, but for Punycode a runtime's URL parser checks (property)", () => {
    const server = WebhookCreate.shape.url;
    const alphabet = fc.constantFrom(
      ..."aZ09-._~!$&'()*+,;=:@/?#[]%% \\\"<>^`{|}éü\t".split(""),
      "%41",
      "%00",
      "%zz",
      "xn--",
      "::1",
      "255",
      "65535",
      "65536",
      "%15",
      "[v]",
      ".123",
      "0x",
      "1.2.3.4",
    );
    const scheme = fc.constantFrom(
      "http",
      "https",
      "HTTP",
      "hTtPs",
      "ftp",
      "mailto",
      "",
      "https:",
      "http:/",
    );
    const url = fc.oneof(
      fc.webUrl({
        validSchemes: ["http", "https", "ftp"],
        withQueryParameters: true,
        withFragments: true,
        authoritySettings: {
          withUserInfo: true,
          withPort: true,
          withIPv4: true,
          withIPv6: true,
          withIPv4Extended: true,
        },
      }),
      fc
        .tuple(scheme, fc.string({ unit: alphabet, maxLength: 12 }))
        .map(([s, rest]) => `${s}://${rest}`),
      fc
        .tuple(fc.webUrl(), fc.string({ unit: alphabet, maxLength: 4 }), fc.nat())
        .map(
          ([base, insert, at]) =>
            base.slice(0, at % (base.length + 1)) + insert + base.slice(at % (base.length + 1)),
        ),
    );
    fc.assert(
      fc.property(url, (value) => {
        const accepted = server.safeParse(value).success;
        const byPattern = HTTP_URL_PATTERN.test(value) && value.length <= WEBHOOK_URL_MAX;
        // Whatever the server takes, the document's pattern takes.
        if (accepted) expect(byPattern, value).toBe(true);
        // What the pattern takes, the server takes, but for what no pattern can tell: an IPv4
        // number out of range, a percent-encoding that decodes to a number, Punycode (Node 22).
        if (byPattern && !accepted) {
          const host = value.replace(/^[a-z]+:\/\//i, "").split(/[/?#:]/)[0] ?? "";
          expect(host, value).toMatch(/^[0-9a-fx.%]+$|%|xn--/i);
        }
        // And the document (pattern, format and length, by ajv) says what the pattern says.
        const body = { url: value };
        expect(documentRefuses("PATCH", "/v2/webhooks/wh_1", body), value).toBe(!byPattern);
      }),
      fuzzParams(10_000),
    );
  });
});

// ------------------------------------------------------------------ action-response message

describe("the action-response message: not blank after trimming, on the client, the server and in the document", () => {
  let w: World;
  let ids: Ids;
  beforeAll(async () => {
    w = world();
    ids = await idsOf(w);
  });

  const blank = ["", " ", "\t\n", "\u00a0\u2003", "\ufeff", "\u2028 \u3000"];
  const notBlank = ["ok", "  x  ", "\u00a0x\u00a0", "\u200b"];
  const cases = [
    ...notBlank.map((m) => [JSON.stringify(m), "accepted", m, true] as const),
    ...blank.map((m) => [JSON.stringify(m), "refused", m, false] as const),
  ];

  it.each(cases)("message %s is %s by all three", async (_shown, _verdict, message, valid) => {
    const url = `/v2/retrieval-requests/${ids.retrievalRequestId}/action-response`;
    expect(
      await clientRefuses(w, () =>
        w.mr.retrievalRequests.respondToAction(ids.retrievalRequestId, { message }),
      ),
      "client",
    ).toBe(!valid);
    const response = await w.api.post(url, { message });
    expect(serverRefuses(response, "message", "action_response_rejected"), "server").toBe(!valid);
    expect(documentRefuses("POST", url, { message }), "document").toBe(!valid);
  });

  it("the document states it as a pattern of one non-space character", () => {
    const schemas = openApiDocument().components.schemas as Record<
      string,
      { properties: Record<string, unknown> }
    >;
    expect(schemas.ActionResponse?.properties.message).toMatchObject({
      type: "string",
      pattern: "\\S",
    });
  });
});

// ------------------------------------------------------------------ the event log

describe("the event log holds no webhook.test entry: on the client, the server and in the document", () => {
  const hex64 = "0123456789abcdef".repeat(4);
  const base = {
    object: "event",
    created_at: "2026-03-01T10:00:00.000Z",
    api_version: "v2",
    request_id: null,
  };
  const testEntry = {
    ...base,
    id: "evt_test_0b7e2a44-5a0e-4c55-9d0a-3f1c2b8e9d10",
    type: "webhook.test",
    data: { webhook_id: "wh_1" },
  };
  const known = {
    ...base,
    id: `rr-${hex64}`,
    type: "retrieval_request.action_required",
    data: {
      retrieval_request_id: "rr_1",
      case_id: null,
      public_updated_at: "2026-03-01T10:00:00.000Z",
      action_request_id: "ar_1",
    },
  };
  // A type added to the service later: still readable.
  const later = { ...base, id: "evt_1", type: "case.archived", data: { case_id: "case_1" } };
  const one = (body: unknown) =>
    validator.validateResponse({ method: "GET", url: "/v2/events/evt_1", status: 200, body });
  const page = (results: unknown[]) =>
    validator.validateResponse({
      method: "GET",
      url: "/v2/events",
      status: 200,
      body: { results, next: null, previous: null },
    });

  it("the document refuses a webhook.test entry, alone or in a page, and still takes known and later types", () => {
    expect(one(testEntry)).not.toEqual([]);
    expect(page([known, testEntry])).not.toEqual([]);
    expect(one(known)).toEqual([]);
    expect(one(later)).toEqual([]);
    expect(page([known, later])).toEqual([]);
    // The delivery is still documented: webhook.test is sent, just never logged.
    expect(openApiDocument().webhooks["webhook.test"]).toBeDefined();
    expect(Object.keys(openApiDocument().components.schemas)).not.toContain("WebhookTestLogEntry");
  });

  it("the client does not read one as an event, known or unknown", () => {
    expect(AnyEvent.safeParse(testEntry).success).toBe(false);
    expect(AnyEvent.safeParse(known).success).toBe(true);
    expect(AnyEvent.safeParse(later).success).toBe(true);
  });

  it("the server refuses to filter on it, saying it is never logged", async () => {
    const { api } = world();
    const response = await api.get("/v2/events?type=webhook.test");
    expect(response.status).toBe(400);
    expect((response.body as ErrorResponseBody).error).toMatchObject({
      code: "validation_error",
      message: expect.stringMatching(/^type: webhook\.test is never written to the event log/),
    });
  });
});
