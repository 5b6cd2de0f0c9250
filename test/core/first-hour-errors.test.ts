/**
 * The mistakes of a new user's first hour, each answered with what is wrong
 * and how to fix it: a key of another service's shape, a date that is not
 * YYYY-MM-DD, an id of another kind, a `baseUrl` ending in /v2, and a
 * service that cannot be reached (a loopback port with nothing on it, an
 * unknown host, the mock's test host without MSW listening).
 */
import { describe, expect, it } from "vitest";
import {
  AuthenticationError,
  ConnectionError,
  MedRecords,
  MedRecordsError,
  NotFoundError,
  ValidationError,
} from "../../src/index.js";
import { createMockService } from "../../src/mock/index.js";
import { freePort } from "../helpers/loopback.js";
import {
  API_KEY,
  apiError,
  BASE_URL,
  connectionError,
  scriptedFetch,
} from "../helpers/scripted-fetch.js";

const quiet = { logLevel: "off" as const, maxRetries: 0 };

function mockClient() {
  const mock = createMockService({ baseUrl: BASE_URL });
  const apiKey = mock.apiKeys.create();
  return { mock, apiKey, mr: new MedRecords({ apiKey, baseUrl: BASE_URL, fetch: mock.fetch }) };
}

async function rejection(promise: PromiseLike<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a rejection");
}

describe("a key of another service's shape", () => {
  const key = "sk_test_4eC39HqLyjWDarjtT1zdp7dc";

  it("the mock's 401 names the prefix of its keys, never the key", async () => {
    const { mock } = mockClient();
    const mr = new MedRecords({ apiKey: key, baseUrl: BASE_URL, fetch: mock.fetch, ...quiet });
    const error = await rejection(mr.cases.list());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.message).toContain("start with medrecords_sk_live_");
    expect(error.message).not.toContain(key);
    // The service's message says it: the client adds nothing.
    expect(error.message.match(/medrecords_sk_live_/g)).toHaveLength(1);
  });

  it("the client adds the prefix to a service's bare 401, for such a key only", async () => {
    const bare = () =>
      scriptedFetch([], apiError(401, "invalid_api_key", "The API key is not recognized."));
    const odd = new MedRecords({ apiKey: key, baseUrl: BASE_URL, fetch: bare().fetch, ...quiet });
    const error = await rejection(odd.cases.list());
    expect(error.message).toMatch(
      /^GET \/v2\/cases: 401 invalid_api_key: The API key is not recognized\. The API key given does not start with medrecords_sk_live_, the prefix of this service's keys/,
    );
    expect(error.message).not.toContain(key);
    const shaped = new MedRecords({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      fetch: bare().fetch,
      ...quiet,
    });
    expect((await rejection(shaped.cases.list())).message).not.toContain("does not start with");
  });
});

