/**
 * The API key travels to `baseUrl`'s origin only. test/core/security.test.ts
 * shows a `next` link to one foreign host refused; here, over real sockets
 * where it matters: presigned upload addresses never get `Authorization` (nor
 * the client's other headers) on either transport, whatever their origin;
 * `next` links are followed with the key on the same origin only, every
 * look-alike origin refused; redirects are never followed, so neither the
 * key nor a body reaches the address a 3xx points to; and no SDK helper
 * fetches a download address.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { APIError, MedRecords, MedRecordsError } from "../../src/index.js";
import { createMockService } from "../../src/mock/index.js";
import { SENTINEL_API_KEY, SENTINEL_PHI } from "../setup/sentinels.js";

interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

type Answer = (req: Seen, origin: string) => { status: number; body?: unknown; location?: string };

interface TestServer {
  readonly origin: string;
  readonly seen: Seen[];
  answer: Answer;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

/** A node:http server on 127.0.0.1 that records every request and answers JSON. */
async function startServer(
  answer: Answer = () => ({ status: 200, body: {} }),
): Promise<TestServer> {
  const state = { seen: [] as Seen[], answer, origin: "" };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const seen = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      state.seen.push(seen);
      const { status, body, location } = state.answer(seen, state.origin);
      const headers: Record<string, string> = {
        "content-type": "application/json",
        "x-request-id": "req_test",
      };
      if (location !== undefined) headers.location = location;
      res.writeHead(status, headers).end(body === undefined ? "" : JSON.stringify(body));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

/** A list envelope with no items. */
const page = (next: string | null) => ({ results: [], next, previous: null });

const UPLOAD_ID = "6f1c9a52-3c1e-4d8e-9b7a-2f4b8c1d0e55";
const now = () => new Date().toISOString();

/**
 * An API that signs uploads to `storage(origin)` and creates documents; with
 * `expireFirst`, the first PUT is refused 403 as an expired address.
 */
function uploadApi(storage: (apiOrigin: string) => string): Answer {
  return (req, origin) => {
    if (req.path.endsWith("/sign-upload")) {
      return {
        status: 200,
        body: {
          upload_id: UPLOAD_ID,
          upload_url: `${storage(origin)}/put/${UPLOAD_ID}?X-Amz-Signature=abc`,
          expires_at: now(),
        },
      };
    }
    if (req.path.endsWith("/documents")) {
      return {
        status: 201,
        body: {
          id: "doc_1",
          case_id: "case_1",
          file_name: "f.pdf",
          file_size: 5,
          file_type: "application/pdf",
          path: null,
          archived: false,
          created_at: now(),
          updated_at: now(),
        },
      };
    }
    if (req.method === "PUT") return { status: 200 };
    return { status: 404, body: { error: { code: "not_found", message: "no" } } };
  };
}

/** A fetch over the real network that records what it was asked to send. */
function recordingFetch() {
  const requests: Request[] = [];
  const fetchFn = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    requests.push(request.clone());
    return globalThis.fetch(request);
  };
  return { fetch: fetchFn as typeof fetch, requests };
}

const file = () => ({
  file: new TextEncoder().encode("%PDF-"),
  file_name: "f.pdf",
  file_type: "application/pdf",
});

const clientHeaders = {
  defaultHeaders: { "x-firm": "firm-default", cookie: "session=s" },
};
const callHeaders = { headers: { "x-trace": "call-header" } };

function expectBare(put: { headers: Record<string, string | string[] | undefined> }) {
  expect(put.headers.authorization).toBeUndefined();
  expect(put.headers["x-firm"]).toBeUndefined();
  expect(put.headers.cookie).toBeUndefined();
  expect(put.headers["x-trace"]).toBeUndefined();
  expect(put.headers["content-type"]).toBe("application/pdf");
  expect(put.headers["content-length"]).toBe("5");
}

