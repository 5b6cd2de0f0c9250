/**
 * `paginateSorted` (the event log's pages: a binary search into a sorted
 * index) against `paginate` (sort the filtered list, then cut): the same
 * results and the same cursors for any list, filter, range, limit and cursor.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  encodeCursor,
  type Page,
  type PageRequest,
  paginate,
  paginateSorted,
} from "../../src/mock/model/paginate.js";

interface Item {
  ms: number;
  seq: number;
  shown: boolean;
}

const keyOf = (item: Item): readonly number[] => [item.ms, item.seq];

/** Items with unique sequences, a few per millisecond, sorted by [ms, seq]. */
const sortedItems = fc
  .array(fc.record({ gap: fc.integer({ min: 0, max: 2 }), shown: fc.boolean() }), {
    maxLength: 40,
  })
  .map((raw) => {
    let ms = 1_000;
    return raw.map(({ gap, shown }, i) => {
      ms += gap;
      return { ms, seq: i + 1, shown };
    });
  })
  .chain((items) => fc.shuffledSubarray(items, { minLength: items.length }))
  .map((items) => [...items].sort((a, b) => a.ms - b.ms || a.seq - b.seq));

const cursorArb = fc.option(
  fc.record({
    direction: fc.constantFrom("next" as const, "previous" as const),
    key: fc.tuple(fc.integer({ min: 998, max: 1_090 }), fc.integer({ min: -1, max: 45 })),
  }),
  { nil: undefined },
);

function both(
  items: Item[],
  request: PageRequest,
  range: { from: number; to: number },
): [Page<Item>, Page<Item>] {
  const matches = (item: Item) => item.shown;
  const reference = paginate(items.slice(range.from, range.to).filter(matches), keyOf, request, 2);
  const sorted = paginateSorted(items, keyOf, matches, request, 2, range);
  return [sorted, reference];
}

describe("paginateSorted", () => {
  it("gives the page, next and previous cursors that paginate gives", () => {
    fc.assert(
      fc.property(
        sortedItems,
        fc.integer({ min: 1, max: 6 }),
        cursorArb,
        fc.nat(),
        fc.nat(),
        (items, limit, cursor, a, b) => {
          const ends = [a % (items.length + 1), b % (items.length + 1)].sort((x, y) => x - y);
          const range = { from: ends[0] as number, to: ends[1] as number };
          const request = {
            limit,
            cursor: cursor === undefined ? undefined : encodeCursor(cursor),
          };
          const [sorted, reference] = both(items, request, range);
          expect(sorted).toEqual(reference);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it("walks forward with next and back with previous to the same pages as paginate", () => {
    fc.assert(
      fc.property(sortedItems, fc.integer({ min: 1, max: 5 }), (items, limit) => {
        const range = { from: 0, to: items.length };
        let request: PageRequest = { limit };
        const pages: Page<Item>[] = [];
        for (;;) {
          const [sorted, reference] = both(items, request, range);
          expect(sorted).toEqual(reference);
          pages.push(sorted);
          if (sorted.nextCursor === null) break;
          request = { limit, cursor: sorted.nextCursor };
        }
        for (let page = pages.at(-1); page?.previousCursor; ) {
          const [sorted, reference] = both(items, { limit, cursor: page.previousCursor }, range);
          expect(sorted).toEqual(reference);
          page = sorted;
        }
        expect(pages.flatMap((p) => p.results)).toEqual(
          items.filter((item) => item.shown).reverse(),
        );
      }),
      { numRuns: 500 },
    );
  });

  it("refuses a cursor of another arity, even over an empty range", () => {
    const cursor = encodeCursor({ direction: "next", key: [1] });
    expect(() =>
      paginateSorted<Item>([], keyOf, () => true, { limit: 1, cursor }, 2, { from: 0, to: 0 }),
    ).toThrow(/Invalid cursor/);
  });
});
