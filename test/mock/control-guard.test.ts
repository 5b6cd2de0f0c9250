/**
 * The control API over real HTTP answers only requests addressed to where the
 * server listens and not sent by a web page of another origin: a page the
 * developer visits must not mint keys or move the clock (a cross-site
 * `text/plain` POST, or DNS rebinding).
 */
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { hostname } from "node:os";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type MockServer, startMockServer } from "../../src/mock/index.js";
import { isLoopbackHost } from "../../src/mock/server/control-guard.js";

const START = "2026-03-01T10:00:00.000Z";
const EVIL = "https://evil.example";

interface Answer {
  status: number;
  contentType: string | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: JSON of several shapes, checked by each test
  body: any;
}

/** One request with exactly these headers (node:http, so Host and Origin are ours to set). */
function send(
  server: MockServer,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server.url}${path}`, { method, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: res.headers["content-type"],
          body:
            text === "" || res.headers["content-type"] !== "application/json"
              ? text
              : JSON.parse(text),
        }),
      );
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** What a web page's form or `fetch(..., { mode: "no-cors" })` sends: no preflight. */
const simplePost = (server: MockServer, path: string, headers: Record<string, string>) =>
  send(server, "POST", path, { "content-type": "text/plain", ...headers }, "{}");

function useServer(host?: string): { server: MockServer; port: number } {
  const ref = {} as { server: MockServer; port: number };
  beforeAll(async () => {
    ref.server = await startMockServer({ now: START, ...(host === undefined ? {} : { host }) });
    ref.port = Number(new URL(ref.server.url).port);
  });
  afterAll(() => ref.server?.close());
  afterEach(() => {
    vi.restoreAllMocks();
  });
  return ref;
}

function expectRefused(answer: Answer, status: 403 | 421): void {
  expect(answer).toMatchObject({
    status,
    contentType: "application/json",
    body: {
      error: {
        code: status === 403 ? "forbidden_origin" : "misdirected_request",
        message: expect.any(String),
      },
    },
  });
  expect(answer.body.api_key).toBeUndefined();
}

describe("the control API on loopback", () => {
  const ref = useServer();

  it("refuses a cross-site text/plain POST to /__mock/api-keys with 403, minting no key", async () => {
    const { server } = ref;
    const minted = vi.spyOn(server.apiKeys, "create");
    expectRefused(await simplePost(server, "/__mock/api-keys", { origin: EVIL }), 403);
    expect(minted).not.toHaveBeenCalled();
    // The same request without the page's Origin (curl) is served, through the same spy.
    const served = await simplePost(server, "/__mock/api-keys", {});
    expect(served.status).toBe(201);
    expect(minted).toHaveBeenCalledTimes(1);
  });

  it("refuses a cross-site clock move: the clock stays where it was", async () => {
    const { server } = ref;
    const before = server.clock.now().toISOString();
    const refused = await send(
      server,
      "POST",
      "/__mock/clock/advance",
      { "content-type": "text/plain", origin: EVIL },
      JSON.stringify({ by: "1h" }),
    );
    expectRefused(refused, 403);
    expect(server.clock.now().toISOString()).toBe(before);
  });

  it("serves requests with no Origin, its own origin, or its own origin under localhost or [::1]", async () => {
    const { server, port } = ref;
    const cases: Record<string, string>[] = [
      {},
      { origin: server.url },
      { host: `localhost:${port}`, origin: `http://localhost:${port}` },
      { host: `127.0.0.1:${port}`, origin: `http://localhost:${port}` },
      { host: `[::1]:${port}`, origin: `http://[::1]:${port}` },
      { host: `LocalHost:${port}` },
    ];
    for (const headers of cases) {
      const answer = await send(server, "POST", "/__mock/api-keys", headers);
      expect({ headers, status: answer.status }).toEqual({ headers, status: 201 });
      // The key minted works on the API.
      const listed = await send(server, "GET", "/v2/cases", {
        authorization: `Bearer ${answer.body.api_key}`,
      });
      expect(listed.status).toBe(200);
    }
  });

  it("guards the inspector as the rest: its page, files, state and redelivery refuse another Host (421) and another origin's page (403)", async () => {
    const { server, port } = ref;
    const reads = [
      "/__mock/ui",
      "/__mock/ui/inspector.js",
      "/__mock/ui/inspector.css",
      "/__mock/state",
    ];
    for (const path of reads) {
      expect({ path, status: (await send(server, "GET", path, {})).status }).toEqual({
        path,
        status: 200,
      });
      expect((await send(server, "GET", path, { origin: server.url })).status).toBe(200);
      expectRefused(await send(server, "GET", path, { host: `evil.example:${port}` }), 421);
      expectRefused(await send(server, "GET", path, { origin: EVIL }), 403);
    }
    const redeliver = "/__mock/webhooks/wh_x/deliveries/whdel_x/redeliver";
    expectRefused(await simplePost(server, redeliver, { origin: EVIL }), 403);
    expect((await simplePost(server, redeliver, { origin: server.url })).status).toBe(404);
  });

  it("refuses with 403 every Origin that is not its own: another port, https, null, the storage origin", async () => {
    const { server, port } = ref;
    const foreign = [
      `http://127.0.0.1:${port + 1}`,
      `http://127.0.0.1:${port - 1}`,
      `http://localhost:${port + 1}`,
      `https://127.0.0.1:${port}`,
      "http://127.0.0.1",
      `http://127.0.0.1.evil.example:${port}`,
      `http://127.0.0.1:${port}/page`,
      `${server.url}, ${EVIL}`,
      "null",
      server.storageUrl,
    ];
    for (const origin of foreign) {
      const answer = await send(server, "GET", "/__mock", { origin });
      expect({ origin, status: answer.status }).toEqual({ origin, status: 403 });
      expectRefused(answer, 403);
    }
  });

  it("refuses with 421 a Host that is not where it listens (DNS rebinding), even with a matching Origin", async () => {
    const { server, port } = ref;
    const minted = vi.spyOn(server.apiKeys, "create");
    const foreign = [
      `evil.example:${port}`,
      "evil.example",
      `127.0.0.1:${port + 1}`,
      "localhost",
      `127.0.0.1.evil.example:${port}`,
      `localhost.:${port}`,
    ];
    for (const host of foreign) {
      const answer = await simplePost(server, "/__mock/api-keys", {
        host,
        origin: `http://${host}`,
      });
      expect({ host, status: answer.status }).toEqual({ host, status: 421 });
      expectRefused(answer, 421);
    }
    expect(minted).not.toHaveBeenCalled();
  });

  it("refuses a request without a Host (HTTP/1.0) with 421", async () => {
    const { port } = ref;
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: "127.0.0.1", port });
      let out = "";
      socket.setEncoding("latin1");
      socket.on("data", (chunk: string) => {
        out += chunk;
      });
      socket.on("end", () => resolve(out));
      socket.on("error", reject);
      socket.end("POST /__mock/api-keys HTTP/1.0\r\nContent-Length: 0\r\n\r\n");
    });
    expect(raw).toMatch(/^HTTP\/1\.1 421 /);
    expect(raw).toContain('"code":"misdirected_request"');
    expect(raw).not.toContain("api_key");
  });

  it("leaves the /v2 API to its keys: an Origin or Host there changes nothing", async () => {
    const { server } = ref;
    const answer = await send(server, "GET", "/v2/openapi.json", {
      origin: EVIL,
      host: "evil.example",
    });
    expect(answer.status).toBe(200);
  });
});

describe("which listening addresses are loopback (no warning from medrecords mock --host)", () => {
  it.each([
    ["127.0.0.1", true],
    ["127.255.0.9", true],
    ["::1", true],
    ["[::1]", true],
    ["0:0:0:0:0:0:0:1", true],
    ["localhost", true],
    ["LOCALHOST", true],
    ["0.0.0.0", false],
    ["::", false],
    ["", false],
    ["128.0.0.1", false],
    ["192.168.1.5", false],
    ["::2", false],
    ["localhost.evil.example", false],
    ["127.0.0.1.evil.example", false],
  ])("%j: %s", (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});

describe("the control API on every interface (0.0.0.0)", () => {
  const ref = useServer("0.0.0.0");

  it("serves loopback names and the machine's host name, and refuses other hosts", async () => {
    const { server, port } = ref;
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `${hostname()}:${port}`]) {
      const answer = await send(server, "GET", "/__mock/clock", { host });
      expect({ host, status: answer.status }).toEqual({ host, status: 200 });
    }
    expectRefused(
      await send(server, "GET", "/__mock/clock", { host: `evil.example:${port}` }),
      421,
    );
    expectRefused(await send(server, "GET", "/__mock/clock", { origin: EVIL }), 403);
  });
});
