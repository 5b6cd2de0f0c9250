/**
 * useMockService under Vitest, inside MSW (msw 3 in the unit project, msw 2
 * in the msw2 project) and over HTTP; each describe block has its own mock.
 */
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { MedRecords } from "../../src/index.js";
import { FICTIONAL_CLIENTS, useMockService } from "../../src/testing/index.js";

const hooks = { beforeAll, afterAll, afterEach };

it("runs under the msw major this project expects", async () => {
  const pkg = (await import("msw/package.json", { with: { type: "json" } })) as {
    default: { version: string };
  };
  expect(pkg.default.version.split(".")[0]).toBe(process.env.MEDRECORDS_EXPECT_MSW_MAJOR ?? "3");
});

it("builds the mock's handlers with that same msw (loaded on first read of handlers)", async () => {
  const { loadMsw } = await import("../../src/mock/service/load-msw.js");
  expect(loadMsw().http).toBe((await import("msw")).http);
});

describe.each([
  ["inside MSW", { setupServer }],
  ["over HTTP", {}],
])("useMockService %s", (_, transport) => {
  const t = useMockService({
    hooks,
    ...transport,
    seed: (mock) => {
      mock.seed.case(FICTIONAL_CLIENTS[0]);
    },
  });
  const client = () => new MedRecords({ apiKey: t.apiKey, baseUrl: t.baseUrl, maxRetries: 0 });

  it("serves the baseline the seed left, to the SDK client", async () => {
    const cases = await client().cases.list();
    expect(cases.results.map((c) => c.client_name)).toEqual([FICTIONAL_CLIENTS[0]?.client_name]);
    expect(t.mock.requests.map((r) => r.pathTemplate)).toEqual(["/v2/cases"]);
  });

  it("changes state, the clock and faults in one test...", async () => {
    await client().cases.create({ title: "Extra v. Test", client_name: "Extra" });
    t.mock.clock.advance("1d");
    t.mock.faults.set({ errorRate: 1 });
  });

  it("...and the next test starts from the baseline again, with an empty journal", async () => {
    expect(t.mock.requests).toHaveLength(0);
    const cases = await client().cases.list();
    expect(cases.results).toHaveLength(1);
  });
});

it("refuses to be read before its beforeAll ran, saying why", () => {
  const registered: (() => unknown)[] = [];
  const t = useMockService({
    hooks: { beforeAll: (fn) => registered.push(fn), afterAll: () => {}, afterEach: () => {} },
  });
  expect(() => t.mock).toThrow(/starts in beforeAll/);
  expect(registered).toHaveLength(1);
});

it("without hooks and without runner globals, says how to pass them", () => {
  expect(() => useMockService()).toThrow(/Pass \{ hooks: \{ beforeAll, afterAll, afterEach \} \}/);
});
