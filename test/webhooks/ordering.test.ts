import { describe, expect, it } from "vitest";
import { isNewerRetrievalRequest } from "../../src/webhooks/index.js";

const at = (public_updated_at: string) => ({ public_updated_at });

describe("isNewerRetrievalRequest", () => {
  it("is true for a later version and false for an earlier one", () => {
    expect(isNewerRetrievalRequest(at("2026-01-02T10:00:00Z"), at("2026-01-02T09:59:59Z"))).toBe(
      true,
    );
    expect(isNewerRetrievalRequest(at("2026-01-02T09:59:59Z"), at("2026-01-02T10:00:00Z"))).toBe(
      false,
    );
  });

  it("is false for the same version", () => {
    expect(
      isNewerRetrievalRequest(at("2026-01-02T10:00:00.000Z"), at("2026-01-02T10:00:00.000Z")),
    ).toBe(false);
  });

  it("is true when nothing is cached", () => {
    expect(isNewerRetrievalRequest(at("2026-01-02T10:00:00Z"), undefined)).toBe(true);
    expect(isNewerRetrievalRequest(at("2026-01-02T10:00:00Z"), null)).toBe(true);
  });

  it("compares instants, not strings, across timezone offsets", () => {
    // The same instant written in three offsets.
    const utc = at("2026-01-02T10:00:00Z");
    const paris = at("2026-01-02T11:00:00+01:00");
    const newYork = at("2026-01-02T05:00:00-05:00");
    for (const [a, b] of [
      [utc, paris],
      [paris, newYork],
      [newYork, utc],
    ] as const) {
      expect(isNewerRetrievalRequest(a, b)).toBe(false);
      expect(isNewerRetrievalRequest(b, a)).toBe(false);
    }
    // As strings "2026-01-02T06:00:00-05:00" sorts before "2026-01-02T10:30:00Z", as instants it is later.
    expect(
      isNewerRetrievalRequest(at("2026-01-02T06:00:00-05:00"), at("2026-01-02T10:30:00Z")),
    ).toBe(true);
  });

  it("treats fractional seconds by value, whatever their number of digits", () => {
    expect(
      isNewerRetrievalRequest(at("2026-01-02T10:00:00.5Z"), at("2026-01-02T10:00:00.499999Z")),
    ).toBe(true);
    expect(
      isNewerRetrievalRequest(at("2026-01-02T10:00:00.500000Z"), at("2026-01-02T10:00:00.5Z")),
    ).toBe(false);
    // Below a millisecond, where Date.parse would call these equal.
    expect(
      isNewerRetrievalRequest(at("2026-01-02T10:00:00.123457Z"), at("2026-01-02T10:00:00.123456Z")),
    ).toBe(true);
    expect(
      isNewerRetrievalRequest(at("2026-01-02T10:00:01Z"), at("2026-01-02T10:00:00.999999Z")),
    ).toBe(true);
  });

  it("throws on a value that is not a date-time", () => {
    expect(() => isNewerRetrievalRequest(at("yesterday"), at("2026-01-02T10:00:00Z"))).toThrow(
      TypeError,
    );
  });
});
