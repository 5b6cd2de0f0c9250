/** The catch-up poller on a leased checkpoint: one instance polls at a time, fenced saves, takeover. */
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  type CheckpointStore,
  DEFAULT_CHECKPOINT_LEASE_SECONDS,
  memoryCheckpoint,
  StoreUnavailableError,
} from "../../src/index.js";
import { emitMany, idsOf, logOldestFirst, setup } from "./helpers.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("catch-up pollers sharing one leased checkpoint", () => {
  it("a second poller's run while the first holds the lease resolves at once as not the leader, processing nothing", async () => {
    const { mock, mr } = setup();
    emitMany(mock, 4);
    const checkpoint = memoryCheckpoint();
    const seenA: string[] = [];
    const seenB: string[] = [];
    const a = mr.events.catchUp({ checkpoint, onEvent: (e) => void seenA.push(e.id) });
    const b = mr.events.catchUp({ checkpoint, onEvent: (e) => void seenB.push(e.id) });
    a.start({ intervalMs: 60_000 });
    await vi.waitFor(() => expect(seenA).toHaveLength(4));
    // start() keeps the lease between its runs.
    const result = await b.runOnce();
    expect(result).toEqual({
      processed: 0,
      duplicates: 0,
      checkpoint: await checkpoint.load(),
      leader: false,
    });
    expect(seenB).toEqual([]);
    // stop() releases it: the other takes over at once.
    await a.stop();
    emitMany(mock, 1);
    expect(await b.runOnce()).toMatchObject({ processed: 1, leader: true });
    expect([...seenA, ...seenB]).toEqual(idsOf(logOldestFirst(mock)));
  });

  it("runOnce() releases the lease when it ends, so pollers taking turns each process the new events once", async () => {
    const { mock, mr } = setup();
    const checkpoint = memoryCheckpoint();
    const seen: string[] = [];
    const pollers = [0, 1, 2].map(() =>
      mr.events.catchUp({ checkpoint, pageSize: 2, onEvent: (e) => void seen.push(e.id) }),
    );
    for (let round = 0; round < 6; round++) {
      emitMany(mock, 3);
      expect((await pollers[round % 3]!.runOnce()).leader).toBe(true);
    }
    expect(seen).toEqual(idsOf(logOldestFirst(mock)));
  });

  it("stops before the next event once another instance took the lease over, and its late save is refused", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const { mock, mr } = setup();
    emitMany(mock, 6);
    const log = idsOf(logOldestFirst(mock));
    const checkpoint = memoryCheckpoint();
    const seenB: string[] = [];
    const b = mr.events.catchUp({ checkpoint, onEvent: (e) => void seenB.push(e.id) });
    const seenA: string[] = [];
    let bResult: Promise<unknown> | undefined;
    const a = mr.events.catchUp({
      checkpoint,
      pageSize: 100,
      onEvent: async (event) => {
        seenA.push(event.id);
        if (seenA.length === 2) {
          // A freezes past its lease; B takes over and catches up meanwhile.
          vi.setSystemTime(Date.now() + DEFAULT_CHECKPOINT_LEASE_SECONDS * 1000);
          bResult = b.runOnce();
          await bResult;
        }
      },
    });
    const result = await a.runOnce();
    expect(result.leader).toBe(false);
    expect(result.processed).toBe(2);
    // A stopped before its third event, and never saved over B's position.
    expect(seenA).toEqual(log.slice(0, 2));
    // A saves per page and had not finished its first: B starts over (A's two events come
    // again, as after a crash: at least once).
    expect(await bResult).toMatchObject({ leader: true, processed: log.length });
    expect((await checkpoint.load())?.ids_at_created_at).toEqual([log.at(-1)]);
  });

  it("renews the lease while a long run goes on, so no other instance takes over", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const { mock, mr } = setup();
    emitMany(mock, 5);
    const checkpoint = memoryCheckpoint();
    const other = mr.events.catchUp({ checkpoint, onEvent: () => {} });
    const results: unknown[] = [];
    const a = mr.events.catchUp({
      checkpoint,
      onEvent: async () => {
        // Each event takes just under the lease: only renewals keep it.
        vi.setSystemTime(Date.now() + DEFAULT_CHECKPOINT_LEASE_SECONDS * 1000 - 1);
        results.push((await other.runOnce()).leader);
      },
    });
    expect(await a.runOnce()).toMatchObject({ processed: 5, leader: true });
    expect(results).toEqual([false, false, false, false, false]);
  });

  it("a run that stalled past its lease, with nobody taking over, takes it back and saves", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const { mock, mr } = setup();
    emitMany(mock, 3);
    const checkpoint = memoryCheckpoint();
    let seen = 0;
    const a = mr.events.catchUp({
      checkpoint,
      onEvent: () => {
        // The last event of the page stalls past the lease: the page's save finds it lapsed.
        if (++seen === 3) vi.setSystemTime(Date.now() + DEFAULT_CHECKPOINT_LEASE_SECONDS * 1000);
      },
    });
    const result = await a.runOnce();
    expect(result).toMatchObject({ processed: 3, leader: true });
    expect(await checkpoint.load()).toEqual(result.checkpoint);
    expect(result.checkpoint?.ids_at_created_at).toEqual([idsOf(logOldestFirst(mock)).at(-1)]);
  });

  it("works as before with a plain store of one's own (no acquire): always the leader", async () => {
    const { mock, mr } = setup();
    emitMany(mock, 3);
    let saved: unknown = null;
    const plain: CheckpointStore = {
      load: async () => saved as never,
      save: async (checkpoint, ...rest: unknown[]) => {
        expect(rest).toEqual([]);
        saved = checkpoint;
      },
    };
    const result = await mr.events.catchUp({ checkpoint: plain, onEvent: () => {} }).runOnce();
    expect(result).toMatchObject({ processed: 3, leader: true });
    expect(saved).toEqual(result.checkpoint);
  });

  it("a run that cannot reach its store fails with StoreUnavailableError; start() reports it and retries", async () => {
    const { mock, mr } = setup();
    emitMany(mock, 2);
    const inner = memoryCheckpoint();
    let failures = 1;
    const flaky = {
      ...inner,
      acquire: async (owner: string) => {
        if (failures-- > 0) {
          throw new StoreUnavailableError("test store", "acquire", new Error("ECONNREFUSED"));
        }
        return inner.acquire(owner);
      },
    };
    await expect(
      mr.events.catchUp({ checkpoint: flaky, onEvent: () => {} }).runOnce(),
    ).rejects.toBeInstanceOf(StoreUnavailableError);

    failures = 1;
    const errors: unknown[] = [];
    const seen: string[] = [];
    const poller = mr.events.catchUp({
      checkpoint: flaky,
      onEvent: (e) => void seen.push(e.id),
      onError: (error) => errors.push(error),
    });
    poller.start({ intervalMs: 5 });
    await vi.waitFor(() => expect(seen).toHaveLength(2));
    await poller.stop();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(StoreUnavailableError);
  });
});
