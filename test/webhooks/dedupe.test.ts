import { describe, expect, it } from "vitest";
import {
  claimChecked,
  DEFAULT_DEDUPE_LEASE_SECONDS,
  type DedupeClaim,
  type DedupeStore,
} from "../../src/shared/dedupe-store.js";
import { memoryDedupeStore } from "../../src/webhooks/index.js";

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (seconds: number) => (t += seconds * 1000) };
}

function tokenOf(claim: DedupeClaim): string {
  if (claim.state !== "claimed") throw new Error(`expected a claim, got ${claim.state}`);
  return claim.token;
}

describe("memoryDedupeStore", () => {
  it("a claim is in progress until completed, then done; a released claim is claimed again", async () => {
    const store = memoryDedupeStore();
    const first = tokenOf(await store.claim("evt_1"));
    expect(await store.claim("evt_1")).toEqual({ state: "in_progress" });
    await store.release("evt_1", first);
    const second = tokenOf(await store.claim("evt_1"));
    expect(second).not.toBe(first);
    await store.complete("evt_1", second, 60);
    expect(await store.claim("evt_1")).toEqual({ state: "done" });
  });

  it("a lease lapses after leaseSeconds (default 60), and not a moment before, and is taken over", async () => {
    const c = clock();
    const store = memoryDedupeStore({ now: c.now });
    tokenOf(await store.claim("evt_1"));
    c.advance(DEFAULT_DEDUPE_LEASE_SECONDS - 0.001);
    expect(await store.claim("evt_1")).toEqual({ state: "in_progress" });
    c.advance(0.001);
    expect((await store.claim("evt_1")).state).toBe("claimed");
  });

  it("honours leaseSeconds", async () => {
    const c = clock();
    const store = memoryDedupeStore({ now: c.now, leaseSeconds: 5 });
    tokenOf(await store.claim("evt_1"));
    c.advance(4.999);
    expect(await store.claim("evt_1")).toEqual({ state: "in_progress" });
    c.advance(0.001);
    expect((await store.claim("evt_1")).state).toBe("claimed");
  });

  it("the old holder's release of a lapsed and retaken lease leaves the new lease alone", async () => {
    const c = clock();
    const store = memoryDedupeStore({ now: c.now, leaseSeconds: 5 });
    const old = tokenOf(await store.claim("evt_1"));
    c.advance(5);
    tokenOf(await store.claim("evt_1"));
    await store.release("evt_1", old);
    expect(await store.claim("evt_1")).toEqual({ state: "in_progress" });
  });

  it("a release after complete leaves the id done", async () => {
    const store = memoryDedupeStore();
    const token = tokenOf(await store.claim("evt_1"));
    await store.complete("evt_1", token, 60);
    await store.release("evt_1", token);
    expect(await store.claim("evt_1")).toEqual({ state: "done" });
  });

  it("forgets a done id when its TTL has passed, and not a moment before", async () => {
    const c = clock();
    const store = memoryDedupeStore({ now: c.now });
    await store.complete("evt_1", tokenOf(await store.claim("evt_1")), 600);
    c.advance(599.999);
    expect(await store.claim("evt_1")).toEqual({ state: "done" });
    c.advance(0.001);
    expect((await store.claim("evt_1")).state).toBe("claimed");
  });

  it("caps the done TTL at the store's ttlSeconds", async () => {
    const c = clock();
    const store = memoryDedupeStore({ now: c.now, ttlSeconds: 10 });
    await store.complete("evt_1", tokenOf(await store.claim("evt_1")), 3600);
    c.advance(9.999);
    expect(await store.claim("evt_1")).toEqual({ state: "done" });
    c.advance(0.001);
    expect((await store.claim("evt_1")).state).toBe("claimed");
  });

  it("concurrent claims of one id: exactly one is claimed", async () => {
    const store = memoryDedupeStore();
    const claims = await Promise.all(Array.from({ length: 50 }, () => store.claim("evt_1")));
    expect(claims.filter((claim) => claim.state === "claimed")).toHaveLength(1);
    expect(claims.filter((claim) => claim.state === "in_progress")).toHaveLength(49);
  });

  it("evicts the least recently seen id beyond max", async () => {
    const store = memoryDedupeStore({ max: 2 });
    await store.complete("a", tokenOf(await store.claim("a")), 60);
    await store.complete("b", tokenOf(await store.claim("b")), 60);
    // Seeing "a" again makes "b" the least recently seen.
    expect(await store.claim("a")).toEqual({ state: "done" });
    await store.claim("c");
    expect(await store.claim("a")).toEqual({ state: "done" });
    expect((await store.claim("b")).state).toBe("claimed");
  });

  it("keeps no more than max ids whatever the traffic", async () => {
    const store = memoryDedupeStore({ max: 100 });
    for (let i = 0; i < 1000; i++) await store.claim(`evt_${i}`);
    let remembered = 0;
    for (let i = 0; i < 1000; i++)
      if ((await store.claim(`evt_${i}`)).state !== "claimed") remembered++;
    expect(remembered).toBeLessThanOrEqual(100);
  });

  it("refuses a nonsensical configuration", () => {
    expect(() => memoryDedupeStore({ max: 0 })).toThrow(TypeError);
    expect(() => memoryDedupeStore({ ttlSeconds: 0 })).toThrow(TypeError);
    expect(() => memoryDedupeStore({ leaseSeconds: 0 })).toThrow(/leaseSeconds/);
    expect(() => memoryDedupeStore({ leaseSeconds: Number.POSITIVE_INFINITY })).toThrow(
      /leaseSeconds/,
    );
  });
});

describe("a store written for the one-phase DedupeStore", () => {
  it("is refused at the first claim with a TypeError that says what changed, and its claim is given back", async () => {
    const released: string[] = [];
    const old = {
      claim: async (_id: string, _ttlSeconds?: number) => true,
      release: async (id: string) => {
        released.push(id);
      },
    } as unknown as DedupeStore;
    const error = await claimChecked(old, "evt_1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(
      /resolved true.*one-phase.*complete\(id, token, ttlSeconds\)/s,
    );
    expect(released).toEqual(["evt_1"]);
  });

  it("a false (duplicate) answer is refused too", async () => {
    const old = { claim: async () => false } as unknown as DedupeStore;
    await expect(claimChecked(old, "evt_1")).rejects.toThrow(/resolved false/);
  });

  it("a two-phase answer passes", async () => {
    const store = memoryDedupeStore();
    expect((await claimChecked(store, "evt_1")).state).toBe("claimed");
    expect(await claimChecked(store, "evt_1")).toEqual({ state: "in_progress" });
  });
});
