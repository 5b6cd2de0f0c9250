/**
 * The client against the reference server over real HTTP (`startMockServer`,
 * so a dropped connection is a real socket reset, after the status line and
 * half the body when `dropTiming` is "after") under `mock.faults`: 30 % 5xx
 * answers, a 429 burst and dropped connections, from a fixed seed.
 *
 * - Reads, page walks and idempotent updates (PATCH with absolute values) all
 *   complete with the right results, whether a 5xx strikes before the write
 *   or after it (the PATCH then lands twice, to the same state).
 * - Creates are retried only on 429 and refused connections (docs/spec-decisions.md,
 *   "retries of non-idempotent requests"): the server holds exactly the
 *   creates that returned a case plus those whose answer was lost after the
 *   write, and never one twice. Each failure's error is pinned.
 *
 * The SDK's backoff (0.5 s × 2^n with full jitter, capped at 8 s) has no
 * option to shorten it, so `Math.random` is pinned low while these tests run:
 * the jitter draw then makes a retry wait about a millisecond. Calls run one
 * at a time, so the seeded faults strike the same requests on every run.
 */
import {
  afterAll,
  beforeAll,
  beforeEach,
  describe,
  expect,
  it,
  type MockInstance,
  vi,
} from "vitest";
import {
  APIError,
  type Case,
  type CaseStatus,
  ConnectionError,
  InternalServerError,
  MedRecords,
  MedRecordsError,
  RateLimitError,
} from "../../src/index.js";
import { type MockFaultOptions, type MockServer, startMockServer } from "../../src/mock/index.js";

const SEED = 20_260_301;
/** The faults of every workload: errorTiming is added per scenario. */
const FAULTS = {
  errorRate: 0.3,
  rateLimitBurst: 4,
  retryAfterSeconds: 0,
  dropRate: 0.15,
} satisfies MockFaultOptions;

const CASES = 12;
const ROUNDS = 30;
const PAGE = 5;
const CREATES = 80;
const STATUSES: CaseStatus[] = ["pending", "closed", "archived", "active"];
const ERROR_CODES: Record<number, string> = {
  500: "internal_error",
  502: "bad_gateway",
  503: "service_unavailable",
};
const REQUEST_ID = /^req_[0-9a-f]{24}$/;

let server: MockServer;
let apiKey: string;
let random: MockInstance<() => number>;

beforeAll(async () => {
  server = await startMockServer();
  apiKey = server.apiKeys.create();
  random = vi.spyOn(Math, "random").mockReturnValue(0.001);
});
afterAll(async () => {
  random.mockRestore();
  await server.close();
});
beforeEach(() => {
  server.faults.clear();
  server.reset();
});

/** One attempt as the client's `onResponse` hook saw it: a status, or no response. */
type Attempt = number | "no response";

/** A client that records its attempts; `attempts` is cleared by the caller between calls. */
function client(options: { maxRetries?: number; maxRetryAfterMs?: number } = {}) {
  const attempts: Attempt[] = [];
  const mr = new MedRecords({
    apiKey,
    baseUrl: server.url,
    validateResponses: true,
    ...options,
    hooks: { onResponse: (info) => void attempts.push(info.status ?? "no response") },
  });
  return { mr, attempts };
}

async function everyCase(mr: MedRecords): Promise<Case[]> {
  const cases: Case[] = [];
  for await (const c of mr.cases.list({ limit: 100 })) cases.push(c);
  return cases;
}

/** What the server holds, read without faults. */
async function held(): Promise<Case[]> {
  const saved = server.faults.current();
  server.faults.clear();
  try {
    return await everyCase(client().mr);
  } finally {
    server.faults.set({ ...saved });
  }
}

function tally(attempts: readonly Attempt[]) {
  const count = (test: (a: Attempt) => boolean) => attempts.filter(test).length;
  return {
    ok: count((a) => typeof a === "number" && a < 300),
    rateLimited: count((a) => a === 429),
    serverErrors: count((a) => typeof a === "number" && a >= 500),
    dropped: count((a) => a === "no response"),
  };
}