describe("a date that is not YYYY-MM-DD", () => {
  it("names the format, without a spurious 'in the past', in the client and in the mock", async () => {
    const { mr, apiKey, mock } = mockClient();
    const body = { title: "Doe v. Acme", client_name: "Jane Doe", date_of_injury: "11/03/2025" };
    const error = await rejection(mr.cases.create(body));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([
      {
        path: "date_of_injury",
        message: "Expected a date as YYYY-MM-DD (ISO 8601), such as 2025-11-03",
      },
    ]);
    const answer = await mock.fetch(
      new Request(`${BASE_URL}/v2/cases`, {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
    );
    expect(answer.status).toBe(400);
    const { error: served } = (await answer.json()) as { error: { message: string } };
    expect(served.message).toContain("YYYY-MM-DD");
    expect(served.message).not.toContain("past");
  });

  it("a well-formed date after today is still refused as not in the past", async () => {
    const { mr } = mockClient();
    const error = await rejection(
      mr.cases.create({ title: "T", client_name: "C", date_of_injury: "2999-01-01" }),
    );
    expect((error as ValidationError).issues).toEqual([
      { path: "date_of_injury", message: "Must be in the past" },
    ]);
  });
});

describe("an id of another kind", () => {
  it("a case id given as a retrieval request id: the 404 names both prefixes", async () => {
    const { mr } = mockClient();
    const kase = await mr.cases.create({ title: "Doe v. Acme", client_name: "Jane Doe" });
    const error = await rejection(mr.retrievalRequests.retrieve(kase.id));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toContain(
      "The retrieval_request_id given starts with case_, the prefix of a case id: retrieval_request_id takes a retrieval request id, which starts with ret_.",
    );
    // Only the prefix is quoted, never the id.
    expect(error.message).not.toContain(kase.id);
  });

  it("says nothing more for an id of the right kind, or of no known kind", async () => {
    const { mr } = mockClient();
    for (const id of ["ret_000000000000000000000000", "12345"]) {
      const error = await rejection(mr.retrievalRequests.retrieve(id));
      expect(error).toBeInstanceOf(NotFoundError);
      expect(error.message).not.toContain("prefix");
    }
  });

  it("a retrieval request's document id given as a case document id", async () => {
    const { mr } = mockClient();
    const error = await rejection(mr.documents.retrieve("rdoc_000000000000000000000000"));
    expect(error.message).toContain("starts with rdoc_");
    expect(error.message).toContain("which starts with doc_");
  });
});

describe("a baseUrl ending in /v2", () => {
  it.each(["https://api.example.com/v2", "https://api.example.com/v2/", "https://x.test/api/v2"])(
    "%s is refused: the client adds /v2 itself",
    (baseUrl) => {
      expect(() => new MedRecords({ apiKey: API_KEY, baseUrl })).toThrow(MedRecordsError);
      expect(() => new MedRecords({ apiKey: API_KEY, baseUrl })).toThrow(
        /ends in \/v2: give the service's address without it \(https:\/\/[^)]*[^2]\); the client adds \/v2 to every path itself/,
      );
    },
  );

  it("a path that only contains v2 is kept", () => {
    expect(new MedRecords({ apiKey: API_KEY, baseUrl: "https://x.test/v2api" }).baseUrl).toBe(
      "https://x.test/v2api",
    );
  });
});

describe("a service that cannot be reached", () => {
  it("ECONNREFUSED on loopback names the origin and what to check", async () => {
    const origin = `http://127.0.0.1:${await freePort()}`;
    const mr = new MedRecords({ apiKey: API_KEY, baseUrl: origin, ...quiet });
    const error = await rejection(mr.cases.list());
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toBe(
      `GET /v2/cases: connection to ${origin} failed (ECONNREFUSED): nothing is listening there. Check that the service is running (for a local \`medrecords mock\`, the address it printed) and \`baseUrl\` (or MEDRECORDS_BASE_URL).`,
    );
  });

  it("ENOTFOUND names the host", async () => {
    const { fetch } = scriptedFetch([], connectionError("ENOTFOUND"));
    const mr = new MedRecords({
      apiKey: API_KEY,
      baseUrl: "https://api.exmaple.com",
      fetch,
      ...quiet,
    });
    expect((await rejection(mr.cases.list())).message).toBe(
      "GET /v2/cases: connection to https://api.exmaple.com failed (ENOTFOUND): the host api.exmaple.com was not found. Check `baseUrl` (or MEDRECORDS_BASE_URL).",
    );
  });

  it.each(["ENOTFOUND", "ECONNREFUSED"] as const)(
    "%s for a *.medrecords.test host says MSW is not listening, or to pass fetch: mock.fetch",
    async (code) => {
      const { fetch } = scriptedFetch([], connectionError(code));
      const mr = new MedRecords({ apiKey: API_KEY, baseUrl: BASE_URL, fetch, ...quiet });
      const error = await rejection(mr.cases.list());
      expect(error.message).toContain(`connection to ${BASE_URL} failed (${code})`);
      expect(error.message).toContain("MSW is not listening");
      expect(error.message).toContain("`fetch: mock.fetch`");
    },
  );
});
