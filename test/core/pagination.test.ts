import { describe, expect, it } from "vitest";
import { MedRecords, TO_ARRAY_LIMIT_MAX } from "../../src/index.js";
import { API_KEY, BASE_URL, json, sampleCase, scriptedFetch } from "../helpers/scripted-fetch.js";

/** Three pages of two cases each (ids case_1 to case_6), each answer with its own request id. */
function threePages() {
  const page = (n: number) => ({
    results: [2 * n - 1, 2 * n].map((i) => ({ ...sampleCase, id: `case_${i}` })),
    next: n < 3 ? `${BASE_URL}/v2/cases?cursor=c${n + 1}` : null,
    previous: n > 1 ? `${BASE_URL}/v2/cases?cursor=p${n - 1}` : null,
  });
  const { fetch, seen } = scriptedFetch(
    [1, 2, 3].map((n) => json(200, page(n), { "x-request-id": `req_page_${n}` })),
  );
  const mr = new MedRecords({ apiKey: API_KEY, baseUrl: BASE_URL, fetch });
  return { mr, seen };
}

const ids = (items: { id: string }[]) => items.map((c) => c.id);

describe("list(...).toArray({ limit })", () => {
  it("stops at the page that reaches the limit: 2 items come from one page, 3 from two", async () => {
    const two = threePages();
    expect(ids(await two.mr.cases.list().toArray({ limit: 2 }))).toEqual(["case_1", "case_2"]);
    expect(two.seen).toHaveLength(1);

    const three = threePages();
    expect(ids(await three.mr.cases.list().toArray({ limit: 3 }))).toEqual([
      "case_1",
      "case_2",
      "case_3",
    ]);
    expect(three.seen).toHaveLength(2);
  });

  it("collects every item when the list is shorter than the limit", async () => {
    const { mr, seen } = threePages();
    expect(ids(await mr.cases.list().toArray({ limit: 7 }))).toHaveLength(6);
    expect(seen).toHaveLength(3);
  });

  it("refuses a missing limit, naming the option, before any request", async () => {
    const { mr, seen } = threePages();
    // @ts-expect-error: `limit` is required
    await expect(mr.cases.list().toArray({})).rejects.toThrow(/needs a `limit`/);
    // @ts-expect-error: the options are required
    await expect(mr.cases.list().toArray()).rejects.toBeInstanceOf(TypeError);
    expect(seen).toHaveLength(0);
  });

  it(`takes 1 to ${TO_ARRAY_LIMIT_MAX} items, whole numbers only`, async () => {
    const { mr, seen } = threePages();
    for (const limit of [0, -1, 1.5, Number.NaN, TO_ARRAY_LIMIT_MAX + 1]) {
      await expect(mr.cases.list().toArray({ limit })).rejects.toBeInstanceOf(RangeError);
    }
    expect(seen).toHaveLength(0);
    await expect(mr.cases.list().toArray({ limit: 1 })).resolves.toHaveLength(1);
    // The script answers in order: this walk gets the two pages left, 4 items.
    await expect(mr.cases.list().toArray({ limit: TO_ARRAY_LIMIT_MAX })).resolves.toHaveLength(4);
  });
});

describe("list(...).withResponse() and Page.requestId", () => {
  it("gives the first page with its raw response and request id", async () => {
    const { mr, seen } = threePages();
    const { data, response, requestId } = await mr.cases.list().withResponse();
    expect(ids(data.results)).toEqual(["case_1", "case_2"]);
    expect(response.status).toBe(200);
    expect(requestId).toBe("req_page_1");
    expect(data.requestId).toBe("req_page_1");
    expect(seen).toHaveLength(1);
  });

  it("every page carries the request id of its own response", async () => {
    const { mr } = threePages();
    const requestIds: (string | undefined)[] = [];
    for await (const page of mr.cases.list().pages()) requestIds.push(page.requestId);
    expect(requestIds).toEqual(["req_page_1", "req_page_2", "req_page_3"]);
  });
});
