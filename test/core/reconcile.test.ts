/**
 * `create(body, { reconcile: true })`: after a failure that may have created
 * the resource, it is looked up by `external_id` and returned, or created
 * again when it does not exist, within the retry budget. The reference
 * server runs the same under faults in test/e2e/reconcile.test.ts.
 */
import { describe, expect, it } from "vitest";
import {
  BadRequestError,
  InternalServerError,
  MedRecords,
  NotFoundError,
  ValidationError,
} from "../../src/index.js";
import {
  type Answer,
  API_KEY,
  apiError,
  BASE_URL,
  connectionError,
  json,
  sampleCase,
  scriptedFetch,
} from "../helpers/scripted-fetch.js";

const EXTERNAL_ID = "matter-1042";
const body = { title: "Doe v. Acme", client_name: "Jane Doe", external_id: EXTERNAL_ID };
const existing = { ...sampleCase, id: "case_existing", external_id: EXTERNAL_ID };
const created = { ...sampleCase, id: "case_new", external_id: EXTERNAL_ID };
const page = (...results: unknown[]) => json(200, { results, next: null, previous: null });
const down = () => apiError(503, "service_unavailable", "down");

function client(answers: Answer[], extra = {}) {
  const { fetch, seen } = scriptedFetch(answers);
  const mr = new MedRecords({ apiKey: API_KEY, baseUrl: BASE_URL, fetch, ...extra });
  const calls = () =>
    seen.map((s) => {
      const url = new URL(s.url);
      return `${s.method} ${url.pathname}${url.search}`;
    });
  return { mr, calls };
}

const LOOKUP = `GET /v2/cases?limit=1&external_id=${EXTERNAL_ID}`;

describe("reconcile: true", () => {
  it("returns the case the failed create made, found by its external_id", async () => {
    const { mr, calls } = client([down(), page(existing)]);
    const { data, response } = await mr.cases.create(body, { reconcile: true }).withResponse();
    expect(data).toEqual(existing);
    expect(response.status).toBe(200);
    expect(calls()).toEqual(["POST /v2/cases", LOOKUP]);
  });

  it("creates again when the failed create left nothing, and returns the new case", async () => {
    const { mr, calls } = client([connectionError("ECONNRESET"), page(), json(201, created)]);
    await expect(mr.cases.create(body, { reconcile: true })).resolves.toEqual(created);
    expect(calls()).toEqual(["POST /v2/cases", LOOKUP, "POST /v2/cases"]);
  });

  it("sends the create at most maxRetries times more, then throws the last error", async () => {
    const { mr, calls } = client([down(), page(), down(), page(), down(), page()], {
      maxRetries: 2,
    });
    const error = await mr.cases.create(body, { reconcile: true }).catch((e) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.mayHaveSucceeded).toBe(true);
    expect(calls().filter((c) => c.startsWith("POST"))).toHaveLength(3);
  });

  it("takes the call's maxRetries over the client's", async () => {
    const { mr, calls } = client([down(), page(), down(), page()], { maxRetries: 5 });
    const error = await mr.cases.create(body, { reconcile: true, maxRetries: 1 }).catch((e) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(calls()).toEqual(["POST /v2/cases", LOOKUP, "POST /v2/cases", LOOKUP]);
  });

  it("looks nothing up after a refusal that certainly created nothing", async () => {
    const { mr, calls } = client([apiError(400, "bad_request", "no")]);
    const error = await mr.cases.create(body, { reconcile: true }).catch((e) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(calls()).toEqual(["POST /v2/cases"]);
  });

  it("after an unknown outcome, a refusal of the repeated create is looked up too", async () => {
    // The first create landed late (still in flight at the first lookup); the second is refused.
    const { mr, calls } = client([
      down(),
      page(),
      apiError(400, "upload_consumed", "used"),
      page(existing),
    ]);
    await expect(mr.cases.create(body, { reconcile: true })).resolves.toEqual(existing);
    expect(calls()).toEqual(["POST /v2/cases", LOOKUP, "POST /v2/cases", LOOKUP]);
  });

  it("throws the create's error when the lookup itself fails: the outcome is still unknown", async () => {
    const { mr } = client([down(), apiError(404, "not_found", "no such route")]);
    const error = await mr.cases.create(body, { reconcile: true }).catch((e) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).not.toBeInstanceOf(NotFoundError);
    expect(error.mayHaveSucceeded).toBe(true);
  });

  it("never returns a listed case with another external_id (a service ignoring the filter)", async () => {
    const other = { ...sampleCase, id: "case_other", external_id: "matter-9" };
    const { mr, calls } = client([down(), page(other), json(201, created)]);
    await expect(mr.cases.create(body, { reconcile: true })).resolves.toEqual(created);
    expect(calls()).toEqual(["POST /v2/cases", LOOKUP, "POST /v2/cases"]);
  });

  it.each([
    ["left out", undefined],
    ["empty", ""],
  ])("is refused before sending when external_id is %s, naming the field", async (_, value) => {
    const { mr, calls } = client([]);
    const { external_id: _id, ...withoutId } = body;
    const request = value === undefined ? withoutId : { ...withoutId, external_id: value };
    const error = await mr.cases.create(request, { reconcile: true }).catch((e) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues.map((i: { path: string }) => i.path)).toEqual(["external_id"]);
    expect(error.message).toContain("external_id");
    expect(error.message).toContain("not sent");
    expect(calls()).toEqual([]);
  });

  it("is refused the same on retrieval requests, and looks them up on their own list", async () => {
    const request = {
      case_id: "case_1",
      facility_id: "fac_mercy_general",
      requestor_id: "rqtr_1",
      auth_form: "upl_1",
    };
    const refused = client([]);
    await expect(
      refused.mr.retrievalRequests.create(request, { reconcile: true }),
    ).rejects.toBeInstanceOf(ValidationError);
    expect(refused.calls()).toEqual([]);

    const found = { id: "ret_1", external_id: "rr-7" };
    const { mr, calls } = client([down(), page(found)]);
    await expect(
      mr.retrievalRequests.create({ ...request, external_id: "rr-7" }, { reconcile: true }),
    ).resolves.toEqual(found);
    expect(calls()).toEqual([
      "POST /v2/retrieval-requests",
      "GET /v2/retrieval-requests?limit=1&external_id=rr-7",
    ]);
  });
});

describe("without reconcile", () => {
  it("a create that may have acted is thrown as is, with nothing looked up", async () => {
    const { mr, calls } = client([down()]);
    const error = await mr.cases.create(body).catch((e) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.mayHaveSucceeded).toBe(true);
    expect(calls()).toEqual(["POST /v2/cases"]);
  });
});
