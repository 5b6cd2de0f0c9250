/**
 * Testing your own code with `medrecords/mock`: a vitest file as it would sit
 * in your application's test suite.
 *
 * The reference server runs inside MSW (`npm install --save-dev msw`), so the
 * SDK's ordinary `fetch` calls, presigned uploads included, reach it without a
 * network. Each test drives the provider's side (`mock.retrievalRequests`),
 * injects faults (`mock.faults`), moves time (`mock.clock`) and asserts on
 * what the service received; `mock.reset()` empties it between tests (API
 * keys, the clock and the fault settings stay).
 *
 * In this repository it runs with the unit tests (`npx vitest run examples`).
 * In your project: `npm install --save-dev vitest msw`, copy
 * node_modules/medrecords/examples/testing-with-the-mock.test.ts into your
 * tests, and `npx vitest run`.
 */

import {
  BadRequestError,
  ConnectionError,
  InternalServerError,
  MedRecords,
  TimeoutError,
} from "medrecords";
import { createMockService } from "medrecords/mock";
import { HttpResponse, http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

// ---------------------------------------------------------------------------
// Your application's code. In your app it lives in src/ and is imported here.
// ---------------------------------------------------------------------------

/** Signs a case-level upload for the client's authorization and PUTs it; returns the upload id. */
async function uploadAuthorization(mr: MedRecords, caseId: string, pdf: Uint8Array) {
  return mr.retrievalRequests.uploadFile({
    file: pdf,
    file_name: "authorization.pdf",
    file_type: "application/pdf",
    case_id: caseId,
  });
}

/**
 * Files a records request once. The SDK never repeats a create after a 5xx
 * or a timeout (the service may have acted), so neither does this: it looks
 * for the request by its `external_id` before giving up.
 */
async function fileRecordsRequest(
  mr: MedRecords,
  input: { caseId: string; facilityId: string; requestorId: string; authForm: string; ref: string },
): Promise<string> {
  try {
    const created = await mr.retrievalRequests.create({
      case_id: input.caseId,
      facility_id: input.facilityId,
      requestor_id: input.requestorId,
      auth_form: input.authForm,
      external_id: input.ref,
    });
    return created.id;
  } catch (error) {
    const uncertain =
      error instanceof InternalServerError ||
      error instanceof ConnectionError ||
      error instanceof TimeoutError;
    if (!uncertain) throw error;
    for await (const request of mr.retrievalRequests.list({ case_id: input.caseId })) {
      if (request.external_id === input.ref) return request.id;
    }
    throw error;
  }
}

/** The line your case page shows. */
async function recordsStatus(mr: MedRecords, retrievalRequestId: string): Promise<string> {
  const request = await mr.retrievalRequests.retrieve(retrievalRequestId);
  switch (request.status) {
    case "action_required":
      return `Waiting on us: ${request.action_required_reason}`;
    case "completed":
      return `Completed: ${request.documents.filter((d) => d.kind === "record").length} record file(s)`;
    case "cancelled":
      return "Cancelled";
    default:
      return `In progress (${request.stage})`;
  }
}

/** Answers the open action request with a signed authorization. */
async function answerWithAuthorization(
  mr: MedRecords,
  retrievalRequestId: string,
  pdf: Uint8Array,
) {
  const request = await mr.retrievalRequests.retrieve(retrievalRequestId);
  const upload_id = await uploadAuthorization(mr, request.case_id!, pdf);
  return mr.retrievalRequests.respondToAction(retrievalRequestId, {
    message: "Signed authorization attached.",
    attachment: { upload_id },
  });
}

// ---------------------------------------------------------------------------
// The tests.
// ---------------------------------------------------------------------------

const PDF = new TextEncoder().encode("%PDF-1.7\n% fictional signed authorization\n%%EOF\n");

// One reference server for the file; its default origins are https://api.medrecords.test
// and https://storage.medrecords.test (presigned uploads and downloads).
const mock = createMockService();
const server = setupServer(...mock.handlers);

// Your app's key, with only the scopes it needs: a missing one fails the test with a PermissionError.
const appKey = mock.apiKeys.create({
  scopes: ["documents:write", "retrievals:read", "retrievals:write"],
});
const attempts: string[] = [];
const app = new MedRecords({
  apiKey: appKey,
  baseUrl: mock.baseUrl,
  // Every response checked against the API's schema: catches a test double drifting from the spec.
  validateResponses: true,
  hooks: {
    onRequest: ({ method, path, attempt }) => attempts.push(`${method} ${path} #${attempt}`),
  },
});
// Seeding goes through the API too, so every rule of the service applies to the seed.
const admin = new MedRecords({ apiKey: mock.apiKeys.create(), baseUrl: mock.baseUrl });

let caseId: string;
let requestorId: string;

beforeAll(() => server.listen({ onUnhandledFrame: "error" }));
beforeEach(async () => {
  const seededCase = await admin.cases.create({
    title: "Example v. Testing Co. (fictional)",
    client_name: "Casey Mock-Example",
  });
  caseId = seededCase.id;
  requestorId = (await admin.requestors.create({ name: "Test Paralegal", email: "p@firm.example" }))
    .id;
  attempts.length = 0;
});
afterEach(() => {
  mock.reset(); // every case, request, upload and event gone; keys stay valid
  mock.faults.clear(); // reset() keeps faults on purpose
  server.resetHandlers(); // drops the per-test overrides of server.use()
  server.events.removeAllListeners();
});
afterAll(() => server.close());

async function fileOne(ref = "matter-1") {
  const authForm = await uploadAuthorization(app, caseId, PDF);
  return fileRecordsRequest(app, {
    caseId,
    facilityId: "fac_mercy_general", // the mock's seeded directory: MOCK_FACILITIES
    requestorId,
    authForm,
    ref,
  });
}

describe("records requests", () => {
  it("reports each stage as the provider moves the request to completion", async () => {
    const id = await fileOne();
    expect(await recordsStatus(app, id)).toBe("In progress (intake)");

    // The provider's side, as a test drives it.
    mock.retrievalRequests.setStatus(id, { status: "processing", stage: "request_sent" });
    mock.retrievalRequests.openActionRequest(id, {
      reason: "missing_hipaa_authorization",
      message: "Please send a signed authorization.",
    });
    expect(await recordsStatus(app, id)).toBe("Waiting on us: missing_hipaa_authorization");

    await answerWithAuthorization(app, id, PDF);
    // What the service received, from the mock's own state.
    const [actionRequest] = mock.retrievalRequests.actionRequests(id);
    expect(actionRequest?.status).toBe("responded");
    expect(actionRequest?.responses[0]?.attachment).toMatchObject({
      file_type: "application/pdf",
      file_size: PDF.byteLength,
    });

    mock.retrievalRequests.releaseRecords(id, [
      { file_name: "records.pdf", file_type: "application/pdf", content: "%PDF-1.7 records" },
    ]);
    mock.retrievalRequests.complete(id);
    expect(await recordsStatus(app, id)).toBe("Completed: 1 record file(s)");
  });

  it("sends the API key to the API only, never to the presigned upload address", async () => {
    const seen: Array<{ method: string; url: string; authorization: string | null }> = [];
    server.events.on("request:start", ({ request }) => {
      seen.push({
        method: request.method,
        url: request.url,
        authorization: request.headers.get("authorization"),
      });
    });
    await fileOne();

    const put = seen.find((r) => r.method === "PUT");
    expect(put?.url.startsWith(mock.storageUrl)).toBe(true);
    expect(put?.authorization).toBeNull();
    const api = seen.filter((r) => r.url.startsWith(mock.baseUrl));
    expect(api.length).toBeGreaterThan(0);
    expect(api.every((r) => r.authorization === `Bearer ${appKey}`)).toBe(true);
  });

  it("rides out a burst of 429s: the client waits and retries", async () => {
    const id = await fileOne();
    attempts.length = 0;
    mock.faults.set({ rateLimitBurst: 2, retryAfterSeconds: 0 });

    expect(await recordsStatus(app, id)).toBe("In progress (intake)");
    expect(attempts).toEqual([
      "GET /v2/retrieval-requests/{retrieval_request_id} #1",
      "GET /v2/retrieval-requests/{retrieval_request_id} #2",
      "GET /v2/retrieval-requests/{retrieval_request_id} #3",
    ]);
  });

  it("gives up on a read after its retries when the service keeps failing", async () => {
    const id = await fileOne();
    attempts.length = 0;
    mock.faults.set({ errorRate: 1, errorStatuses: [503] });

    await expect(recordsStatus(app, id)).rejects.toBeInstanceOf(InternalServerError);
    expect(attempts).toHaveLength(3); // the first attempt and maxRetries (2)
  });

  it("does not file twice when a create fails after the service acted", async () => {
    const authForm = await uploadAuthorization(app, caseId, PDF);
    // Once: the mock creates the request, then the answer is lost behind a 503
    // (a proxy timing out, say). `mock.handle` is the reference server itself.
    server.use(
      http.post(
        `${mock.baseUrl}/v2/retrieval-requests`,
        async ({ request }) => {
          await mock.handle(request);
          return HttpResponse.json(
            { error: { code: "service_unavailable", message: "Try again later." } },
            { status: 503 },
          );
        },
        { once: true },
      ),
    );
    attempts.length = 0;

    const id = await fileRecordsRequest(app, {
      caseId,
      facilityId: "fac_mercy_general",
      requestorId,
      authForm,
      ref: "matter-2",
    });

    expect(attempts.filter((a) => a.startsWith("POST"))).toEqual([
      "POST /v2/retrieval-requests #1", // not retried by the SDK
    ]);
    const all = (await admin.retrievalRequests.list()).results;
    expect(all.map((r) => r.id)).toEqual([id]);
    expect(all[0]?.external_id).toBe("matter-2");
  });

  it("an authorization uploaded more than an hour ago can no longer be used", async () => {
    const authForm = await uploadAuthorization(app, caseId, PDF);
    mock.clock.advance("61m"); // an upload_id lives one hour
    const filing = fileRecordsRequest(app, {
      caseId,
      facilityId: "fac_mercy_general",
      requestorId,
      authForm,
      ref: "matter-3",
    });
    await expect(filing).rejects.toBeInstanceOf(BadRequestError);
    await expect(filing).rejects.toMatchObject({ code: "upload_expired" });
  });

  it("starts each test from the seed alone: reset() emptied the service", async () => {
    const cases = (await admin.cases.list()).results;
    expect(cases.map((c) => c.id)).toEqual([caseId]);
    expect((await admin.retrievalRequests.list()).results).toEqual([]);
  });
});
