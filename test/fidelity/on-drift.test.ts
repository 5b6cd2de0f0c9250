import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ObserverLoader } from "../../src/core/exchange-observer.js";
import { Core } from "../../src/core/request.js";
import { type Drift, MedRecords, NotFoundError } from "../../src/index.js";
import { type MockServer, startMockServer } from "../../src/mock/index.js";
import { DRIFTS, type DriftingProxy, startDriftingProxy } from "../helpers/drifting-proxy.js";

let mock: MockServer;
let proxy: DriftingProxy;
let apiKey: string;

beforeAll(async () => {
  mock = await startMockServer({ now: "2026-06-15T12:00:00.000Z" });
  proxy = await startDriftingProxy(mock.url);
  apiKey = mock.apiKeys.create();
});

afterAll(async () => {
  await proxy.close();
  await mock.close();
});

const CASE = { title: "Doe v. Acme Logistics", client_name: "Jane Doe" };

/** Every call the drifting proxy bends, through a client reporting to `drifts`. */
async function session(baseUrl: string, drifts: Drift[]) {
  const mr = new MedRecords({ apiKey, baseUrl, maxRetries: 0, onDrift: (d) => drifts.push(d) });
  const created = await mr.cases.create(CASE);
  const read = await mr.cases.retrieve(created.id);
  const page = await mr.cases.list({ limit: 100 });
  const missing = await mr.cases.retrieve("case_does_not_exist").catch((error: unknown) => error);
  return { created, read, page, missing };
}

const pick = ({ operation, pointer, kind }: Drift) => ({ operation, pointer, kind });

describe("onDrift", () => {
  it("reports each drift of the drifted service with its pointer, and every call still returns", async () => {
    const drifts: Drift[] = [];
    const { created, read, page, missing } = await session(proxy.url, drifts);
    expect(drifts.map(pick)).toEqual(
      expect.arrayContaining(Object.values(DRIFTS).map((d) => ({ ...d }))),
    );
    expect(drifts).toHaveLength(Object.keys(DRIFTS).length);
    // Tolerant reader: the answers are returned as they came.
    expect(created.title).toBe(CASE.title);
    expect(read).toMatchObject({ id: created.id, case_category: "maritime", risk_score: 3 });
    expect(page.results.length).toBeGreaterThan(0);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect((missing as NotFoundError).code).toBe("case_gone");
  });

  it("says what the spec expects and the type it got, never a value", async () => {
    const drifts: Drift[] = [];
    await session(proxy.url, drifts);
    const byPointer = (operation: string, pointer: string) =>
      drifts.find((d) => d.operation === operation && d.pointer === pointer);
    expect(byPointer("getCase", "/case_category")).toMatchObject({
      status: 200,
      expected: expect.stringContaining("personal_injury"),
      got: "string",
    });
    expect(byPointer("getCase", "/case_number")).toMatchObject({
      expected: "string",
      got: "missing",
    });
    expect(byPointer("getCase", "/updated_at")).toMatchObject({
      expected: "string",
      got: "number",
    });
    expect(byPointer("getCase", "/risk_score")).toMatchObject({
      expected: "absent",
      got: "number",
    });
    expect(byPointer("getCase", "/error/code")).toMatchObject({
      status: 404,
      expected: "one of not_found",
      got: "string",
    });
    expect(byPointer("createCase", "")).toMatchObject({
      status: 200,
      expected: expect.stringMatching(/^201, 400, 401, 403, 429, 413, 415, 5xx$/),
      got: "200",
    });
    for (const drift of drifts) {
      expect(drift.request_id).toMatch(/\S/);
      const text = JSON.stringify(drift);
      for (const value of ["maritime", "case_gone", CASE.title, CASE.client_name, "1767225600"]) {
        expect(text).not.toContain(value);
      }
    }
  });

  it("reports nothing against the reference server itself", async () => {
    const drifts: Drift[] = [];
    await session(mock.url, drifts);
    expect(drifts).toEqual([]);
  });

  it("returns the call when onDrift throws", async () => {
    const warnings: string[] = [];
    const mr = new MedRecords({
      apiKey,
      baseUrl: proxy.url,
      maxRetries: 0,
      logger: { warn: (message) => warnings.push(message) },
      onDrift: () => {
        throw new Error("the callback failed");
      },
    });
    const created = await mr.cases.create(CASE);
    expect(created.title).toBe(CASE.title);
    expect(warnings).toEqual([expect.stringContaining("onDrift threw (Error) for createCase")]);
  });

  it("loads nothing when neither onDrift nor record is set", async () => {
    const contexts: unknown[] = [];
    const loader: ObserverLoader = async (context) => {
      contexts.push(context);
      return { observe: async () => {} };
    };
    new Core({ apiKey, baseUrl: mock.url }, loader);
    expect(contexts).toHaveLength(0);
    new Core({ apiKey, baseUrl: mock.url, onDrift: () => {} }, loader);
    expect(contexts).toHaveLength(1);
  });
});
