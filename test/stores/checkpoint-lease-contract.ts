/**
 * What every shipped CheckpointLeaseStore must do, run against each
 * (memory, file, PostgreSQL, Redis): one holder at a time, takeover only once
 * the lease lapsed, fenced and forward-only saves, renewals that keep the lease.
 */
import { expect, it } from "vitest";
import {
  type Checkpoint,
  CheckpointLeaseLostError,
  type CheckpointLeaseStore,
  type CheckpointStore,
  MedRecords,
} from "../../src/index.js";
import { createMockService } from "../../src/mock/index.js";
import { statusChanged } from "../helpers/events.js";

export interface LeaseHarness {
  /** `count` stores (as many instances would make them) sharing one checkpoint, with this lease. */
  stores(count: number, leaseSeconds: number): Promise<CheckpointLeaseStore[]>;
  /** Makes `ms` pass for the lease in force (a clock moved, or the lease's expiry moved earlier). */
  elapse(ms: number): Promise<void>;
  /**
   * How close to the end of a lease "just before" is: 1 ms on a clock the
   * test moves, more where the real clock also runs between two steps.
   */
  marginMs: number;
}

const LEASE_SECONDS = 30;
const LEASE_MS = LEASE_SECONDS * 1000;

const at = (created_at: string, ...ids: string[]): Checkpoint => ({
  created_at,
  ids_at_created_at: ids,
});
const FIRST = at("2026-03-01T10:00:00.123456Z", "evt_a", "evt_b");
const SECOND = at("2026-03-02T08:30:00+02:00", "evt_c");

async function refusal(promise: Promise<unknown>): Promise<CheckpointLeaseLostError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CheckpointLeaseLostError);
  return error as CheckpointLeaseLostError;
}

