/**
 * The API key, webhook secrets and protected health information never reach
 * an error or a log line, through every kind of failure the SDK reports,
 * driven against the reference server with sentinel values
 * (test/setup/sentinels.ts). Complements test/core/security.test.ts (the
 * key, against a scripted fetch) and test/webhooks/verify.test.ts (messages
 * of fixture secrets): here every rendering of every error (`message`,
 * `String`, `util.inspect` at depth 5, `JSON.stringify`, `stack`), every
 * logger line at its most verbose and every hook call are checked for the
 * key, both kinds of secret and every PHI value, and the reference server's
 * own error messages for any submitted value.
 */
import { inspect } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import {
  APIError,
  AuthenticationError,
  ConflictError,
  ConnectionError,
  InternalServerError,
  MedRecords,
  MedRecordsError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ResponseValidationError,
  TimeoutError,
  UploadError,
  ValidationError,
} from "../../src/index.js";
import { createMockService, type MockService } from "../../src/mock/index.js";
import {
  createWebhookHandler,
  signWebhook,
  verifyWebhook,
  WebhookVerificationError,
} from "../../src/webhooks/index.js";
import {
  findSecrets,
  SENTINEL_API_KEY,
  SENTINEL_PHI,
  SENTINEL_WEBHOOK_SECRET,
} from "../setup/sentinels.js";

/** PHI values of this file besides the shared sentinels: invalid or refused forms of them. */
const PHI = {
  ...SENTINEL_PHI,
  futureInjury: "2999-09-09",
  badDate: `${SENTINEL_PHI.dateOfBirth}T25:61`,
  notAnEmail: `${SENTINEL_PHI.clientName} at example`,
  fileName: "Zelda Sentinel-PHI intake 1911-11-11.pdf",
  longName: `${SENTINEL_PHI.clientName} `.repeat(12),
};

/** Every value of this test that must stay out: the keys and secrets in play, and PHI. */
function forbiddenValues(extra: Record<string, string> = {}): Record<string, string> {
  return {
    sentinelKey: SENTINEL_API_KEY,
    sentinelSecret: SENTINEL_WEBHOOK_SECRET,
    ...Object.fromEntries(Object.entries(PHI).map(([k, v]) => [`PHI.${k}`, v.trim()])),
    ...extra,
  };
}

/** Every way an error is commonly printed. */
function renderings(error: unknown): string {
  const e = error as Error;
  return [
    e.message,
    String(e),
    e.stack,
    inspect(e, { depth: 5 }),
    inspect(e, { depth: 5, showHidden: true }),
    JSON.stringify(e),
  ].join("\n");
}

/**
 * Names of the forbidden values `text` holds, plus anything shaped like a
 * key or secret: the failure report lists names, never the values.
 */
function leaksIn(text: string, forbidden: Record<string, string>): string[] {
  const named = Object.entries(forbidden)
    .filter(([, value]) => text.includes(value))
    .map(([name]) => name);
  return [...named, ...findSecrets(text).map((f) => `${f.kind}: ${f.excerpt}`)];
}

function expectNoLeak(label: string, text: string, forbidden: Record<string, string>): void {
  expect(leaksIn(text, forbidden), label).toEqual([]);
}