describe.each(["before", "after"] as const)(
  '5xx at a rate of 0.3 (errorTiming "%s"), a 429 burst, drops at 0.15',
  (errorTiming) => {
    it("reads, page walks and idempotent updates all complete with the right results", async () => {
      const seeding = client().mr;
      // Newest first, as the list returns them.
      const expected = new Map<string, Case>();
      for (let i = 0; i < CASES; i++) {
        const created = await seeding.cases.create({
          title: `Case ${i}`,
          client_name: `Client ${i}`,
        });
        expected.set(created.id, created);
      }
      const order = [...expected.keys()].reverse();

      server.faults.set({ ...FAULTS, errorTiming, seed: SEED });
      // The default maxRetries (2) would leave about 1 call in 15 failing: (0.3 + 0.7 × 0.15)³.
      const { mr, attempts } = client({ maxRetries: 10 });
      let calls = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const id = order[(round * 5) % CASES]!;
        calls++;
        expect(await mr.cases.retrieve(id)).toEqual(expected.get(id));

        const title = `Case ${id} v${round}`;
        const status = STATUSES[round % STATUSES.length]!;
        calls++;
        const updated = await mr.cases.update(id, { title, status });
        expect(updated).toEqual({
          ...expected.get(id),
          title,
          status,
          updated_at: updated.updated_at,
        });
        expect(Date.parse(updated.updated_at)).toBeGreaterThan(
          Date.parse(expected.get(id)!.updated_at),
        );
        expected.set(id, updated);

        const listed: Case[] = [];
        const pages = mr.cases.list({ limit: PAGE });
        for await (const page of (await pages).pages()) {
          calls++;
          listed.push(...page.results);
        }
        expect(listed).toEqual(order.map((caseId) => expected.get(caseId)));
      }

      // The faults did strike, and every one of them was absorbed by a retry.
      const seen = tally(attempts);
      expect(seen.ok).toBe(calls);
      expect(seen.rateLimited).toBe(FAULTS.rateLimitBurst);
      expect(seen.serverErrors).toBeGreaterThan(calls * 0.2);
      expect(seen.dropped).toBeGreaterThan(calls * 0.05);
      expect(attempts.length).toBe(calls + seen.rateLimited + seen.serverErrors + seen.dropped);
      // Nothing was created or lost along the way.
      expect(new Map((await held()).map((c) => [c.id, c]))).toEqual(expected);
    });

    it("creates are never applied twice: the server holds the successes plus the answers lost after the write", async () => {
      server.faults.set({ ...FAULTS, errorTiming, seed: SEED + 1 });
      const { mr, attempts } = client(); // the default retries
      const succeeded = new Map<string, Case>();
      const failed: { title: string; error: unknown; attempts: Attempt[] }[] = [];
      for (let i = 0; i < CREATES; i++) {
        const title = `Create ${i}`;
        attempts.length = 0;
        try {
          succeeded.set(title, await mr.cases.create({ title, client_name: "Jane Doe" }));
          // Only 429s come before a success: nothing else is retried.
          expect(attempts.slice(0, -1).every((a) => a === 429)).toBe(true);
        } catch (error) {
          failed.push({ title, error, attempts: [...attempts] });
        }
      }

      const rateLimited = failed.filter((f) => f.error instanceof RateLimitError);
      const serverErrors = failed.filter((f) => f.error instanceof InternalServerError);
      const dropped = failed.filter((f) => f.error instanceof ConnectionError);
      // Every failure is one of the SDK's errors, of one of these three kinds.
      expect(rateLimited.length + serverErrors.length + dropped.length).toBe(failed.length);

      for (const { error, attempts: tried } of rateLimited) {
        // The burst outlasted the retries: three 429s, nothing applied.
        expect(tried).toEqual([429, 429, 429]);
        expect(error).toMatchObject({ status: 429, code: "rate_limited", retryAfterSeconds: 0 });
        expect((error as RateLimitError).requestId).toMatch(REQUEST_ID);
      }
      for (const { error, attempts: tried } of serverErrors) {
        // A 5xx on a create is never retried: the write may have happened.
        const status = tried.at(-1) as number;
        expect(tried.slice(0, -1).every((a) => a === 429)).toBe(true);
        expect(error).toBeInstanceOf(APIError);
        expect(error).toMatchObject({
          name: "InternalServerError",
          status,
          code: ERROR_CODES[status],
        });
        expect((error as APIError).requestId).toMatch(REQUEST_ID);
        expect((error as Error).message).toMatch(
          new RegExp(
            `^POST /v2/cases: ${status} ${ERROR_CODES[status]}: The service failed .*\\(request req_[0-9a-f]{24}\\)$`,
          ),
        );
      }
      for (const { error, attempts: tried } of dropped) {
        // A reset is not a refusal: not retried either, and no response means no request id.
        expect(tried.at(-1)).toBe("no response");
        expect(tried.slice(0, -1).every((a) => a === 429)).toBe(true);
        expect(error).toBeInstanceOf(MedRecordsError);
        expect(error).not.toBeInstanceOf(APIError);
        expect((error as Error).message).toMatch(
          /^POST \/v2\/cases: connection to http:\/\/127\.0\.0\.1:\d+ failed \(ECONNRESET\)\.$/,
        );
      }

      // Calls run one at a time, so the seed makes the run exact (the same counts for either
      // timing: the fault draws do not depend on it). They move only with the fault PRNG's draws
      // or the retry policy.
      expect({
        created: succeeded.size,
        rateLimited: rateLimited.length,
        serverErrors: serverErrors.length,
        dropped: dropped.length,
      }).toEqual({ created: 49, rateLimited: 1, serverErrors: 19, dropped: 11 });

      const cases = await held();
      const titles = cases.map((c) => c.title);
      // Never a create applied twice.
      expect(titles.length).toBe(new Set(titles).size);
      // Every create that returned a case is there, as returned.
      for (const [title, created] of succeeded) {
        expect(cases.find((c) => c.title === title)).toEqual(created);
      }
      // Exactly the successes, plus the creates whose answer was lost after the write:
      // every drop (dropTiming "after"), and the 5xx when errorTiming is "after".
      const lostAfterWrite = [...dropped, ...(errorTiming === "after" ? serverErrors : [])];
      expect(new Set(titles)).toEqual(
        new Set([...succeeded.keys(), ...lostAfterWrite.map((f) => f.title)]),
      );
      expect(cases.length).toBe(succeeded.size + lostAfterWrite.length);
    });
  },
);

