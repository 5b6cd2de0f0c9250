import { describe, expect, it } from "vitest";
import {
  createRequestJournal,
  MOCK_REQUEST_JOURNAL_LIMIT,
} from "../../src/mock/runtime/request-journal.js";
import { REQUEST_ID, START, setup } from "./helpers.js";

describe("mock.requests", () => {
  it("records each API request with its real path, template, status and request id, and nothing else", async () => {
    const { mock, api } = setup();
    const c = mock.seed.case();
    const read = await api.get(`/v2/cases/${c.id}`);
    await api.get("/v2/retrieval-requests?case_id=MRN-PRIVATE");
    await api.get("/v2/cases", { key: null });
    await api.get("/v2/nowhere");
    expect(mock.requests).toEqual([
      {
        method: "GET",
        path: `/v2/cases/${c.id}`,
        pathTemplate: "/v2/cases/{case_id}",
        status: 200,
        requestId: read.headers.get("x-request-id"),
        at: START,
      },
      {
        method: "GET",
        path: "/v2/retrieval-requests",
        pathTemplate: "/v2/retrieval-requests",
        status: 200,
        requestId: expect.stringMatching(REQUEST_ID),
        at: START,
      },
      {
        method: "GET",
        path: "/v2/cases",
        pathTemplate: "/v2/cases",
        status: 401,
        requestId: expect.stringMatching(REQUEST_ID),
        at: START,
      },
      {
        method: "GET",
        path: "/v2/nowhere",
        pathTemplate: null,
        status: 404,
        requestId: expect.stringMatching(REQUEST_ID),
        at: START,
      },
    ]);
    expect(JSON.stringify(mock.requests)).not.toContain("MRN-PRIVATE");
  });

  it("does not record the presigned storage origin", async () => {
    const { mock } = setup();
    await mock.fetch(`${mock.storageUrl}/uploads/unknown`, { method: "PUT", body: "x" });
    expect(mock.requests).toHaveLength(0);
  });

  it("records a request dropped by mock.faults with status 0", async () => {
    const { mock, api } = setup();
    mock.faults.set({ dropRate: 1 });
    await expect(api.get("/v2/cases")).rejects.toThrow(TypeError);
    expect(mock.requests.map((r) => r.status)).toEqual([0]);
  });

  it("forgets everything on clear(), and survives reset and restore untouched", async () => {
    const { mock, api } = setup();
    const snapshot = mock.snapshot();
    await api.get("/v2/cases");
    mock.reset();
    mock.restore(snapshot);
    expect(mock.requests).toHaveLength(1);
    mock.requests.clear();
    expect(mock.requests).toHaveLength(0);
  });

  it(`keeps the last ${MOCK_REQUEST_JOURNAL_LIMIT} requests, dropping the oldest`, () => {
    const writer = createRequestJournal();
    const entry = (n: number) => ({
      method: "GET",
      path: `/v2/cases/${n}`,
      pathTemplate: null,
      status: 200,
      requestId: `req_${n}`,
      at: START,
    });
    for (let n = 1; n <= MOCK_REQUEST_JOURNAL_LIMIT; n++) writer.record(entry(n));
    expect(writer.journal).toHaveLength(MOCK_REQUEST_JOURNAL_LIMIT);
    expect(writer.journal[0]?.requestId).toBe("req_1");
    writer.record(entry(MOCK_REQUEST_JOURNAL_LIMIT + 1));
    expect(writer.journal).toHaveLength(MOCK_REQUEST_JOURNAL_LIMIT);
    expect(writer.journal[0]?.requestId).toBe("req_2");
  });
});
