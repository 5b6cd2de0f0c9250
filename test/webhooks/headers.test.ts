import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readHeader, WEBHOOK_HEADERS } from "../../src/webhooks/headers.js";

/** readHeader on a record as first written: lowercase every name, collect, join. */
function reference(
  record: Record<string, string | string[] | undefined>,
  name: string,
): string | undefined {
  const wanted = name.toLowerCase();
  const found: string[] = [];
  for (const key of Object.keys(record)) {
    if (key.toLowerCase() !== wanted) continue;
    const value = record[key];
    if (Array.isArray(value)) found.push(...value);
    else if (value !== undefined) found.push(value);
  }
  return found.length ? found.join(", ") : undefined;
}

const TIMESTAMP = WEBHOOK_HEADERS.timestamp;

describe("readHeader on a record", () => {
  it("matches names in any case and joins repeats in key order", () => {
    const headers = {
      "X-Service-Timestamp": "1",
      "x-service-timestamp": ["2", "3"],
      "X-SERVICE-TIMESTAMP": undefined,
      "x-service-timestamps": "no",
      "content-type": "application/json",
    };
    expect(readHeader(headers, TIMESTAMP)).toBe("1, 2, 3");
    expect(readHeader(headers, "X-Service-Timestamp")).toBe("1, 2, 3");
    expect(readHeader(headers, "x-missing")).toBeUndefined();
  });

  it("skips undefined and empty arrays, keeps empty strings", () => {
    expect(readHeader({ [TIMESTAMP]: [] }, TIMESTAMP)).toBeUndefined();
    expect(readHeader({ [TIMESTAMP]: undefined }, TIMESTAMP)).toBeUndefined();
    expect(readHeader({ [TIMESTAMP]: "" }, TIMESTAMP)).toBe("");
    expect(readHeader({ [TIMESTAMP]: [""] }, TIMESTAMP)).toBe("");
    expect(readHeader({ a: [], A: "x" }, "a")).toBe("x");
  });

  it("matches a name that only lowercases to the wanted one (Kelvin sign, dotted capital I)", () => {
    expect(readHeader({ "\u212A": "kelvin" }, "k")).toBe("kelvin");
    // U+0130 lowercases to two characters: another length, still the same name.
    const name = "\u0130d";
    expect(readHeader({ [name]: "x" }, name.toLowerCase())).toBe(reference({ [name]: "x" }, name));
    expect(readHeader({ [name]: "x" }, name)).toBe("x");
  });

  it("agrees with the reference on arbitrary records and names", () => {
    const letters = ["x", "X", "k", "K", "\u212A", "-", "\u0130", "i", "\u0307", "é", "É"];
    const name = fc
      .array(fc.constantFrom(...letters), { minLength: 0, maxLength: 4 })
      .map((cs) => cs.join(""));
    const value = fc.oneof(
      fc.string({ maxLength: 3 }),
      fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }),
      fc.constant(undefined),
    );
    fc.assert(
      fc.property(fc.dictionary(name, value, { maxKeys: 6 }), name, (record, wanted) => {
        expect(readHeader(record, wanted)).toBe(reference(record, wanted));
      }),
      { numRuns: 2000 },
    );
  });
});
