/** mr.events.catchUp against the reference server over its fetch: order, ties, memory, types, gaps. */
import { describe, expect, it } from "vitest";
import {
  type AnyEvent,
  type Checkpoint,
  type EventLogGap,
  EventLogGapError,
  isKnownEvent,
  MedRecords,
  memoryCheckpoint,
  PermissionError,
} from "../../src/index.js";
import {
  actionRequired,
  STATUS_CHANGED,
  statusChanged,
  WEBHOOK_DISABLED,
  webhookDisabled,
} from "../helpers/events.js";
import { emitEventForTesting } from "../helpers/mock-internals.js";
import { DAY, emitMany, idsOf, logOldestFirst, START, setup, statsOf } from "./helpers.js";

describe("catch-up order and completeness", () => {
  it("hands 5 000 events over many pages to onEvent oldest first, exactly once, one page in memory", async () => {
    const { mock, mr, requests } = setup();
    emitMany(mock, 5_000, 7); // runs of 7 at one instant cross page boundaries of 100
    const expected = idsOf(logOldestFirst(mock));
    const seen: string[] = [];
    let heldWhileProcessing = 0;
    const poller = mr.events.catchUp({
      pageSize: 100,
      onEvent: (event) => {
        seen.push(event.id);
        heldWhileProcessing = Math.max(heldWhileProcessing, statsOf(poller).eventsHeld);
      },
    });

    const started = performance.now();
    const result = await poller.runOnce();
    const elapsed = performance.now() - started;

    expect(seen).toEqual(expected);
    expect(new Set(seen).size).toBe(5_000);
    expect(result).toEqual({
      processed: 5_000,
      duplicates: 0,
      inProgress: 0,
      leader: true,
      checkpoint: {
        created_at: logOldestFirst(mock).at(-1)?.created_at,
        ids_at_created_at: expected.slice(-(5_000 % 7)),
      },
    });
    // Memory bounded by a page, not by the backlog.
    expect(statsOf(poller).maxEventsHeld).toBe(100);
    expect(heldWhileProcessing).toBeLessThanOrEqual(100);
    // One pass: 50 pages of events read in windows of 90 to 98 events, after a
    // search (about 25 nearly empty requests) from the retention horizon for
    // the oldest event, there being no checkpoint; two passes took 99.
    expect(statsOf(poller).pagesFetched).toBeLessThanOrEqual(90);
    expect(requests()).toBe(statsOf(poller).pagesFetched);
    expect(elapsed).toBeLessThan(5_000);

    // Nothing new: nothing handed over again.
    expect(await poller.runOnce()).toMatchObject({ processed: 0, duplicates: 0 });
    expect(seen).toHaveLength(5_000);
  });

  it("holds at most pageSize events whatever the backlog", async () => {
    const { mock, mr } = setup();
    emitMany(mock, 1_000, 3);
    let count = 0;
    const poller = mr.events.catchUp({ pageSize: 7, onEvent: () => void count++ });
    await poller.runOnce();
    expect(count).toBe(1_000);
    expect(statsOf(poller).maxEventsHeld).toBe(7);
    expect(statsOf(poller).eventsHeld).toBe(0);
  });

  it("loses and repeats nothing when many events share one created_at across page boundaries", async () => {
    const { mock, mr } = setup();
    statusChanged(mock, "rr_before");
    mock.clock.advance(1);
    emitMany(mock, 25, 1_000); // 25 events at one instant, pages of 10
    const checkpoint = memoryCheckpoint();
    const seen: string[] = [];
    const poller = mr.events.catchUp({
      checkpoint,
      pageSize: 10,
      onEvent: (e) => void seen.push(e.id),
    });
    await poller.runOnce();
    expect(seen).toEqual(idsOf(logOldestFirst(mock)));

    // More at the very same instant: only the new ones come.
    const more = [statusChanged(mock, "rr_more_1"), statusChanged(mock, "rr_more_2")];
    seen.length = 0;
    const result = await poller.runOnce();
    expect(seen).toEqual(idsOf(more));
    expect(result.processed).toBe(2);
    expect(result.checkpoint?.ids_at_created_at).toHaveLength(27);
  });

  it("a run stopped mid-instant resumes there: the events sharing the checkpoint's created_at come once each", async () => {
    const { mock, mr, urls } = setup();
    emitMany(mock, 9, 1_000); // one instant, pages of 4
    const log = idsOf(logOldestFirst(mock));
    const checkpoint = memoryCheckpoint();
    const seen: string[] = [];
    let failOn: string | undefined = log[5];
    const poller = mr.events.catchUp({
      checkpoint,
      pageSize: 4,
      onEvent: (e) => {
        if (e.id === failOn) throw new Error("down for a moment");
        seen.push(e.id);
      },
    });
    await expect(poller.runOnce()).rejects.toThrow("down for a moment");
    expect(await checkpoint.load()).toEqual({
      created_at: START,
      ids_at_created_at: log.slice(0, 5),
    });
    failOn = undefined;
    const firstOfRun = urls.length;
    await poller.runOnce();
    expect(seen).toEqual(log);
    // The inclusive bound at the checkpoint's own instant, not a millisecond before.
    expect(new URL(urls[firstOfRun] as string).searchParams.get("created_after")).toBe(START);
  });

  it("resumes mid-instant: a checkpoint holding some ids of an instant gets the rest of it", async () => {
    const { mock, mr } = setup();
    emitMany(mock, 6, 1_000); // one instant
    const log = logOldestFirst(mock);
    const checkpoint = memoryCheckpoint({
      created_at: START,
      ids_at_created_at: idsOf(log.slice(0, 4)),
    });
    const seen: string[] = [];
    await mr.events
      .catchUp({ checkpoint, pageSize: 2, onEvent: (e) => void seen.push(e.id) })
      .runOnce();
    expect(seen).toEqual(idsOf(log.slice(4)));
  });

  it("picks up events logged while it walks, still oldest first", async () => {
    const { mock, mr } = setup();
    emitMany(mock, 30, 2);
    const seen: string[] = [];
    let added = false;
    const poller = mr.events.catchUp({
      pageSize: 10,
      onEvent: (event) => {
        seen.push(event.id);
        if (!added) {
          added = true;
          emitMany(mock, 15, 2); // newer than everything listed so far
        }
      },
    });
    const result = await poller.runOnce();
    expect(seen).toEqual(idsOf(logOldestFirst(mock)));
    expect(result.processed).toBe(45);
  });

  it("passes types through as `type` and pageSize as `limit`", async () => {
    const { mock, mr, urls } = setup();
    const s = statusChanged(mock);
    actionRequired(mock);
    const w = webhookDisabled(mock);
    const seen: AnyEvent[] = [];
    const poller = mr.events.catchUp({
      types: [STATUS_CHANGED, WEBHOOK_DISABLED],
      pageSize: 42,
      onEvent: (event) => void seen.push(event),
    });
    await poller.runOnce();
    expect(idsOf(seen)).toEqual(idsOf([s, w]));
    expect(seen.every(isKnownEvent)).toBe(true);
    const query = new URL(urls[0] as string).searchParams;
    expect(query.get("type")).toBe(`${STATUS_CHANGED},${WEBHOOK_DISABLED}`);
    expect(query.get("limit")).toBe("42");
    expect(query.has("created_after")).toBe(false);
    // The next run lists from the checkpoint's instant: created_after is inclusive.
    await poller.runOnce();
    const again = new URL(urls.at(-1) as string).searchParams;
    expect(again.get("created_after")).toBe(w.created_at);
  });

  it("hands over an event of a type this SDK does not know", async () => {
    const { mock, mr } = setup();
    const known = statusChanged(mock);
    const future = emitEventForTesting(mock, "webhook.renamed", { webhook_id: "wh_1" });
    const seen: AnyEvent[] = [];
    await mr.events.catchUp({ onEvent: (e) => void seen.push(e) }).runOnce();
    expect(idsOf(seen)).toEqual([known.id, future.id]);
    expect(isKnownEvent(seen[1] as AnyEvent)).toBe(false);
    expect(seen[1]).toMatchObject({ type: "webhook.renamed", data: { webhook_id: "wh_1" } });
  });

  it("fails with a PermissionError when a type's family is not readable", async () => {
    const { mock } = setup();
    const mr = new MedRecords({
      apiKey: mock.apiKeys.create({ scopes: ["webhooks:read"] }),
      baseUrl: mock.baseUrl,
      fetch: mock.fetch,
      maxRetries: 0,
    });
    const poller = mr.events.catchUp({ types: [STATUS_CHANGED], onEvent: () => {} });
    await expect(poller.runOnce()).rejects.toBeInstanceOf(PermissionError);
  });

  it("refuses bad options at once", () => {
    const { mr } = setup();
    const onEvent = () => {};
    expect(() => mr.events.catchUp({ onEvent, pageSize: 0 })).toThrow(RangeError);
    expect(() => mr.events.catchUp({ onEvent, pageSize: 101 })).toThrow(RangeError);
    expect(() => mr.events.catchUp({ onEvent, types: [] })).toThrow(RangeError);
    expect(() =>
      mr.events.catchUp({
        onEvent,
        types: Array.from({ length: 21 }, (): typeof STATUS_CHANGED => STATUS_CHANGED),
      }),
    ).toThrow(RangeError);
    expect(() => mr.events.catchUp({} as never)).toThrow(TypeError);
  });
});

