/**
 * Issue 30, the reference server's lists at scale: the first page of a list
 * (`limit=25`, the default) on a mock holding 100 000 objects, against the
 * same page on one holding 1 000, in the same run. Lists are kept in key
 * order as they change (src/mock/model/list-index.ts), so a page is a binary
 * search and the page: its cost must not grow with what the mock holds
 * (target: within 1.5x, a ratio >= 0.67). Before, every page sorted
 * everything: 1.7 ms at 1 000 cases, 3.5 ms at 20 000.
 *
 * Both mocks are filled with `mock.seed` (cases; retrieval requests, each
 * on a case of its own, half of them moved on to `processing`), and each
 * page is asked through `mock.fetch` in this process, the cheapest path a
 * test suite has: what is left is the server's own work per request.
 * Documents, requestors and webhook deliveries are listed by the same index
 * (their filters by its buckets); `mock.seed` has no way to make 100 000 of
 * them without a request each, so they are not rows here.
 */
import { createMockService, type MockService } from "medrecords/mock";
import { compare } from "../lib/measure.ts";
import type { BenchRow, Suite } from "../lib/types.ts";

const SMALL = 1_000;

interface Filled {
  mock: MockService;
  key: string;
  /** An external_id held by one case, and the updated_since that lists the last 25 changes. */
  externalId: string;
  updatedSince: string;
}

function fill(count: number): Filled {
  const mock = createMockService({ now: "2026-03-01T09:00:00Z", delivery: "inbox" });
  const key = mock.apiKeys.create();
  for (let i = 0; i < count; i++) mock.seed.case({ external_id: `case-${i}` });
  const requests = [];
  for (let i = 0; i < count; i++) requests.push(mock.seed.retrievalRequest({ status: "pending" }));
  mock.clock.advance("1h");
  for (let i = 0; i < count; i += 2) {
    mock.retrievalRequests.setStatus(requests[i]!.id, {
      status: "processing",
      stage: "provider_processing",
    });
  }
  const changed = requests.filter((_, i) => i % 2 === 0);
  return {
    mock,
    key,
    externalId: `case-${Math.floor(count / 2)}`,
    updatedSince: changed[changed.length - 26]!.public_updated_at,
  };
}

export const run: Suite = async ({ quick }) => {
  const large = quick ? 20_000 : 100_000;
  const small = fill(SMALL);
  const big = fill(large);
  const group = "Reference server lists (mock.fetch, in process)";
  const pages: { name: string; path: (f: Filled) => string; results: number }[] = [
    { name: "cases.list, first page", path: () => "/v2/cases", results: 25 },
    {
      name: "cases.list({ external_id })",
      path: (f) => `/v2/cases?external_id=${f.externalId}`,
      results: 1,
    },
    {
      name: "retrievalRequests.list, first page",
      path: () => "/v2/retrieval-requests",
      results: 25,
    },
    {
      name: "retrievalRequests.list({ status })",
      path: () => "/v2/retrieval-requests?status=processing",
      results: 25,
    },
    {
      name: "retrievalRequests.list({ updated_since })",
      path: (f) => `/v2/retrieval-requests?updated_since=${encodeURIComponent(f.updatedSince)}`,
      results: 25,
    },
  ];
  const rows: BenchRow[] = [];
  for (const page of pages) {
    const ask = (f: Filled) => {
      const url = `${f.mock.baseUrl}${page.path(f)}`;
      const headers = { authorization: `Bearer ${f.key}` };
      return async () => {
        const response = await f.mock.fetch(url, { headers });
        const body = (await response.json()) as { results: unknown[] };
        if (body.results.length !== page.results) {
          throw new Error(`${page.name}: ${body.results.length} results, expected ${page.results}`);
        }
        return body;
      };
    };
    const comparison = await compare(
      { large: ask(big), small: ask(small) },
      { rounds: quick ? 3 : 7, batchMs: 100 },
    );
    const largeLabel = large.toLocaleString("en-US").replace(/,/g, " ");
    rows.push({
      group,
      name: `${page.name}: ${largeLabel} vs 1 000 objects`,
      subject: {
        label: `${largeLabel} cases and retrieval requests`,
        value: comparison.results.large!.perSecond,
        unit: "pages/s",
      },
      baseline: {
        label: "1 000 of each",
        value: comparison.results.small!.perSecond,
        unit: "pages/s",
      },
      ratio: comparison.ratio("large", "small"),
      target: 0.67,
      note: `Per-round ratios: ${comparison
        .ratios("large", "small")
        .map((r) => r.toFixed(2))
        .join(", ")}.`,
    });
  }
  return rows;
};