export function checkpointLeaseContract(harness: () => LeaseHarness): void {
  it("gives the lease to one owner at a time; the holder's renewal keeps its fence", async () => {
    const h = harness();
    const [a, b] = await h.stores(2, LEASE_SECONDS);
    expect(a!.leaseSeconds).toBe(LEASE_SECONDS);
    const fence = await a!.acquire("owner-a");
    expect(fence).toBeTypeOf("number");
    expect(await b!.acquire("owner-b")).toBeNull();
    expect(await a!.acquire("owner-a")).toBe(fence);
    expect(await b!.acquire("owner-b")).toBeNull();
  });

  it("lets another owner take over only once the lease lapsed, with a larger fence", async () => {
    const h = harness();
    const [a, b] = await h.stores(2, LEASE_SECONDS);
    const first = (await a!.acquire("owner-a")) as number;
    await h.elapse(LEASE_MS - h.marginMs);
    expect(await b!.acquire("owner-b")).toBeNull();
    await h.elapse(h.marginMs);
    const second = await b!.acquire("owner-b");
    expect(second).toBeGreaterThan(first);
    // And the old holder is now the one refused.
    expect(await a!.acquire("owner-a")).toBeNull();
  });

  it("refuses a stale holder's save and saves nothing", async () => {
    const h = harness();
    const [a, b] = await h.stores(2, LEASE_SECONDS);
    const stale = (await a!.acquire("owner-a")) as number;
    await a!.save(FIRST, stale);
    await h.elapse(LEASE_MS);
    const fence = (await b!.acquire("owner-b")) as number;
    const error = await refusal(a!.save(SECOND, stale));
    expect(error.reason).toBe("taken_over");
    expect(await b!.load()).toEqual(FIRST);
    await b!.save(SECOND, fence);
    expect(await a!.load()).toEqual(SECOND);
  });

  it("refuses a save once the lease lapsed, even with nobody else holding it", async () => {
    const h = harness();
    const [a] = await h.stores(1, LEASE_SECONDS);
    const fence = (await a!.acquire("owner-a")) as number;
    await h.elapse(LEASE_MS - h.marginMs);
    await a!.save(FIRST, fence);
    await h.elapse(LEASE_MS);
    expect((await refusal(a!.save(SECOND, fence))).reason).toBe("expired");
    expect(await a!.load()).toEqual(FIRST);
  });

  it("never moves the checkpoint backwards, comparing instants rather than strings", async () => {
    const h = harness();
    const [a] = await h.stores(1, LEASE_SECONDS);
    const fence = (await a!.acquire("owner-a")) as number;
    await a!.save(SECOND, fence); // 2026-03-02T06:30:00Z
    // Earlier as text, later as an instant: forward.
    const later = at("2026-03-02T07:00:00Z", "evt_d");
    await a!.save(later, fence);
    // The same instant written with another offset, more ids: not backwards.
    const same = at("2026-03-02T09:00:00+02:00", "evt_d", "evt_e");
    await a!.save(same, fence);
    // One microsecond earlier: backwards.
    const earlier = at("2026-03-02T06:59:59.999999Z", "evt_z");
    const error = await refusal(a!.save(earlier, fence));
    expect(error.reason).toBe("backwards");
    expect(await a!.load()).toEqual(same);
  });

  it("keeps the lease for a holder that renews before it lapses", async () => {
    const h = harness();
    const [a, b] = await h.stores(2, LEASE_SECONDS);
    const fence = await a!.acquire("owner-a");
    for (let i = 0; i < 3; i++) {
      await h.elapse(LEASE_MS - h.marginMs);
      expect(await a!.acquire("owner-a")).toBe(fence);
      expect(await b!.acquire("owner-b")).toBeNull();
    }
    await a!.save(FIRST, fence as number);
    expect(await b!.load()).toEqual(FIRST);
  });

  it("hands the lease over at once on release, and ignores a release by a non-holder", async () => {
    const h = harness();
    const [a, b] = await h.stores(2, LEASE_SECONDS);
    const first = (await a!.acquire("owner-a")) as number;
    await b!.release("owner-b");
    expect(await b!.acquire("owner-b")).toBeNull();
    await a!.release("owner-a");
    const second = await b!.acquire("owner-b");
    expect(second).toBeGreaterThan(first);
    expect((await refusal(a!.save(FIRST, first))).reason).toBe("taken_over");
    expect(await b!.load()).toBeNull();
  });

  it("saves without a fence only while nobody holds a live lease", async () => {
    const h = harness();
    const [a, b] = await h.stores(2, LEASE_SECONDS);
    await b!.save(FIRST);
    const fence = (await a!.acquire("owner-a")) as number;
    expect((await refusal(b!.save(SECOND))).reason).toBe("held_by_another");
    expect(await b!.load()).toEqual(FIRST);
    await a!.release("owner-a");
    await b!.save(SECOND);
    expect(await a!.load()).toEqual(SECOND);
    expect(fence).toBeGreaterThan(0);
  });
}

/**
 * A poller on a fresh store each run, as a restarted process makes it, over
 * one shared checkpoint: the second run processes only what came after.
 */
export function drivesThePollerAcrossRestarts(storeFor: () => () => CheckpointStore): void {
  it("drives the catch-up poller across restarts", async () => {
    const mock = createMockService({ now: "2026-03-01T10:00:00Z" });
    const mr = new MedRecords({
      apiKey: mock.apiKeys.create(),
      baseUrl: mock.baseUrl,
      fetch: mock.fetch,
    });
    // One checkpoint (one key or table) for this test; a new store object per run.
    const checkpoint = storeFor();
    const emitted = Array.from({ length: 5 }, (_, i) => {
      mock.clock.advance("1s");
      return statusChanged(mock, `rr_${i}`).id;
    });
    const seen: string[] = [];
    const run = (store: CheckpointStore) =>
      mr.events
        .catchUp({
          checkpoint: store,
          onEvent: (event) => {
            seen.push(event.id);
          },
        })
        .runOnce();
    expect((await run(checkpoint())).processed).toBe(5);
    mock.clock.advance("1s");
    emitted.push(statusChanged(mock, "rr_late").id);
    expect((await run(checkpoint())).processed).toBe(1);
    expect(seen).toEqual(emitted);
  });
}
