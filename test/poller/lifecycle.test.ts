/** start/stop of the catch-up poller, runs never overlapping, and a dedupe store shared with a webhook handler. */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it, vi } from "vitest";
import { ConnectionError, MedRecordsError, memoryCheckpoint } from "../../src/index.js";
import { createWebhookHandler, memoryDedupeStore } from "../../src/webhooks/index.js";
import { STATUS_CHANGED, statusChanged } from "../helpers/events.js";
import { emitMany, idsOf, logOldestFirst, setup } from "./helpers.js";

describe("start and stop", () => {
  it("runs now and on every interval until stopped", async () => {
    const { mock, mr, urls } = setup();
    emitMany(mock, 3);
    const seen: string[] = [];
    const poller = mr.events.catchUp({ pageSize: 2, onEvent: (e) => void seen.push(e.id) });
    poller.start({ intervalMs: 10 });
    await vi.waitFor(() => expect(seen).toHaveLength(3));
    const late = statusChanged(mock, "rr_late");
    await vi.waitFor(() => expect(seen).toHaveLength(4));
    expect(seen.at(-1)).toBe(late.id);

    await poller.stop();
    const requests = urls.length;
    statusChanged(mock, "rr_after_stop");
    await sleep(50);
    expect(urls.length).toBe(requests);
    expect(seen).toHaveLength(4);
  });

  it("never overlaps runs, even with slow processing and a short interval", async () => {
    const { mock, mr } = setup();
    emitMany(mock, 6);
    const seen: string[] = [];
    let active = 0;
    let maxActive = 0;
    const poller = mr.events.catchUp({
      pageSize: 2,
      onEvent: async (event) => {
        maxActive = Math.max(maxActive, ++active);
        await sleep(15);
        seen.push(event.id);
        active--;
      },
    });
    poller.start({ intervalMs: 1 });
    // A direct run meanwhile waits its turn too.
    const direct = poller.runOnce();
    await vi.waitFor(() => expect(seen).toHaveLength(6));
    await direct;
    await poller.stop();
    expect(seen).toEqual(idsOf(logOldestFirst(mock)));
    expect(maxActive).toBe(1);
  });

  it("stop() resolves only after the run in flight ended, at a page boundary with the checkpoint saved", async () => {
    const { mock, mr } = setup();
    emitMany(mock, 30);
    const checkpoint = memoryCheckpoint();
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const seen: string[] = [];
    let entered = false;
    const poller = mr.events.catchUp({
      checkpoint,
      pageSize: 10,
      onEvent: async (event) => {
        entered = true;
        await gate;
        seen.push(event.id);
      },
    });
    poller.start({ intervalMs: 60_000 });
    await vi.waitFor(() => expect(entered).toBe(true));
    let stopped = false;
    const stopping = poller.stop().then(() => {
      stopped = true;
    });
    await sleep(20);
    expect(stopped).toBe(false);
    release();
    await stopping;
    const all = idsOf(logOldestFirst(mock));
    // The page in hand finished (at most pageSize events), and nothing after it.
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.length).toBeLessThanOrEqual(10);
    expect(seen).toEqual(all.slice(0, seen.length));
    expect((await checkpoint.load())?.ids_at_created_at).toEqual([seen.at(-1)]);

    // A later run carries on.
    const stoppedAt = seen.length;
    const result = await poller.runOnce();
    expect(result.processed).toBe(30 - stoppedAt);
    expect(seen).toEqual(all);
  });

  it("reports a failed run to onError and tries again at the next interval", async () => {
    const { mock, mr, failRequest } = setup();
    emitMany(mock, 2);
    failRequest(1);
    const errors: unknown[] = [];
    const seen: string[] = [];
    const poller = mr.events.catchUp({
      onEvent: (e) => void seen.push(e.id),
      onError: (error) => errors.push(error),
    });
    poller.start({ intervalMs: 5 });
    await vi.waitFor(() => expect(seen).toHaveLength(2));
    await poller.stop();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(ConnectionError);
  });

  it("logs a failed run with console.error when no onError is given", async () => {
    const { mock, mr, failRequest } = setup();
    emitMany(mock, 1);
    failRequest(1);
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const seen: string[] = [];
      const poller = mr.events.catchUp({ onEvent: (e) => void seen.push(e.id) });
      poller.start({ intervalMs: 5 });
      await vi.waitFor(() => expect(seen).toHaveLength(1));
      await poller.stop();
      // The client's own error line for the failed call aside, the poller's report.
      const reports = log.mock.calls.filter((call) => call.length > 1);
      expect(reports).toHaveLength(1);
      expect(reports[0]?.[1]).toBeInstanceOf(ConnectionError);
    } finally {
      log.mockRestore();
    }
  });

  it("refuses a second start and a bad interval; stop without start resolves", async () => {
    const { mr } = setup();
    const poller = mr.events.catchUp({ onEvent: () => {} });
    await poller.stop();
    expect(() => poller.start({ intervalMs: 0 })).toThrow(RangeError);
    poller.start({ intervalMs: 1_000 });
    expect(() => poller.start({ intervalMs: 1_000 })).toThrow(MedRecordsError);
    await poller.stop();
  });
});