describe("presigned upload addresses never receive Authorization", () => {
  for (const where of ["another origin", "the API's own origin"] as const) {
    it(`over node:http (no custom fetch), on ${where}, with the client's and the call's headers set`, async () => {
      const storage = await startServer();
      const api = await startServer(
        uploadApi((origin) => (where === "another origin" ? storage.origin : origin)),
      );
      const mr = new MedRecords({
        apiKey: SENTINEL_API_KEY,
        baseUrl: api.origin,
        ...clientHeaders,
      });
      await mr.cases.uploadDocument("case_1", file(), callHeaders);

      const puts = [...storage.seen, ...api.seen].filter((s) => s.method === "PUT");
      expect(puts).toHaveLength(1);
      expectBare(puts[0]!);
      expect(puts[0]!.path).toBe(`/put/${UPLOAD_ID}?X-Amz-Signature=abc`);
      const calls = api.seen.filter((s) => s.method === "POST");
      expect(calls.map((c) => c.headers.authorization)).toEqual([
        `Bearer ${SENTINEL_API_KEY}`,
        `Bearer ${SENTINEL_API_KEY}`,
      ]);
      expect(calls.every((c) => c.headers["x-trace"] === "call-header")).toBe(true);
    });

    it(`through the caller's fetch, on ${where}, including the re-signed PUT after a 403`, async () => {
      const storage = await startServer();
      let refused = 0;
      const signAndPut = uploadApi((origin) =>
        where === "another origin" ? storage.origin : origin,
      );
      const expireFirst: Answer = (req, origin) =>
        req.method === "PUT" && refused++ === 0
          ? { status: 403, body: { error: { code: "upload_url_expired", message: "x" } } }
          : signAndPut(req, origin);
      storage.answer = expireFirst;
      const api = await startServer(expireFirst);
      const { fetch, requests } = recordingFetch();
      const mr = new MedRecords({
        apiKey: SENTINEL_API_KEY,
        baseUrl: api.origin,
        fetch,
        ...clientHeaders,
      });
      await mr.retrievalRequests.uploadFile({ ...file(), case_id: "case_1" }, callHeaders);

      const puts = requests.filter((r) => r.method === "PUT");
      expect(puts).toHaveLength(2);
      for (const put of puts) {
        expect(put.headers.get("authorization")).toBeNull();
        expect(put.headers.get("x-firm")).toBeNull();
        expect(put.headers.get("x-trace")).toBeNull();
      }
      const received = [...storage.seen, ...api.seen].filter((s) => s.method === "PUT");
      expect(received).toHaveLength(2);
      for (const put of received) expectBare(put);
      // Both signings went to the API with the key.
      expect(
        requests
          .filter((r) => r.url.endsWith("/sign-upload"))
          .map((r) => r.headers.get("authorization")),
      ).toEqual([`Bearer ${SENTINEL_API_KEY}`, `Bearer ${SENTINEL_API_KEY}`]);
    });
  }

  it("against the reference server: the storage origin sees no key, and no helper fetches a download address", async () => {
    const mock = createMockService({ delivery: "inbox" });
    const key = mock.apiKeys.create();
    const seen: Request[] = [];
    const mr = new MedRecords({
      apiKey: key,
      baseUrl: mock.baseUrl,
      fetch: async (input, init) => {
        const request = new Request(input, init);
        seen.push(request.clone());
        return mock.fetch(request);
      },
    });
    const created = await mr.cases.create({ title: "t", client_name: SENTINEL_PHI.clientName });
    const document = await mr.cases.uploadDocument(created.id, file());
    const before = seen.length;
    const { download_url } = await mr.documents.download(document.id);
    expect(new URL(download_url).origin).toBe(mock.storageUrl);
    // download() asked the API for the address and fetched nothing else.
    expect(seen.slice(before).map((r) => new URL(r.url).origin)).toEqual([mock.baseUrl]);

    const storage = seen.filter((r) => new URL(r.url).origin === mock.storageUrl);
    expect(storage.map((r) => r.method)).toEqual(["PUT"]);
    expect(storage[0]!.headers.get("authorization")).toBeNull();
    const api = seen.filter((r) => new URL(r.url).origin === mock.baseUrl);
    expect(api.every((r) => r.headers.get("authorization") === `Bearer ${key}`)).toBe(true);
  });
});

