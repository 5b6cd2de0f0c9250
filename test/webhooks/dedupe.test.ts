import { describe, expect, it } from "vitest";
import { memoryDedupeStore } from "../../src/webhooks/index.js";

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (seconds: number) => (t += seconds * 1000) };
}

describe("memoryDedupeStore", () => {
  it("claims an id once until it is released", async () => {
    const store = memoryDedupeStore();
    expect(await store.claim("evt_1", 60)).toBe(true);
    expect(await store.claim("evt_1", 60)).toBe(false);
    await store.release?.("evt_1");
    expect(await store.claim("evt_1", 60)).toBe(true);
  });

  it("forgets an id when its TTL has passed, and not a moment before", async () => {
    const c = clock();
    const store = memoryDedupeStore({ now: c.now });
    await store.claim("evt_1", 60);
    c.advance(59.999);
    expect(await store.claim("evt_1", 60)).toBe(false);
    c.advance(0.001);
    expect(await store.claim("evt_1", 60)).toBe(true);
  });

  it("caps a claim's TTL at the store's ttlSeconds", async () => {
    const c = clock();
    const store = memoryDedupeStore({ now: c.now, ttlSeconds: 10 });
    await store.claim("evt_1", 3600);
    c.advance(10);
    expect(await store.claim("evt_1", 3600)).toBe(true);
  });

  it("evicts the least recently seen id beyond max", async () => {
    const store = memoryDedupeStore({ max: 2 });
    await store.claim("a", 60);
    await store.claim("b", 60);
    // Seeing "a" again makes "b" the least recently seen.
    expect(await store.claim("a", 60)).toBe(false);
    await store.claim("c", 60);
    expect(await store.claim("a", 60)).toBe(false);
    expect(await store.claim("b", 60)).toBe(true);
  });

  it("keeps no more than max ids whatever the traffic", async () => {
    const store = memoryDedupeStore({ max: 100 });
    for (let i = 0; i < 1000; i++) await store.claim(`evt_${i}`, 60);
    let remembered = 0;
    for (let i = 0; i < 1000; i++) if (!(await store.claim(`evt_${i}`, 60))) remembered++;
    expect(remembered).toBeLessThanOrEqual(100);
  });

  it("refuses a nonsensical configuration", () => {
    expect(() => memoryDedupeStore({ max: 0 })).toThrow(TypeError);
    expect(() => memoryDedupeStore({ ttlSeconds: 0 })).toThrow(TypeError);
  });
});
