/**
 * The reference server's lists kept in key order as they change
 * (src/mock/model/list-index.ts): the index against a sort of everything
 * after any run of changes, and the lists through the API after the changes
 * that move an item between filters (a PATCH of external_id or archived, a
 * status change, a public change for updated_since), a snapshot restored,
 * a webhook deleted with its deliveries.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ListIndex } from "../../src/mock/model/list-index.js";
import type { Case } from "../../src/schemas/cases.js";
import type { Document } from "../../src/schemas/documents.js";
import type { RetrievalRequest } from "../../src/schemas/retrieval-requests.js";
import { createCase, setup, uploadDocument } from "./helpers.js";

interface Item {
  id: number;
  key: number;
  color: string;
}

const op = fc.oneof(
  fc.record({ kind: fc.constant("add" as const), key: fc.integer({ min: 0, max: 50 }) }),
  fc.record({
    kind: fc.constant("change" as const),
    pick: fc.nat(),
    key: fc.option(fc.integer({ min: 0, max: 50 }), { nil: undefined }),
    color: fc.constantFrom("red", "blue", "none"),
  }),
  fc.record({ kind: fc.constant("delete" as const), pick: fc.nat() }),
);

describe("ListIndex", () => {
  it("lists, and lists each bucket, as sorting everything would, after any changes", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        let nextId = 0;
        const live: Item[] = [];
        // Keys unique, as the index requires: a key in use is bumped past the greatest.
        const freeKey = (key: number) =>
          live.some((item) => item.key === key) ? Math.max(...live.map((i) => i.key)) + 1 : key;
        const options = {
          keyOf: (item: Item) => item.key,
          bucketsOf: (item: Item) => (item.color === "none" ? [] : [`color:${item.color}`]),
        };
        const index = new ListIndex<Item>(options, []);
        for (const step of ops) {
          if (step.kind === "add") {
            const item = { id: nextId++, key: freeKey(step.key), color: "red" };
            live.push(item);
            index.add(item);
          } else if (live.length > 0) {
            const item = live[step.pick % live.length] as Item;
            if (step.kind === "delete") {
              live.splice(live.indexOf(item), 1);
              index.delete(item);
            } else {
              if (step.key !== undefined) item.key = freeKey(step.key);
              item.color = step.color;
              index.changed(item);
            }
          }
          const sorted = [...live].sort((a, b) => a.key - b.key);
          expect(index.list()).toEqual(sorted);
          for (const color of ["red", "blue"]) {
            expect(index.list(`color:${color}`)).toEqual(sorted.filter((i) => i.color === color));
          }
          // A rebuild from the items agrees with the index kept up to date.
          expect(new ListIndex(options, live).list("color:blue")).toEqual(index.list("color:blue"));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("lists after changes that move items between filters", () => {
  it("cases by external_id follow a PATCH, and survive a restore", async () => {
    const { mock, api } = setup();
    const a = await createCase(api, { external_id: "x" });
    const b = await createCase(api, { external_id: "y" });
    const c = await createCase(api, { external_id: "x" });
    const ids = async (query: string) =>
      (await api.get<{ results: Case[] }>(`/v2/cases?${query}`)).body.results.map((r) => r.id);
    expect(await ids("external_id=x")).toEqual([c.id, a.id]);
    await api.patch(`/v2/cases/${a.id}`, { external_id: "y" });
    expect(await ids("external_id=x")).toEqual([c.id]);
    expect(await ids("external_id=y")).toEqual([b.id, a.id]);
    const saved = mock.snapshot();
    await api.patch(`/v2/cases/${c.id}`, { external_id: "y" });
    expect(await ids("external_id=y")).toEqual([c.id, b.id, a.id]);
    mock.restore(saved);
    expect(await ids("external_id=y")).toEqual([b.id, a.id]);
    expect(await ids("external_id=x")).toEqual([c.id]);
    const d = await createCase(api, { external_id: "x" });
    expect(await ids("external_id=x")).toEqual([d.id, c.id]);
    expect(await ids("limit=2")).toEqual([d.id, c.id]);
  });

  it("documents by case and archived, alone and together, follow a PATCH", async () => {
    const { mock, api } = setup();
    const one = await createCase(api);
    const two = await createCase(api);
    const docs: Document[] = [];
    for (const c of [one, two, one, two]) docs.push(await uploadDocument(mock, api, c.id));
    const [d1, d2, d3, d4] = docs as [Document, Document, Document, Document];
    await api.patch(`/v2/documents/${d3.id}`, { archived: true });
    await api.patch(`/v2/documents/${d2.id}`, { archived: true });
    const ids = async (query: string) =>
      (await api.get<{ results: Document[] }>(`/v2/documents?${query}`)).body.results.map(
        (r) => r.id,
      );
    expect(await ids("")).toEqual([d4.id, d3.id, d2.id, d1.id]);
    expect(await ids("archived=true")).toEqual([d3.id, d2.id]);
    expect(await ids(`case_id=${one.id}`)).toEqual([d3.id, d1.id]);
    expect(await ids(`case_id=${one.id}&archived=false`)).toEqual([d1.id]);
    expect(await ids(`case_id=${two.id}&archived=true`)).toEqual([d2.id]);
    await api.patch(`/v2/documents/${d3.id}`, { archived: false });
    expect(await ids(`case_id=${one.id}&archived=false`)).toEqual([d3.id, d1.id]);
    expect(await ids("archived=true")).toEqual([d2.id]);
    // Paged with a cursor inside a bucket.
    const first = await api.get<{ results: Document[]; next: string }>(
      `/v2/documents?archived=false&limit=2`,
    );
    expect(first.body.results.map((r) => r.id)).toEqual([d4.id, d3.id]);
    const rest = await api.get<{ results: Document[] }>(first.body.next);
    expect(rest.body.results.map((r) => r.id)).toEqual([d1.id]);
  });

  it("retrieval requests by status (and case) follow status changes; updated_since lists the oldest change first", async () => {
    const { mock, api } = setup();
    const seeded = [0, 1, 2, 3].map(() => mock.seed.retrievalRequest({ status: "pending" }));
    const [r0, r1, r2, r3] = seeded as [
      RetrievalRequest,
      RetrievalRequest,
      RetrievalRequest,
      RetrievalRequest,
    ];
    // Seeded in one instant, each a millisecond after the last (public_updated_at never repeats).
    const since = r3.public_updated_at;
    mock.clock.advance("1s");
    mock.retrievalRequests.setStatus(r2.id, { status: "processing", stage: "provider_processing" });
    mock.clock.advance("1s");
    mock.retrievalRequests.setStatus(r0.id, { status: "processing", stage: "provider_processing" });
    const ids = async (query: string) =>
      (
        await api.get<{ results: RetrievalRequest[] }>(`/v2/retrieval-requests?${query}`)
      ).body.results.map((r) => r.id);
    expect(await ids("status=processing")).toEqual([r2.id, r0.id]);
    expect(await ids("status=pending")).toEqual([r3.id, r1.id]);
    expect(await ids(`status=processing&case_id=${r0.case_id}`)).toEqual([r0.id]);
    expect(await ids(`updated_since=${since}`)).toEqual([r2.id, r0.id]);
    mock.clock.advance("1s");
    mock.retrievalRequests.setStatus(r2.id, { status: "completed", stage: "completed" });
    expect(await ids(`updated_since=${since}`)).toEqual([r0.id, r2.id]);
    expect(await ids(`updated_since=${since}&status=completed`)).toEqual([r2.id]);
    expect(await ids("status=processing")).toEqual([r0.id]);
  });
});