async function caught(promise: PromiseLike<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

/** A client on the reference server with the most verbose logger and both hooks recording. */
function setup(options: { now?: string } = {}) {
  const mock = createMockService({
    delivery: "inbox",
    lookupHost: async () => [],
    ...(options.now !== undefined && { now: options.now }),
  });
  const key = mock.apiKeys.create();
  const lines: string[] = [];
  const log = (level: string) => (message: string, fields: unknown) =>
    lines.push(`${level} ${message} ${JSON.stringify(fields)} ${inspect(fields, { depth: 5 })}`);
  const clientOptions = {
    apiKey: key,
    baseUrl: mock.baseUrl,
    fetch: mock.fetch,
    logger: { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") },
    logLevel: "debug" as const,
    hooks: {
      onRequest: (info: unknown) => lines.push(`onRequest ${JSON.stringify(info)}`),
      onResponse: (info: unknown) => lines.push(`onResponse ${JSON.stringify(info)}`),
    },
    maxRetries: 1,
    maxRetryAfterMs: 0,
    validateResponses: true,
  };
  const mr = new MedRecords(clientOptions);
  return { mock, key, mr, lines, clientOptions };
}

let checkLines: (() => void) | undefined;
afterEach(() => {
  checkLines?.();
  checkLines = undefined;
});

/** Sets up, and checks every log line and hook call of the test when it ends. */
function clientWithLogs(options: { now?: string } = {}) {
  const s = setup(options);
  checkLines = () => {
    expectNoLeak("log lines and hook calls", s.lines.join("\n"), forbiddenValues({ key: s.key }));
  };
  return s;
}

const phiCase = {
  title: PHI.title,
  client_name: PHI.clientName,
  client_date_of_birth: PHI.dateOfBirth,
  date_of_injury: PHI.dateOfInjury,
  client_email: PHI.email,
  client_phone: PHI.phone,
  client_address: PHI.address,
  description: PHI.description,
  external_id: PHI.externalId,
};

describe("PHI refused by the SDK's own validation (nothing sent)", () => {
  it("no field value appears in any rendering, whichever rule refused it", async () => {
    const { mr, key, mock } = clientWithLogs();
    const created = await mr.cases.create(phiCase);
    const bad = [
      mr.cases.create({ ...phiCase, client_email: PHI.notAnEmail }),
      mr.cases.create({ ...phiCase, client_date_of_birth: PHI.badDate }),
      mr.cases.create({ ...phiCase, date_of_injury: PHI.futureInjury }),
      mr.cases.create({ ...phiCase, client_name: PHI.longName.repeat(2) }),
      mr.cases.create({ ...phiCase, client_phone: PHI.phone.repeat(4) }),
      mr.cases.create({ ...phiCase, description: PHI.description.repeat(200) }),
      mr.cases.create({ ...phiCase, status: PHI.clientName } as never),
      mr.cases.create({ ...phiCase, case_category: PHI.clientName } as never),
      mr.cases.create({ ...phiCase, ssn: PHI.externalId } as never),
      mr.cases.create({ ...phiCase, client_name: 1911 } as never),
      mr.cases.update(created.id, { client_email: PHI.notAnEmail }),
      mr.cases.list({ limit: PHI.dateOfBirth } as never),
      mr.requestors.create({ name: PHI.clientName, email: PHI.notAnEmail } as never),
      mr.retrievalRequests.create({
        case: { ...phiCase, date_of_injury: PHI.futureInjury },
        facility_id: "fac_1",
        requestor_id: "req_1",
        auth_form: "upl_1",
        notes: PHI.description.repeat(1000),
        date_from: PHI.dateOfInjury,
        date_to: PHI.dateOfBirth,
      }),
      mr.retrievalRequests.respondToAction("rr_1", {
        message: PHI.description.repeat(400),
        requester_email: PHI.notAnEmail,
      }),
    ];
    const errors = await Promise.all(bad.map(caught));
    for (const [i, error] of errors.entries()) {
      expect(error, `call ${i}`).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).requestId, `call ${i} was not sent`).toBeUndefined();
      expectNoLeak(`call ${i}`, renderings(error), forbiddenValues({ key }));
    }
    // The issues name the fields, so the messages are useful without the values.
    expect((errors[0] as ValidationError).issues.map((i) => i.path)).toEqual(["client_email"]);
    expect((errors[8] as ValidationError).issues).toEqual([
      { path: "ssn", message: "Unknown property" },
    ]);
    expect(mock.deliveries.inbox).toEqual([]);
  });

  it("an unknown property is named (names are not values), its value is not", async () => {
    const { mr } = clientWithLogs();
    const name = "Yorick (a name used as a key)";
    const error = (await caught(
      mr.cases.create({ ...phiCase, [name]: PHI.externalId } as never),
    )) as ValidationError;
    expect(error.issues).toEqual([{ path: name, message: "Unknown property" }]);
    expectNoLeak("unknown property", renderings(error), forbiddenValues());
  });
});