describe("a dedupe store shared with the webhook handler", () => {
  it("skips what the webhook processed, and the webhook skips what the poller processed", async () => {
    const { mock, mr } = setup();
    const hook = await mr.webhooks.create({
      name: "Records",
      url: "https://hooks.example.test/medrecords",
      events: [STATUS_CHANGED],
    });
    const events = [
      statusChanged(mock, "rr_1"),
      statusChanged(mock, "rr_2"),
      statusChanged(mock, "rr_3"),
    ];
    await mock.deliveries.flush();
    const deliveries = mock.deliveries.inbox;
    expect(deliveries.map((d) => d.eventId)).toEqual(idsOf(events));

    const dedupe = memoryDedupeStore();
    const byWebhook: string[] = [];
    const handler = createWebhookHandler({
      secret: hook.secret,
      dedupe,
      on: { [STATUS_CHANGED]: (event) => void byWebhook.push(event.id) },
    });
    const deliver = (i: number) => {
      const d = deliveries[i] as (typeof deliveries)[number];
      return handler(new Request(d.url, { method: "POST", headers: d.headers, body: d.body }));
    };

    expect((await deliver(1)).status).toBe(200);
    expect(byWebhook).toEqual([events[1]?.id]);

    const byPoller: string[] = [];
    const checkpoint = memoryCheckpoint();
    const result = await mr.events
      .catchUp({ checkpoint, dedupe, onEvent: (e) => void byPoller.push(e.id) })
      .runOnce();
    expect(byPoller).toEqual([events[0]?.id, events[2]?.id]);
    expect(result).toMatchObject({ processed: 2, duplicates: 1 });
    expect(result.checkpoint?.ids_at_created_at).toEqual(idsOf(events));

    // The late webhook deliveries of what the poller did are acknowledged, not processed.
    expect((await deliver(0)).status).toBe(200);
    expect((await deliver(2)).status).toBe(200);
    expect(byWebhook).toEqual([events[1]?.id]);
  });

  it("releases the claim of an event whose onEvent failed, so the webhook can still process it", async () => {
    const { mock, mr } = setup();
    const hook = await mr.webhooks.create({
      name: "Records",
      url: "https://hooks.example.test/medrecords",
      events: [STATUS_CHANGED],
    });
    const event = statusChanged(mock, "rr_1");
    await mock.deliveries.flush();
    const dedupe = memoryDedupeStore();
    const poller = mr.events.catchUp({
      dedupe,
      onEvent: () => {
        throw new Error("database down");
      },
    });
    await expect(poller.runOnce()).rejects.toThrow("database down");

    const byWebhook: string[] = [];
    const handler = createWebhookHandler({
      secret: hook.secret,
      dedupe,
      on: { [STATUS_CHANGED]: (e) => void byWebhook.push(e.id) },
    });
    const d = mock.deliveries.inbox[0] as (typeof mock.deliveries.inbox)[number];
    await handler(new Request(d.url, { method: "POST", headers: d.headers, body: d.body }));
    expect(byWebhook).toEqual([event.id]);
  });
});
