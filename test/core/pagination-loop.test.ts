/**
 * A list whose links lead back to a page already fetched in the same walk
 * (a `next` link that repeats itself, a cycle, a cursor met again) stops
 * with a PaginationLoopError after a bounded number of requests, in the
 * client's walks (`for await`, `pages()`, `toArray()`) and in the catch-up
 * poller's runs; it used to loop forever (2 000 requests a second, 0 items).
 */
import { describe, expect, it } from "vitest";
import {
  MedRecords,
  MedRecordsError,
  memoryCheckpoint,
  PaginationLoopError,
} from "../../src/index.js";
import { createMockService } from "../../src/mock/index.js";
import { API_KEY, BASE_URL, json, sampleCase, scriptedFetch } from "../helpers/scripted-fetch.js";
import { emitMany, START } from "../poller/helpers.js";

/** Pages answered from `links`: page n has case_n and `next` = links[n] (a cursor, or null). */
function casePages(links: Array<string | null>, startCursor?: string) {
  const byCursor = new Map<string | null, number>();
  links.forEach((_, n) => {
    byCursor.set(n === 0 ? (startCursor ?? null) : `c${n}`, n);
  });
  let requests = 0;
  const { fetch } = scriptedFetch([], (request) => {
    requests += 1;
    // A loop the client does not notice runs until this bound: the test fails instead of hanging.
    if (requests > 50) throw new Error("more than 50 requests: the walk loops");
    const cursor = new URL(request.url).searchParams.get("cursor");
    const n = byCursor.get(cursor) ?? 0;
    const next = links[n];
    return json(200, {
      results: [{ ...sampleCase, id: `case_${n}` }],
      next: next == null ? null : `${BASE_URL}/v2/cases?cursor=${next}`,
      previous: null,
    });
  });
  const mr = new MedRecords({ apiKey: API_KEY, baseUrl: BASE_URL, fetch });
  return { mr, requests: () => requests };
}

async function collect(iterable: AsyncIterable<{ id: string }>): Promise<string[]> {
  const ids: string[] = [];
  for await (const item of iterable) ids.push(item.id);
  return ids;
}

describe("client list walks", () => {
  it("a `next` link that repeats itself stops the walk after the second request", async () => {
    // Page 0 links to c1; page 1 links to c1 again.
    const { mr, requests } = casePages(["c1", "c1"]);
    const error = await collect(mr.cases.list()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaginationLoopError);
    expect(error).toBeInstanceOf(MedRecordsError);
    expect((error as PaginationLoopError).direction).toBe("next");
    expect((error as Error).message).not.toContain("c1");
    expect(requests()).toBe(2);
  });

  it("a cycle (0 → 1 → 2 → 1) stops before fetching page 1 again", async () => {
    const { mr, requests } = casePages(["c1", "c2", "c1"]);
    await expect(mr.cases.list().toArray({ limit: 100 })).rejects.toThrow(PaginationLoopError);
    expect(requests()).toBe(3);
  });

  it("a `next` cursor equal to the one the walk started from is a repeat", async () => {
    const { mr, requests } = casePages(["start", null], "start");
    const error = await collect(mr.cases.list({ cursor: "start" })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaginationLoopError);
    expect(requests()).toBe(1);
  });

  it("a list without repeats is walked to its end", async () => {
    const { mr } = casePages(["c1", "c2", null]);
    expect(await collect(mr.cases.list())).toEqual(["case_0", "case_1", "case_2"]);
  });
});

describe("the catch-up poller", () => {
  it("a `next` link of the event log that repeats itself fails the run with a PaginationLoopError", async () => {
    const mock = createMockService({ now: START, delivery: "inbox" });
    // One millisecond holding more than a page: the poller walks it with `next`.
    emitMany(mock, 6, 1_000);
    let requests = 0;
    const fetch: typeof globalThis.fetch = async (input, init) => {
      requests += 1;
      if (requests > 50) throw new Error("more than 50 requests: the run loops");
      const url = new Request(input, init).url;
      const response = await mock.fetch(input, init);
      if (!url.includes("/v2/events")) return response;
      const page = (await response.json()) as { next: string | null };
      // Every page after the first points at itself.
      if (url.includes("cursor=")) page.next = url;
      return Response.json(page, { status: response.status, headers: response.headers });
    };
    const mr = new MedRecords({
      apiKey: mock.apiKeys.create(),
      baseUrl: mock.baseUrl,
      fetch,
      maxRetries: 0,
    });
    const seen: string[] = [];
    const poller = mr.events.catchUp({
      checkpoint: memoryCheckpoint({ created_at: START, ids_at_created_at: [] }),
      pageSize: 2,
      onEvent: (event) => void seen.push(event.id),
    });
    await expect(poller.runOnce()).rejects.toThrow(PaginationLoopError);
    // The page from the checkpoint, the millisecond's window, its `next` (which names itself).
    expect(requests).toBe(3);
    expect(seen).toEqual([]);
  });
});
