import { describe, expect, it } from "vitest";
import type * as z from "zod";
import { OPERATIONS } from "../../src/contract/index.js";
import { describeOperation } from "../../src/core/request.js";
import { MedRecords, ValidationError } from "../../src/index.js";
import { API_KEY, BASE_URL, json, scriptedFetch } from "../helpers/scripted-fetch.js";
import { START, setup } from "../mock/helpers.js";

const INSTANT = new Date("2026-03-04T05:06:07.089Z");
const emptyPage = { results: [], next: null, previous: null };

function client() {
  const { fetch, seen } = scriptedFetch(
    [],
    json(200, { ...emptyPage, next_public_updated_since: null }),
  );
  return { mr: new MedRecords({ apiKey: API_KEY, baseUrl: BASE_URL, fetch }), seen };
}

const queryOf = (url: string) => Object.fromEntries(new URL(url).searchParams);

describe("date and date-time query parameters", () => {
  // Found by what they accept, so that a parameter added later is covered without editing this list.
  const dateParameters = OPERATIONS.flatMap((op) => {
    const shape = (op.query as z.ZodObject | undefined)?.shape ?? {};
    return Object.entries(shape as Record<string, z.ZodType>).flatMap(([name, schema]) => {
      const takes = (value: string) => schema.safeParse(value).success;
      if (takes("not a date")) return [];
      if (takes("2026-03-04T05:06:07.089Z")) return [{ op, name, schema, format: "date-time" }];
      if (takes("2026-03-04")) return [{ op, name, schema, format: "date" }];
      return [];
    });
  });

  it("are found in the contract: the event bounds and updated_since", () => {
    expect(dateParameters.map(({ op, name }) => `${describeOperation(op)} ${name}`)).toEqual(
      expect.arrayContaining([
        "GET /v2/events created_after",
        "GET /v2/events created_before",
        "GET /v2/retrieval-requests updated_since",
      ]),
    );
  });

  it.each(dateParameters.map((p) => [`${describeOperation(p.op)} ${p.name}`, p] as const))(
    "%s takes a Date, sent as its ISO string",
    (_, { schema, format }) => {
      const iso = INSTANT.toISOString();
      expect(schema.parse(INSTANT)).toBe(format === "date" ? iso.slice(0, 10) : iso);
    },
  );

  it("events.list and retrievalRequests.list send a Date as its ISO string", async () => {
    const { mr, seen } = client();
    await mr.events.list({ created_after: INSTANT, created_before: "2026-04-01T00:00:00Z" });
    await mr.retrievalRequests.list({ updated_since: INSTANT });
    expect(queryOf(seen[0]?.url ?? "")).toMatchObject({
      created_after: INSTANT.toISOString(),
      created_before: "2026-04-01T00:00:00Z",
    });
    expect(queryOf(seen[1]?.url ?? "")).toMatchObject({ updated_since: INSTANT.toISOString() });
  });

  it("changes({ since }) takes a Date: sent as its ISO string, and nextSince starts from it", async () => {
    const { mr, seen } = client();
    const changes = mr.retrievalRequests.changes({ since: INSTANT });
    expect(changes.nextSince).toBe(INSTANT.toISOString());
    for await (const _ of changes) {
      // no changes on the empty page
    }
    expect(queryOf(seen[0]?.url ?? "").updated_since).toBe(INSTANT.toISOString());
    expect(changes.nextSince).toBe(INSTANT.toISOString());
  });

  it("accepts Dates from the year 0000 to 9999 and refuses one outside, before sending", async () => {
    const { mr, seen } = client();
    const bounds = [new Date("0000-01-01T00:00:00.000Z"), new Date("9999-12-31T23:59:59.999Z")];
    for (const date of bounds) await mr.retrievalRequests.list({ updated_since: date });
    expect(seen.map((s) => queryOf(s.url).updated_since)).toEqual(
      bounds.map((d) => d.toISOString()),
    );

    const outside = [new Date(Date.UTC(10_000, 0, 1)), new Date(Date.UTC(-1, 11, 31, 23, 59))];
    for (const date of outside) {
      const error = await mr.retrievalRequests.list({ updated_since: date }).catch((e) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.issues).toEqual([{ path: "updated_since", message: expect.any(String) }]);
    }
    expect(seen).toHaveLength(bounds.length);
  });

  it("refuses an invalid Date with a ValidationError naming the parameter, nothing sent", async () => {
    const { mr, seen } = client();
    const invalid = new Date("not a date");
    const errors = await Promise.all([
      mr.events.list({ created_before: invalid }).catch((e) => e),
      mr.retrievalRequests.list({ updated_since: invalid }).catch((e) => e),
      (async () => {
        for await (const _ of mr.retrievalRequests.changes({ since: invalid })) {
          // never reached
        }
      })().catch((e) => e),
    ]);
    for (const error of errors) expect(error).toBeInstanceOf(ValidationError);
    expect(errors[0].issues).toEqual([
      { path: "created_before", message: "Expected an ISO 8601 date-time or a valid Date" },
    ]);
    expect(errors[2].issues).toEqual([{ path: "updated_since", message: expect.any(String) }]);
    expect(seen).toHaveLength(0);
  });

  it("the reference server, which parses the query string strictly, accepts what a Date becomes", async () => {
    const { mock, key } = setup();
    const mr = new MedRecords({ apiKey: key, baseUrl: mock.baseUrl, fetch: mock.fetch });
    const since = new Date(Date.parse(START) - 1);
    // A query value it could not read as a date-time would be a 400 validation_error.
    await expect(mr.retrievalRequests.list({ updated_since: since })).resolves.toMatchObject({
      results: [],
    });
    await expect(
      mr.events.list({ created_after: since, created_before: new Date(START) }),
    ).resolves.toMatchObject({ results: [] });
  });
});