describe("retention gap", () => {
  it("reports a checkpoint past the 30-day retention to onGap, then continues from oldestAvailable", async () => {
    const { mock, mr } = setup();
    const first = statusChanged(mock, "rr_1");
    const checkpoint = memoryCheckpoint();
    const seen: string[] = [];
    const gaps: EventLogGap[] = [];
    const poller = mr.events.catchUp({
      checkpoint,
      onEvent: (e) => void seen.push(e.id),
      onGap: (gap) => void gaps.push(gap),
    });
    await poller.runOnce();
    expect(seen).toEqual([first.id]);

    mock.clock.advance("20d");
    const kept = statusChanged(mock, "rr_2");
    mock.clock.advance("11d"); // `first` is 31 days old and gone; `kept` is 11 days old
    const later = statusChanged(mock, "rr_3");
    const result = await poller.runOnce();

    expect(gaps).toHaveLength(1);
    const gap = gaps[0] as EventLogGap;
    expect(gap.checkpoint).toEqual({ created_at: START, ids_at_created_at: [first.id] });
    const horizon = mock.clock.now().getTime() - 30 * DAY;
    // The Date header has whole seconds: the horizon is rounded up, never missed.
    expect(Date.parse(gap.oldestAvailable)).toBeGreaterThanOrEqual(horizon);
    expect(Date.parse(gap.oldestAvailable)).toBeLessThan(horizon + 1_000);
    expect(seen).toEqual([first.id, kept.id, later.id]);
    expect(result.processed).toBe(2);

    // Past the gap now: not reported again.
    await poller.runOnce();
    expect(gaps).toHaveLength(1);
  });

  it("moves the checkpoint to oldestAvailable when nothing newer exists", async () => {
    const { mock, mr } = setup();
    const checkpoint = memoryCheckpoint({ created_at: START, ids_at_created_at: ["rr-x"] });
    mock.clock.advance("40d");
    const gaps: EventLogGap[] = [];
    const poller = mr.events.catchUp({
      checkpoint,
      onEvent: () => {},
      onGap: (g) => void gaps.push(g),
    });
    const result = await poller.runOnce();
    expect(result.checkpoint).toEqual({
      created_at: gaps[0]?.oldestAvailable,
      ids_at_created_at: [],
    });
    expect(await checkpoint.load()).toEqual(result.checkpoint);
    await poller.runOnce();
    expect(gaps).toHaveLength(1);
  });

  it("does not report a checkpoint inside the retention", async () => {
    const { mock, mr } = setup();
    const checkpoint = memoryCheckpoint({ created_at: START, ids_at_created_at: [] });
    mock.clock.advance("29d");
    const gaps: unknown[] = [];
    await mr.events
      .catchUp({ checkpoint, onEvent: () => {}, onGap: (g) => void gaps.push(g) })
      .runOnce();
    expect(gaps).toEqual([]);
  });

  it("fails with an EventLogGapError, checkpoint untouched, without onGap", async () => {
    const { mock, mr } = setup();
    const saved: Checkpoint = { created_at: START, ids_at_created_at: ["rr-x"] };
    const checkpoint = memoryCheckpoint(saved);
    mock.clock.advance("31d");
    statusChanged(mock);
    const seen: string[] = [];
    const error = await mr.events
      .catchUp({ checkpoint, onEvent: (e) => void seen.push(e.id) })
      .runOnce()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EventLogGapError);
    expect((error as EventLogGapError).message).toMatch("retrievalRequests.changes");
    expect((error as EventLogGapError).gap.checkpoint).toEqual(saved);
    expect(seen).toEqual([]);
    expect(await checkpoint.load()).toEqual(saved);
  });

  it("keeps the checkpoint when onGap throws", async () => {
    const { mock, mr } = setup();
    const saved: Checkpoint = { created_at: START, ids_at_created_at: [] };
    const checkpoint = memoryCheckpoint(saved);
    mock.clock.advance("31d");
    statusChanged(mock);
    const poller = mr.events.catchUp({
      checkpoint,
      onEvent: () => {},
      onGap: () => {
        throw new Error("changes() failed");
      },
    });
    await expect(poller.runOnce()).rejects.toThrow("changes() failed");
    expect(await checkpoint.load()).toEqual(saved);
  });
});