describe("every failure of a call carrying PHI, against the reference server", () => {
  it("400 from the server's validation (its clock says the injury is in the future)", async () => {
    // The server's clock is in 1900, so the SDK (today) accepts what the server refuses.
    const { mr, key } = clientWithLogs({ now: "1900-01-01T00:00:00.000Z" });
    const error = await caught(mr.cases.create(phiCase));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ status: 400, code: "validation_error" });
    expect((error as ValidationError).requestId).toMatch(/^req_/);
    expect((error as ValidationError).message).toContain("date_of_injury");
    expectNoLeak("server validation", renderings(error), forbiddenValues({ key }));
  });

  it("401 with a sentinel key the server does not know", async () => {
    const { mock } = setup();
    const lines: string[] = [];
    const log = (m: string, f: unknown) => lines.push(`${m} ${JSON.stringify(f)}`);
    const mr = new MedRecords({
      apiKey: SENTINEL_API_KEY,
      baseUrl: mock.baseUrl,
      fetch: mock.fetch,
      logger: { debug: log, info: log, warn: log, error: log },
      logLevel: "info",
    });
    const error = await caught(mr.cases.create(phiCase));
    expect(error).toBeInstanceOf(AuthenticationError);
    expectNoLeak("401", `${renderings(error)}\n${lines.join("\n")}`, forbiddenValues());
    expect(lines).toHaveLength(1);
  });

  it("403 (a key without the scope), 404, 409 and 429", async () => {
    const { mr, mock, key, clientOptions } = clientWithLogs();
    const readOnly = mock.apiKeys.create({ scopes: ["cases:read"] });
    const limited = new MedRecords({ ...clientOptions, apiKey: readOnly });
    const hook = { name: `${PHI.clientName} hook`, url: "https://hooks.example.test/h" };
    await mr.webhooks.create({ ...hook, events: ["retrieval_request.status_changed"] });
    const errors = [
      await caught(limited.cases.create(phiCase)),
      await caught(mr.cases.retrieve(PHI.externalId)),
      await caught(mr.cases.update(PHI.externalId, { client_email: PHI.email })),
      await caught(mr.webhooks.create({ ...hook, events: ["retrieval_request.status_changed"] })),
    ];
    mock.faults.set({ rateLimitBurst: 5, retryAfterSeconds: 30 });
    errors.push(await caught(mr.cases.create(phiCase)));
    mock.faults.clear();
    expect(errors.map((e) => e?.constructor)).toEqual([
      PermissionError,
      NotFoundError,
      NotFoundError,
      ConflictError,
      RateLimitError,
    ]);
    for (const [i, error] of errors.entries()) {
      expectNoLeak(`error ${i}`, renderings(error), forbiddenValues({ key, readOnly }));
    }
  });

  it("5xx before and after the write, dropped connections, and timeouts", async () => {
    const { mr, mock, key, lines } = clientWithLogs();
    await mr.cases.create(phiCase);
    const errors: unknown[] = [];
    for (const errorTiming of ["before", "after"] as const) {
      mock.faults.set({ errorRate: 1, errorTiming, errorStatuses: [500, 502, 503, 504] });
      errors.push(await caught(mr.cases.create(phiCase)));
    }
    for (const dropTiming of ["before", "after"] as const) {
      mock.faults.set({ dropRate: 1, dropTiming });
      errors.push(await caught(mr.cases.create(phiCase)));
    }
    mock.faults.set({ latencyMs: 300 });
    errors.push(await caught(mr.cases.create(phiCase, { timeoutMs: 20 })));
    errors.push(await caught(mr.cases.list({ limit: 5 }, { deadlineMs: 30 })));
    // A GET is retried on a 5xx: a warning line.
    mock.faults.set({ errorRate: 1, errorTiming: "before", errorStatuses: [503] });
    await caught(mr.cases.list({ limit: 5 }));
    mock.faults.clear();
    // Every level was used: debug for attempts, info for answers, warn for retries, error for failures.
    for (const level of ["debug", "info", "warn", "error"]) {
      expect(lines.some((l) => l.startsWith(`${level} `))).toBe(true);
    }
    expect(errors.map((e) => e?.constructor)).toEqual([
      InternalServerError,
      InternalServerError,
      ConnectionError,
      ConnectionError,
      TimeoutError,
      TimeoutError,
    ]);
    for (const [i, error] of errors.entries()) {
      expectNoLeak(`error ${i}`, renderings(error), forbiddenValues({ key }));
    }
  });

  it("responses that break the spec (validateResponses) never quote the values they carry", async () => {
    const { mock, key } = setup();
    const answers: Array<(real: Response) => Response> = [
      // Every PHI value moved into a field that must not hold it.
      () =>
        Response.json(
          { ...phiCase, id: 7, case_number: PHI.dateOfBirth, client_date_of_birth: PHI.badDate },
          { status: 201 },
        ),
      // An unknown property holding PHI.
      () => Response.json({ ...phiCase, ssn: PHI.externalId }, { status: 201 }),
      // Not JSON at all, starting with PHI (JSON.parse would quote it).
      () => new Response(`${PHI.clientName}, born ${PHI.dateOfBirth}`, { status: 200 }),
      // An error body without the spec's shape, echoing the request.
      () => new Response(JSON.stringify({ detail: phiCase }), { status: 422 }),
    ];
    const errors: unknown[] = [];
    for (const answer of answers) {
      const mr = new MedRecords({
        apiKey: key,
        baseUrl: mock.baseUrl,
        validateResponses: true,
        maxRetries: 0,
        fetch: async (input, init) => answer(await mock.fetch(input, init)),
      });
      errors.push(await caught(mr.cases.create(phiCase)));
    }
    expect(errors.map((e) => e?.constructor)).toEqual([
      ResponseValidationError,
      ResponseValidationError,
      ResponseValidationError,
      APIError,
    ]);
    expect((errors[0] as ResponseValidationError).issues.map((i) => i.path)).toEqual(
      expect.arrayContaining(["id", "client_date_of_birth"]),
    );
    for (const [i, error] of errors.entries()) {
      expectNoLeak(`error ${i}`, renderings(error), forbiddenValues({ key }));
    }
  });

  it("upload failures name neither the file nor its bytes", async () => {
    const { mr, mock, key } = clientWithLogs();
    const { id } = await mr.cases.create(phiCase);
    const bytes = new TextEncoder().encode(`%PDF-1.7 ${PHI.clientName} ${PHI.dateOfBirth}`);
    const stream = () =>
      new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(bytes);
          c.close();
        },
      });
    const file = { file: bytes, file_name: PHI.fileName, file_type: "application/pdf" };
    const errors = [
      // The declared size disagrees (refused before signing).
      await caught(mr.cases.uploadDocument(id, { ...file, size: bytes.length + 1 })),
      // A stream without a size.
      await caught(mr.cases.uploadDocument(id, { ...file, file: stream() })),
      // A file type that is not one.
      await caught(mr.cases.uploadDocument(id, { ...file, file_type: "" })),
    ];
    // The presigned address refuses the bytes, echoing them, then expires before a stream's PUT.
    const storage = (status: number) =>
      new MedRecords({
        apiKey: key,
        baseUrl: mock.baseUrl,
        maxRetries: 0,
        fetch: async (input, init) => {
          const request = new Request(input, init);
          if (new URL(request.url).origin !== mock.storageUrl) return mock.fetch(request);
          const echo = {
            error: { code: "refused", message: `${PHI.fileName}: ${PHI.clientName}` },
          };
          return Response.json(echo, { status });
        },
      });
    errors.push(await caught(storage(500).cases.uploadDocument(id, file)));
    errors.push(await caught(storage(403).cases.uploadDocument(id, file)));
    errors.push(
      await caught(
        storage(403).cases.uploadDocument(id, { ...file, file: stream(), size: bytes.length }),
      ),
    );
    expect(errors.map((e) => e?.constructor)).toEqual([
      UploadError,
      UploadError,
      ValidationError,
      UploadError,
      UploadError,
      UploadError,
    ]);
    for (const [i, error] of errors.entries()) {
      expectNoLeak(`error ${i}`, renderings(error), forbiddenValues({ key }));
    }
  });
});

