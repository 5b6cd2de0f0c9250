import { describe, expect, it } from "vitest";
import { createMockService } from "../../src/mock/index.js";
import { createMockClock, parseDuration } from "../../src/mock/runtime/clock.js";

const T0 = "2026-03-01T10:00:00.000Z";
const t0 = Date.parse(T0);

describe("mock clock", () => {
  it("starts at the time it was given as a Date, an ISO string or epoch milliseconds", () => {
    expect(createMockClock(new Date(T0)).now().toISOString()).toBe(T0);
    expect(createMockClock(T0).now().toISOString()).toBe(T0);
    expect(createMockClock(t0).now().toISOString()).toBe(T0);
  });

  it("a service created without a time starts at the real time", () => {
    const before = Date.now();
    const mock = createMockService();
    const now = mock.clock.now().getTime();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });

  it("returns a fresh Date, so callers cannot move the clock by mutating it", () => {
    const clock = createMockClock(T0);
    clock.now().setFullYear(2000);
    expect(clock.now().toISOString()).toBe(T0);
  });

  it.each([
    ["500ms", 500],
    ["90s", 90_000],
    ["15m", 900_000],
    ["2h", 7_200_000],
    ["31d", 2_678_400_000],
    ["0s", 0],
    ["1.5h", 5_400_000],
  ])("reads %s as %i ms", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it("advances by milliseconds or by a duration string, at once, and resolves to the new time", async () => {
    const clock = createMockClock(T0);
    const first = clock.advance(1500);
    // Moved before anything is awaited: code that does not await sees the new time.
    expect(clock.now().getTime()).toBe(t0 + 1500);
    expect((await first).now.getTime()).toBe(t0 + 1500);
    const second = await clock.advance("15m");
    expect(second).toEqual({
      now: new Date(t0 + 1500 + 900_000),
      attempted: 0,
      succeeded: 0,
      failed: [],
    });
    expect(clock.now().getTime()).toBe(t0 + 1500 + 900_000);
  });

  it.each(["15 minutes", "", "m", "-5s", "5x", "1h30m", "5 ms extra"])(
    "refuses the duration %j with a message that shows the expected forms",
    (text) => {
      const clock = createMockClock(T0);
      expect(() => clock.advance(text)).toThrow(/Invalid duration .*"90s".*"15m"/);
      expect(clock.now().toISOString()).toBe(T0);
    },
  );

  it("refuses negative and non-finite millisecond amounts", () => {
    const clock = createMockClock(T0);
    expect(() => clock.advance(-1)).toThrow(/Invalid duration/);
    expect(() => clock.advance(Number.NaN)).toThrow(/Invalid duration/);
    expect(() => clock.advance(Number.POSITIVE_INFINITY)).toThrow(/Invalid duration/);
  });

  it("sets the time forward or back from a Date, a string or a number", () => {
    const clock = createMockClock(T0);
    clock.set("2026-04-01T00:00:00.000Z");
    expect(clock.now().toISOString()).toBe("2026-04-01T00:00:00.000Z");
    clock.set(new Date("2025-01-01T00:00:00.000Z"));
    expect(clock.now().toISOString()).toBe("2025-01-01T00:00:00.000Z");
    clock.set(t0);
    expect(clock.now().toISOString()).toBe(T0);
  });

  it("refuses an invalid date", () => {
    const clock = createMockClock(T0);
    expect(() => clock.set("not a date")).toThrow(/Invalid date/);
    expect(() => createMockClock(Number.NaN)).toThrow(/Invalid date/);
  });

  it("runs scheduled tasks that fall due, in time order, each seeing its own due time", () => {
    const clock = createMockClock(T0);
    const seen: Array<[string, number]> = [];
    clock.schedule(t0 + 30_000, () => seen.push(["c", clock.now().getTime()]));
    clock.schedule(t0 + 10_000, () => seen.push(["a", clock.now().getTime()]));
    clock.schedule(t0 + 20_000, () => seen.push(["b", clock.now().getTime()]));
    clock.schedule(t0 + 90_000, () => seen.push(["late", clock.now().getTime()]));

    clock.advance("1m");

    expect(seen).toEqual([
      ["a", t0 + 10_000],
      ["b", t0 + 20_000],
      ["c", t0 + 30_000],
    ]);
    expect(clock.now().getTime()).toBe(t0 + 60_000);
    clock.advance("30s");
    expect(seen.map(([name]) => name)).toEqual(["a", "b", "c", "late"]);
  });

  it("runs tasks due at the same instant in the order they were scheduled", () => {
    const clock = createMockClock(T0);
    const seen: string[] = [];
    for (const name of ["first", "second", "third"])
      clock.schedule(t0 + 5000, () => seen.push(name));
    clock.advance("5s");
    expect(seen).toEqual(["first", "second", "third"]);
  });

  it("never runs a task on scheduling: one already due runs on the next advance, even by 0", () => {
    const clock = createMockClock(T0);
    let ran = 0;
    clock.schedule(t0 - 1000, () => ran++);
    expect(ran).toBe(0);
    clock.advance(0);
    expect(ran).toBe(1);
    clock.advance(0);
    expect(ran).toBe(1);
  });

  it("runs a task that a running task schedules inside the same advance", () => {
    const clock = createMockClock(T0);
    const seen: number[] = [];
    clock.schedule(t0 + 1000, () => {
      seen.push(clock.now().getTime());
      clock.schedule(clock.now().getTime() + 60_000, () => seen.push(clock.now().getTime()));
    });
    clock.advance("2h");
    expect(seen).toEqual([t0 + 1000, t0 + 61_000]);
  });

  it("set() forward runs what fell due; set() back runs nothing", () => {
    const clock = createMockClock(T0);
    const seen: string[] = [];
    clock.schedule(t0 + 60_000, () => seen.push("due"));
    clock.set(t0 - 60_000);
    expect(seen).toEqual([]);
    clock.set(t0 + 60_000);
    expect(seen).toEqual(["due"]);
  });

  it("a failing task does not stop later ones; the clock still reaches its target and the error surfaces", () => {
    const clock = createMockClock(T0);
    const seen: string[] = [];
    clock.schedule(t0 + 1000, () => {
      throw new Error("boom");
    });
    clock.schedule(t0 + 2000, () => seen.push("after"));
    expect(() => clock.advance("10s")).toThrow("boom");
    expect(seen).toEqual(["after"]);
    expect(clock.now().getTime()).toBe(t0 + 10_000);
  });

  it("refuses to be moved from inside a scheduled task", () => {
    const clock = createMockClock(T0);
    clock.schedule(t0 + 1000, () => {
      clock.advance("1s");
    });
    expect(() => clock.advance("5s")).toThrow(/cannot be moved from inside a scheduled task/);
  });
});