describe("what a caller gets when every request fails one way", () => {
  const cases: {
    fault: string;
    faults: MockFaultOptions;
    options?: { maxRetryAfterMs: number };
    /** Whether the create reached the service's storage. */
    applied: boolean;
    /** Attempts of the create; a read is retried twice more when it may be. */
    createAttempts: Attempt[];
    readAttempts: Attempt[];
    error: (e: unknown) => void;
  }[] = [
    {
      fault: "a 503 before the write",
      faults: { errorRate: 1, errorStatuses: [503] },
      applied: false,
      createAttempts: [503],
      readAttempts: [503, 503, 503],
      error: (e) => {
        expect(e).toBeInstanceOf(InternalServerError);
        expect(e).toMatchObject({ status: 503, code: "service_unavailable" });
      },
    },
    {
      fault: "a 502 after the write",
      faults: { errorRate: 1, errorStatuses: [502], errorTiming: "after" },
      applied: true,
      createAttempts: [502],
      readAttempts: [502, 502, 502],
      error: (e) => {
        expect(e).toBeInstanceOf(InternalServerError);
        expect(e).toMatchObject({ status: 502, code: "bad_gateway" });
      },
    },
    {
      fault: "a connection reset after the write (status line and half the body sent)",
      faults: { dropRate: 1 },
      applied: true,
      createAttempts: ["no response"],
      readAttempts: ["no response", "no response", "no response"],
      error: (e) => {
        expect(e).toBeInstanceOf(ConnectionError);
        expect((e as Error).message).toMatch(
          /^(POST|GET) \S+: connection to http:\/\/\S+ failed \(ECONNRESET\)\.$/,
        );
      },
    },
    {
      fault: "a connection reset before the write",
      faults: { dropRate: 1, dropTiming: "before" },
      applied: false,
      createAttempts: ["no response"],
      readAttempts: ["no response", "no response", "no response"],
      error: (e) => {
        expect(e).toBeInstanceOf(ConnectionError);
        expect((e as Error).message).toMatch(
          /^(POST|GET) \S+: connection to http:\/\/\S+ failed \(ECONNRESET\)\.$/,
        );
      },
    },
    {
      fault: "a 429 burst longer than the retries",
      faults: { rateLimitBurst: 100, retryAfterSeconds: 0 },
      applied: false,
      createAttempts: [429, 429, 429],
      readAttempts: [429, 429, 429],
      error: (e) => {
        expect(e).toBeInstanceOf(RateLimitError);
        expect(e).toMatchObject({ status: 429, code: "rate_limited", retryAfterSeconds: 0 });
      },
    },
    {
      fault: "a 429 whose Retry-After exceeds maxRetryAfterMs",
      faults: { rateLimitBurst: 100, retryAfterSeconds: 2 },
      options: { maxRetryAfterMs: 1_000 },
      applied: false,
      createAttempts: [429],
      readAttempts: [429],
      error: (e) => {
        expect(e).toBeInstanceOf(RateLimitError);
        expect(e).toMatchObject({ status: 429, code: "rate_limited", retryAfterSeconds: 2 });
      },
    },
  ];

  it.each(cases)(
    "$fault",
    async ({ faults, options, applied, createAttempts, readAttempts, error }) => {
      const existing = await client().mr.cases.create({
        title: "Existing",
        client_name: "Jane Doe",
      });
      server.faults.set({ ...faults, seed: SEED });
      const { mr, attempts } = client(options);

      const created = await mr.cases
        .create({ title: "New", client_name: "Jane Doe" })
        .catch((e) => e);
      error(created);
      expect(attempts).toEqual(createAttempts);
      const titles = (await held()).map((c) => c.title);
      expect(titles.filter((t) => t === "New")).toHaveLength(applied ? 1 : 0);

      attempts.length = 0;
      const read = await mr.cases.retrieve(existing.id).catch((e) => e);
      error(read);
      expect(attempts).toEqual(readAttempts);
    },
  );
});