describe("webhook verification failures", () => {
  it("name neither the secret, nor a signature, nor the body's PHI", async () => {
    const { mr, key } = clientWithLogs();
    const { secret } = await mr.webhooks.create({
      name: "Records",
      url: "https://hooks.example.test/h",
      events: ["retrieval_request.status_changed"],
    });
    expect(secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    const event = {
      id: "evt_1",
      type: "retrieval_request.status_changed",
      created_at: "2026-03-01T10:00:00.000Z",
      data: { retrieval_request_id: "rr_1", note: PHI.description, client_name: PHI.clientName },
    };
    const body = JSON.stringify(event);
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = await signWebhook({ payload: body, secret, timestamp });
    const signature = headers["x-service-signature-v1"]!;
    const notJson = `${PHI.clientName} ${PHI.dateOfBirth}`;
    const notJsonHeaders = await signWebhook({ payload: notJson, secret, timestamp });
    const attempts: Array<Parameters<typeof verifyWebhook>[0]> = [
      { payload: body, headers, secret: SENTINEL_WEBHOOK_SECRET },
      { payload: body, headers, secret: [SENTINEL_WEBHOOK_SECRET, `${secret}x`] },
      { payload: body, headers, secret: `${secret}\n` },
      { payload: body, headers, secret: `  ${SENTINEL_WEBHOOK_SECRET}` },
      { payload: body, headers, secret: secret.slice("whsec_".length) },
      { payload: body.replace("rr_1", "rr_2"), headers, secret },
      { payload: JSON.stringify(event, null, 2), headers, secret },
      { payload: body, headers, secret, now: (timestamp + 3600) * 1000 },
      { payload: body, headers, secret, now: (timestamp - 3600) * 1000 },
      { payload: body, headers: { ...headers, "x-service-signature-v1": secret }, secret },
      {
        payload: body,
        headers: { ...headers, "x-service-signature-v1": `v1=${PHI.externalId}` },
        secret,
      },
      { payload: body, headers: { ...headers, "x-service-timestamp": PHI.dateOfBirth }, secret },
      { payload: body, headers: { "x-service-signature-v1": signature }, secret },
      { payload: event as never, headers, secret },
      { payload: notJson, headers: notJsonHeaders, secret },
      {
        payload: body,
        headers: { ...headers, "x-webhook-event-id": PHI.externalId },
        secret,
      },
    ];
    const forbidden = forbiddenValues({
      key,
      secret,
      secretBody: secret.slice("whsec_".length),
      signature: signature.slice(3),
    });
    for (const [i, attempt] of attempts.entries()) {
      const error = await caught(verifyWebhook(attempt));
      expect(error, `attempt ${i}`).toBeInstanceOf(WebhookVerificationError);
      expectNoLeak(`attempt ${i}`, renderings(error), forbidden);
    }
  });

  it("the request handler's error report and response carry none of it either", async () => {
    const secret = SENTINEL_WEBHOOK_SECRET;
    const reported: unknown[] = [];
    const handler = createWebhookHandler({
      secret,
      on: {},
      onError: (error) => {
        reported.push(error);
      },
    });
    const body = JSON.stringify({ id: "evt_1", data: { client_name: PHI.clientName } });
    const headers = await signWebhook({ payload: body, secret: `${secret}x`, timestamp: 1 });
    const response = await handler(
      new Request("https://receiver.example.test/hook", { method: "POST", headers, body }),
    );
    expect(response.status).toBe(400);
    const text = `${await response.text()}\n${[...response.headers].join("\n")}`;
    expect(reported[0]).toBeInstanceOf(MedRecordsError);
    expectNoLeak(
      "handler",
      `${text}\n${reported.map((r) => inspect(r, { depth: 5 })).join("\n")}`,
      forbiddenValues(),
    );
  });
});

describe("the reference server's own error messages", () => {
  async function raw(mock: MockService, key: string, method: string, path: string, body?: string) {
    const response = await mock.fetch(`${mock.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body,
    });
    const text = await response.text();
    return { status: response.status, text };
  }

  it("never echo a submitted value, whatever the field and the rule", async () => {
    const { mock, key } = setup();
    const created = await raw(mock, key, "POST", "/v2/cases", JSON.stringify(phiCase));
    expect(created.status).toBe(201);
    const caseId = (JSON.parse(created.text) as { id: string }).id;
    const bodies: Array<[string, string, unknown]> = [
      ["POST", "/v2/cases", { ...phiCase, client_email: PHI.notAnEmail }],
      ["POST", "/v2/cases", { ...phiCase, client_date_of_birth: PHI.badDate }],
      ["POST", "/v2/cases", { ...phiCase, date_of_injury: PHI.futureInjury }],
      ["POST", "/v2/cases", { ...phiCase, client_name: PHI.longName.repeat(2) }],
      ["POST", "/v2/cases", { ...phiCase, client_phone: PHI.phone.repeat(4) }],
      ["POST", "/v2/cases", { ...phiCase, status: PHI.clientName, case_category: PHI.email }],
      ["POST", "/v2/cases", { ...phiCase, ssn: PHI.externalId }],
      ["POST", "/v2/cases", [phiCase]],
      ["POST", "/v2/cases", `{"client_name": "${PHI.clientName}", "title": `],
      ["PATCH", `/v2/cases/${caseId}`, { client_email: PHI.notAnEmail, title: "" }],
      ["POST", "/v2/requestors", { name: PHI.clientName, email: PHI.notAnEmail }],
      [
        "POST",
        "/v2/retrieval-requests",
        {
          case: { ...phiCase, client_email: PHI.notAnEmail },
          facility: { name: PHI.address },
          requestor_id: PHI.externalId,
          auth_form: PHI.fileName,
          notes: PHI.description.repeat(1000),
        },
      ],
      ["POST", "/v2/retrieval-requests/sign-upload", { file_name: PHI.fileName, file_type: 7 }],
      ["POST", `/v2/cases/${caseId}/documents`, { upload_id: PHI.fileName, path: PHI.description }],
      [
        "POST",
        "/v2/webhooks",
        {
          name: PHI.clientName,
          url: `https://127.0.0.1/h?token=${SENTINEL_WEBHOOK_SECRET}`,
          events: ["retrieval_request.status_changed"],
        },
      ],
      [
        "POST",
        "/v2/webhooks",
        {
          name: PHI.clientName,
          url: `ftp://hooks.example.test/${SENTINEL_WEBHOOK_SECRET}`,
          events: [PHI.clientName],
        },
      ],
    ];
    const answers = [];
    for (const [method, path, body] of bodies) {
      const text = typeof body === "string" ? body : JSON.stringify(body);
      answers.push({ path, ...(await raw(mock, key, method, path, text)) });
    }
    answers.push({
      path: "cursor",
      ...(await raw(mock, key, "GET", `/v2/cases?cursor=${PHI.externalId}`)),
    });
    answers.push({
      path: "unknown case",
      ...(await raw(mock, key, "GET", `/v2/cases/${encodeURIComponent(PHI.clientName)}`)),
    });
    for (const { path, status, text } of answers) {
      expect(status, `${path}: ${text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
      expect(status).toBeLessThan(500);
      expectNoLeak(`${path} answered ${status}`, text, forbiddenValues({ key }));
    }
  });
});