describe("next links", () => {
  const BASE = "https://api.medrecords.test";

  function pagedClient(next: string) {
    const seen: Request[] = [];
    const mr = new MedRecords({
      apiKey: SENTINEL_API_KEY,
      baseUrl: `${BASE}/`,
      fetch: async (input, init) => {
        const request = new Request(input, init);
        seen.push(request);
        return Response.json(page(seen.length === 1 ? next : null));
      },
    });
    return { mr, seen };
  }

  it.each([
    [`${BASE}/v2/cases?cursor=abc`, `${BASE}/v2/cases?cursor=abc`],
    ["/v2/cases?cursor=abc", `${BASE}/v2/cases?cursor=abc`],
    ["https://API.MedRecords.TEST/v2/cases?cursor=abc", `${BASE}/v2/cases?cursor=abc`],
    ["https://api.medrecords.test:443/v2/cases?cursor=abc", `${BASE}/v2/cases?cursor=abc`],
  ])("on the API's origin (%s) are followed with the key", async (next, fetched) => {
    const { mr, seen } = pagedClient(next);
    const pages = [];
    for await (const p of mr.cases.list().pages()) pages.push(p);
    expect(pages).toHaveLength(2);
    expect(seen.map((r) => r.url)).toEqual([`${BASE}/v2/cases`, fetched]);
    expect(seen.map((r) => r.headers.get("authorization"))).toEqual([
      `Bearer ${SENTINEL_API_KEY}`,
      `Bearer ${SENTINEL_API_KEY}`,
    ]);
  });

  it.each([
    "http://api.medrecords.test/v2/cases?cursor=abc", // downgraded scheme
    "https://api.medrecords.test:8443/v2/cases?cursor=abc", // another port
    "https://api.medrecords.test./v2/cases?cursor=abc", // trailing dot: another origin to URL
    "https://api.medrecords.test.evil.example/v2/cases?cursor=abc", // look-alike suffix
    "https://api.medrecords.test@evil.example/v2/cases?cursor=abc", // userinfo trick
    "//evil.example/v2/cases?cursor=abc", // scheme-relative
    "https://evil.example/v2/cases?cursor=abc",
  ])("on any other origin (%s) are refused before any request", async (next) => {
    const { mr, seen } = pagedClient(next);
    const items = [];
    const error = await (async () => {
      for await (const item of mr.cases.list()) items.push(item);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MedRecordsError);
    expect(String(error)).toContain("Refusing to follow a link");
    expect(String(error)).not.toContain(SENTINEL_API_KEY);
    expect(seen).toHaveLength(1);
  });
});

describe("redirects are never followed", () => {
  it.each([301, 302, 303, 307, 308])(
    "a %d from the API to another origin: the key and the body stay home",
    async (status) => {
      const foreign = await startServer(() => ({ status: 200, body: { id: "case_x" } }));
      const api = await startServer(() => ({ status, location: `${foreign.origin}/steal` }));
      const mr = new MedRecords({ apiKey: SENTINEL_API_KEY, baseUrl: api.origin, maxRetries: 2 });
      const errors = [
        await mr.cases
          .create({ title: "t", client_name: SENTINEL_PHI.clientName })
          .catch((e: unknown) => e),
        await mr.cases.retrieve("case_1").catch((e: unknown) => e),
      ];
      expect(foreign.seen).toEqual([]);
      // Not retried either: a redirect is an answer, not a failure to reach the API.
      expect(api.seen).toHaveLength(2);
      for (const error of errors) {
        expect(error).toBeInstanceOf(APIError);
        expect(error).toMatchObject({ status });
        expect((error as APIError).message).toMatch(/Redirect not followed/);
        expect(String(error)).not.toContain(SENTINEL_API_KEY);
      }
    },
  );

  it("a next link that redirects elsewhere is not followed either", async () => {
    const foreign = await startServer(() => ({ status: 200, body: page(null) }));
    const api = await startServer((req, origin) =>
      req.path.includes("cursor")
        ? { status: 302, location: `${foreign.origin}/v2/cases` }
        : {
            status: 200,
            body: { results: [], next: `${origin}/v2/cases?cursor=c`, previous: null },
          },
    );
    const mr = new MedRecords({ apiKey: SENTINEL_API_KEY, baseUrl: api.origin });
    const first = await mr.cases.list();
    await expect(first.getNextPage()).rejects.toMatchObject({ status: 302 });
    expect(foreign.seen).toEqual([]);
    expect(api.seen.map((s) => s.headers.authorization)).toEqual([
      `Bearer ${SENTINEL_API_KEY}`,
      `Bearer ${SENTINEL_API_KEY}`,
    ]);
  });
});
