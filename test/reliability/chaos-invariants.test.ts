/** The oracles of chaos.test.ts: a check that never fires would let the chaos test pass vacuously. */
import { describe, expect, it } from "vitest";
import { movesBackwards, overlapsAcrossProcesses, type Span } from "./chaos-invariants.js";

const at = (created_at: string, ...ids: string[]) => ({ created_at, ids_at_created_at: ids });

describe("movesBackwards", () => {
  it("is false for a later instant, or the same instant with the same or more ids", () => {
    const saved = at("2026-03-01T10:00:01.000Z", "evt_a", "evt_b");
    expect(movesBackwards(saved, at("2026-03-01T10:00:01.001Z", "evt_c"))).toBe(false);
    expect(movesBackwards(saved, at("2026-03-01T10:00:01.000Z", "evt_b", "evt_a"))).toBe(false);
    expect(movesBackwards(saved, at("2026-03-01T10:00:01Z", "evt_a", "evt_b", "evt_c"))).toBe(
      false,
    );
  });

  it("is true for an earlier instant, or the same instant missing an id", () => {
    const saved = at("2026-03-01T10:00:01.000Z", "evt_a", "evt_b");
    expect(movesBackwards(saved, at("2026-03-01T10:00:00.999Z", "evt_a", "evt_b", "evt_c"))).toBe(
      true,
    );
    expect(movesBackwards(saved, at("2026-03-01T10:00:01.000Z", "evt_a", "evt_c"))).toBe(true);
  });
});

describe("overlapsAcrossProcesses", () => {
  const span = (pid: number, start: number, end: number): Span => ({
    pid,
    start,
    end,
    what: `${pid}@${start}`,
  });

  it("finds two processes busy at once, however the spans nest", () => {
    expect(overlapsAcrossProcesses([span(1, 0, 10), span(2, 9, 20)])).toHaveLength(1);
    expect(
      overlapsAcrossProcesses([span(1, 0, 100), span(2, 10, 20), span(3, 50, 60)]),
    ).toHaveLength(2);
  });

  it("lets one process overlap itself and spans that only touch", () => {
    expect(overlapsAcrossProcesses([span(1, 0, 10), span(1, 5, 20)])).toEqual([]);
    expect(overlapsAcrossProcesses([span(1, 0, 10), span(2, 10, 20), span(1, 20, 30)])).toEqual([]);
  });
});
