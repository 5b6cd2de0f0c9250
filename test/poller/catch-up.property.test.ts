/**
 * The one-pass catch-up (time windows, src/poller/time-windows.ts) against
 * logs of clustered timestamps: bursts of up to several pages at one
 * millisecond, quiet stretches from a millisecond to days, a run stopped by a
 * failing event and resumed, events added at the checkpoint's own instant.
 * Every event comes exactly once, oldest first, with one page in memory.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { memoryCheckpoint } from "../../src/index.js";
import { createCatchUpPoller, type EventLogReader } from "../../src/poller/catch-up.js";
import { EVENT_RETENTION_MS } from "../../src/schemas/event-list.js";
import { statusChanged } from "../helpers/events.js";
import { idsOf, logOldestFirst, setup, statsOf } from "./helpers.js";

/** A burst of events at one instant after a quiet stretch. */
const cluster = fc.record({
  gapMs: fc.oneof(
    fc.constantFrom(0, 1, 2),
    fc.integer({ min: 3, max: 5_000 }),
    fc.integer({ min: 3_600_000, max: 2 * 86_400_000 }),
  ),
  size: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 4, max: 30 })),
});

const scenario = fc.record({
  /** Quiet time before the first event (at most 5 days, 12 gaps of at most 2: all inside the retention). */
  leadMs: fc.integer({ min: 0, max: 5 * 86_400_000 }),
  clusters: fc.array(cluster, { minLength: 1, maxLength: 12 }),
  pageSize: fc.integer({ min: 1, max: 12 }),
  /** Whether the first run fails on one event (by its index into the log) and a second resumes. */
  failAt: fc.option(fc.nat(), { nil: undefined }),
  /** Events added at the last event's instant after the first run. */
  more: fc.integer({ min: 0, max: 15 }),
});

describe("one-pass catch-up over clustered timestamps", { timeout: 120_000 }, () => {
  it("hands every event over exactly once, oldest first, one page in memory", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ leadMs, clusters, pageSize, failAt, more }) => {
        const start = Date.parse("2026-03-01T10:00:00.000Z");
        const { mock, mr, requests } = setup({ now: new Date(start).toISOString() });
        mock.clock.advance(leadMs);
        let n = 0;
        for (const { gapMs, size } of clusters) {
          mock.clock.advance(gapMs);
          for (let i = 0; i < size; i++) statusChanged(mock, `rr_${n++}`);
        }
        expect(mock.clock.now().getTime() - start).toBeLessThan(EVENT_RETENTION_MS);
        const log = idsOf(logOldestFirst(mock));
        const failing = failAt === undefined ? undefined : log[failAt % log.length];

        const checkpoint = memoryCheckpoint();
        const seen: string[] = [];
        let fail = failing;
        let eventsHeldMax = 0;
        const poller = mr.events.catchUp({
          checkpoint,
          pageSize,
          onEvent: (event) => {
            eventsHeldMax = Math.max(eventsHeldMax, statsOf(poller).eventsHeld);
            if (event.id === fail) throw new Error("not now");
            seen.push(event.id);
          },
        });
        if (fail !== undefined) {
          await expect(poller.runOnce()).rejects.toThrow("not now");
          fail = undefined;
        }
        const first = await poller.runOnce();
        expect(seen).toEqual(log);
        expect(first.checkpoint?.created_at).toBe(logOldestFirst(mock).at(-1)?.created_at);
        expect(statsOf(poller).maxEventsHeld).toBeLessThanOrEqual(pageSize);
        expect(eventsHeldMax).toBeLessThanOrEqual(pageSize);

        // More at the very instant of the checkpoint, then a quiet run.
        const added = Array.from({ length: more }, (_, i) => statusChanged(mock, `rr_more_${i}`));
        seen.length = 0;
        const second = await poller.runOnce();
        expect(seen).toEqual(idsOf(added));
        expect(second.processed).toBe(more);
        const before = requests();
        expect(await poller.runOnce()).toMatchObject({ processed: 0, duplicates: 0 });
        // Caught up: one request (the page from the checkpoint) unless that page is full.
        if (log.length + more <= pageSize) expect(requests() - before).toBe(1);
      }),
      { numRuns: 30 },
    );
  });

  it("walks a backlog from a checkpoint in about one request per page of events", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 2_000, max: 4_000 }),
        async (perMs, count) => {
          const { mock, mr, requests } = setup();
          const checkpoint = memoryCheckpoint({
            created_at: mock.clock.now().toISOString(),
            ids_at_created_at: [],
          });
          mock.clock.advance(1);
          for (let i = 0; i < count; i++) {
            statusChanged(mock, `rr_${i}`);
            if ((i + 1) % perMs === 0) mock.clock.advance(1);
          }
          const seen: string[] = [];
          await mr.events
            .catchUp({ checkpoint, pageSize: 100, onEvent: (e) => void seen.push(e.id) })
            .runOnce();
          expect(seen).toEqual(idsOf(logOldestFirst(mock)));
          // Two-pass walking made 2 per page; windows aim at 90 to 98 events a page.
          expect(requests()).toBeLessThanOrEqual(Math.ceil((count / 100) * 1.2) + 3);
        },
      ),
      { numRuns: 4 },
    );
  });

  it("without the service's time, a machine clock years behind it still reaches every event", async () => {
    const { mock, mr } = setup({ now: "2099-01-01T00:00:00.000Z" });
    for (let i = 0; i < 300; i++) {
      statusChanged(mock, `rr_${i}`);
      if (i % 3 === 2) mock.clock.advance(1);
    }
    // The poller's reader without the Date header: "now" is this machine's, ~73 years early.
    const reader: EventLogReader = {
      list: async (query) => {
        const { results, next, previous } = await mr.events.list(query);
        return { results, next, previous, serverTimeMs: undefined };
      },
      follow: async () => {
        throw new Error("no window here holds more than a page at one instant");
      },
    };
    const seen: string[] = [];
    const poller = createCatchUpPoller(reader, {
      pageSize: 10,
      onEvent: (e) => void seen.push(e.id),
    });
    await poller.runOnce();
    expect(seen).toEqual(idsOf(logOldestFirst(mock)));
    expect(statsOf(poller).pagesFetched).toBeLessThan(150);
  });
});
