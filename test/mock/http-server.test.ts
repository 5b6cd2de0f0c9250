/**
 * `startMockServer`: the reference server over real loopback HTTP, talked to
 * with plain fetch (and node:http where a socket must be seen), as a suite
 * in another language would.
 */
import { Agent, createServer, request as httpRequest, type Server } from "node:http";
import { connect } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MedRecords } from "../../src/index.js";
import { type MockServer, MockServerListenError, startMockServer } from "../../src/mock/index.js";
import { openApiDocument } from "../../src/openapi/document.js";
import { closeServer, freePort, listenOn } from "../helpers/loopback.js";

const START = "2026-03-01T10:00:00.000Z";
const LOOPBACK_URL = /^http:\/\/127\.0\.0\.1:(\d+)$/;

const portOf = (url: string) => Number(new URL(url).port);

/** Resolves when something can listen on `port` again (and stops listening). */
async function canListenOn(port: number): Promise<boolean> {
  const probe = createServer();
  try {
    await listenOn(probe, port);
    return true;
  } catch {
    return false;
  } finally {
    await closeServer(probe);
  }
}

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

function useServer(options: Parameters<typeof startMockServer>[0] = {}) {
  const ref: { server: MockServer; key: string } = {} as never;
  beforeAll(async () => {
    ref.server = await startMockServer({ now: START, ...options });
    ref.key = ref.server.apiKeys.create();
  });
  afterAll(() => ref.server?.close());
  return ref;
}

async function api(
  server: MockServer,
  key: string,
  method: string,
  path: string,
  body?: unknown,
  init: RequestInit = {},
) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...init,
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    // biome-ignore lint/suspicious/noExplicitAny: JSON of many shapes, checked by each test
    body: (text === "" ? undefined : JSON.parse(text)) as any,
  };
}

describe("startMockServer addresses", () => {
  const ref = useServer();

  it("listens on free loopback ports by default, the storage origin on its own port", async () => {
    const { server } = ref;
    expect(server.url).toMatch(LOOPBACK_URL);
    expect(server.storageUrl).toMatch(LOOPBACK_URL);
    expect(server.url).toBe(server.baseUrl);
    expect(server.controlUrl).toBe(`${server.url}/__mock`);
    expect(portOf(server.url)).toBeGreaterThan(0);
    expect(portOf(server.storageUrl)).toBeGreaterThan(0);
    expect(portOf(server.storageUrl)).not.toBe(portOf(server.url));
    // Both really listen.
    expect(await accepts("127.0.0.1", portOf(server.url))).toBe(true);
    expect(await accepts("127.0.0.1", portOf(server.storageUrl))).toBe(true);
  });

  it("two servers started with the defaults get different ports", async () => {
    const other = await startMockServer();
    try {
      const ports = [ref.server.url, ref.server.storageUrl, other.url, other.storageUrl].map(
        portOf,
      );
      expect(new Set(ports).size).toBe(4);
    } finally {
      await other.close();
    }
  });

  // Linux routes all of 127.0.0.0/8 to loopback: a server bound to every
  // address would accept on 127.0.0.2 too; one bound to 127.0.0.1 refuses.
  it.runIf(process.platform === "linux")(
    "listens on 127.0.0.1 only, not on every address",
    async () => {
      expect(await accepts("127.0.0.1", portOf(ref.server.url))).toBe(true);
      expect(await accepts("127.0.0.2", portOf(ref.server.url))).toBe(false);
      expect(await accepts("127.0.0.2", portOf(ref.server.storageUrl))).toBe(false);
    },
  );

  it("serves the API and the control API on its url, and neither on the storage origin", async () => {
    const { server, key } = ref;
    const cases = await api(server, key, "GET", "/v2/cases");
    expect(cases.status).toBe(200);
    expect(cases.headers.get("x-request-id")).toMatch(/^req_/);
    const control = await fetch(server.controlUrl);
    expect(control.status).toBe(200);
    expect(await control.json()).toMatchObject({ base_url: server.url, now: START });

    for (const path of ["/__mock", "/__mock/clock", "/v2/cases"]) {
      const response = await fetch(`${server.storageUrl}${path}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(response.status, path).toBe(404);
      expect(await response.json()).toMatchObject({ error: { code: "not_found" } });
    }
  });

  it("answers TRACE with a 404 naming the method and the path, as every other unknown endpoint", async () => {
    // fetch refuses to send TRACE; node:http does not.
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const request = httpRequest(`${ref.server.url}/v2/cases/abc`, { method: "TRACE" }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      });
      request.on("error", reject);
      request.end();
    });
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.text)).toEqual({
      error: { code: "not_found", message: "No endpoint TRACE /v2/cases/abc." },
    });
    const get = await api(ref.server, ref.key, "GET", "/v2/nope");
    expect(get.body.error.message).toBe("No endpoint GET /v2/nope.");
  });

  it("serves GET /v2/openapi.json without a key, equal to openApiDocument()", async () => {
    const response = await fetch(`${ref.server.url}/v2/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toEqual(openApiDocument());
    // Every other API path still needs the key.
    const cases = await fetch(`${ref.server.url}/v2/cases`);
    expect(cases.status).toBe(401);
  });
});

describe("the client over real HTTP", () => {
  const ref = useServer();

  it("creates a case and uploads a document whose bytes download back from the storage origin", async () => {
    const { server, key } = ref;
    const mr = new MedRecords({ apiKey: key, baseUrl: server.url, validateResponses: true });
    const created = await mr.cases.create({ title: "Doe v. Acme", client_name: "Jane Doe" });
    expect(created.created_at).toBe(START);

    // Large and binary enough to cross several socket writes, every byte value included.
    const bytes = Uint8Array.from({ length: 300_000 }, (_, i) => (i * 7 + (i >> 8)) % 256);
    const document = await mr.cases.uploadDocument(created.id, {
      file: bytes,
      file_name: "scan.bin",
      file_type: "application/octet-stream",
    });
    expect(document).toMatchObject({ case_id: created.id, file_name: "scan.bin" });

    const { download_url } = await mr.documents.download(document.id);
    expect(download_url.startsWith(`${server.storageUrl}/`)).toBe(true);
    // A presigned address needs no key.
    const downloaded = await fetch(download_url);
    expect(downloaded.status).toBe(200);
    expect(downloaded.headers.get("content-type")).toBe("application/octet-stream");
    expect(new Uint8Array(await downloaded.arrayBuffer())).toEqual(bytes);

    const page = await mr.cases.list();
    expect(page.results.map((c) => c.id)).toEqual([created.id]);
  });
});

describe("close()", () => {
  it("frees both ports, refuses further connections, and may be called again", async () => {
    const server = await startMockServer();
    const ports = [portOf(server.url), portOf(server.storageUrl)];
    expect(await canListenOn(ports[0]!)).toBe(false);

    await server.close();
    expect(await accepts("127.0.0.1", ports[0]!)).toBe(false);
    await expect(fetch(`${server.url}/__mock`)).rejects.toThrow(TypeError);
    for (const port of ports) expect(await canListenOn(port)).toBe(true);

    // Idempotent: a second close resolves and does not disturb a new owner of the port.
    const newOwner = createServer((_req, res) => res.end("mine"));
    await listenOn(newOwner, ports[0]);
    try {
      await expect(server.close()).resolves.toBeUndefined();
      const response = await fetch(`http://127.0.0.1:${ports[0]}/`);
      expect(await response.text()).toBe("mine");
    } finally {
      await closeServer(newOwner);
    }
  });

  it("a server can listen again on the ports of one that closed", async () => {
    const first = await startMockServer();
    const port = portOf(first.url);
    const storagePort = portOf(first.storageUrl);
    await first.close();
    const second = await startMockServer({ port, storagePort });
    try {
      expect(second.url).toBe(`http://127.0.0.1:${port}`);
      expect(second.storageUrl).toBe(`http://127.0.0.1:${storagePort}`);
      expect((await fetch(`${second.url}/v2/openapi.json`)).status).toBe(200);
    } finally {
      await second.close();
    }
  });

  it("ends keep-alive connections and requests still in flight instead of waiting for them", async () => {
    const server = await startMockServer();
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    const get = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest(`${server.url}${path}`, { agent }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
          res.on("error", reject);
        });
        req.on("error", reject);
        req.end();
      });
    try {
      // An idle keep-alive socket.
      expect(await get("/__mock/clock")).toBe(200);
      // A request the server is still answering (a minute of injected latency).
      server.faults.set({ latencyMs: 60_000 });
      const pending = get("/v2/openapi.json");
      pending.catch(() => undefined);
      await sleep(100);

      const started = performance.now();
      await server.close();
      expect(performance.now() - started).toBeLessThan(2_000);
      await expect(pending).rejects.toThrow(/socket hang up|ECONNRESET/);
      for (const url of [server.url, server.storageUrl]) {
        expect(await canListenOn(portOf(url))).toBe(true);
      }
    } finally {
      agent.destroy();
      await server.close();
    }
  });
});

describe("listen errors", () => {
  let blocker: Server;
  let blocked: number;
  beforeAll(async () => {
    blocker = createServer();
    blocked = await listenOn(blocker);
  });
  afterAll(() => closeServer(blocker));

  it("an occupied API port rejects with MockServerListenError EADDRINUSE naming the port, leaving storage closed", async () => {
    const storagePort = await freePort();
    const error = await startMockServer({ port: blocked, storagePort }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MockServerListenError);
    expect(error).toMatchObject({
      name: "MockServerListenError",
      code: "EADDRINUSE",
      message: `API port ${blocked} on 127.0.0.1 is already in use.`,
    });
    expect(await canListenOn(storagePort)).toBe(true);
  });

  it("an occupied storage port rejects the same way and closes the API listener it opened", async () => {
    const port = await freePort();
    const error = await startMockServer({ port, storagePort: blocked }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MockServerListenError);
    expect(error).toMatchObject({
      code: "EADDRINUSE",
      message: `storage port ${blocked} on 127.0.0.1 is already in use.`,
    });
    expect(await accepts("127.0.0.1", port)).toBe(false);
    expect(await canListenOn(port)).toBe(true);
  });

  it.each([
    [{ port: -1 }, /port must be an integer from 0 to 65535/],
    [{ port: 65_536 }, /port must be an integer from 0 to 65535/],
    [{ port: 80.5 }, /port must be an integer from 0 to 65535/],
    [{ port: Number.NaN }, /port must be an integer from 0 to 65535/],
    [{ storagePort: 70_000 }, /storagePort must be an integer from 0 to 65535/],
  ])("%o rejects with a RangeError before listening", async (options, message) => {
    const error = await startMockServer(options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RangeError);
    expect((error as Error).message).toMatch(message);
  });
});

describe("faults over HTTP", () => {
  const ref = useServer();
  const titles = async () => {
    const list = await api(ref.server, ref.key, "GET", "/v2/cases?limit=100");
    expect(list.status).toBe(200);
    return (list.body.results as { title: string }[]).map((c) => c.title);
  };
  const createCase = (title: string) =>
    fetch(`${ref.server.url}/v2/cases`, {
      method: "POST",
      headers: { authorization: `Bearer ${ref.key}`, "content-type": "application/json" },
      body: JSON.stringify({ title, client_name: "Jane Doe" }),
    });

  afterAll(() => ref.server.faults.clear());

  it("a dropped connection fails plain fetch with a network error, after the write happened", async () => {
    ref.server.faults.set({ dropRate: 1 });
    // Status line and part of the body may arrive before the reset: reading the answer fails either way.
    await expect(createCase("Dropped v. After").then((r) => r.arrayBuffer())).rejects.toThrow(
      TypeError,
    );
    ref.server.faults.clear();
    expect(await titles()).toContain("Dropped v. After");
  });

  it('dropTiming "before" fails the fetch and applies nothing', async () => {
    ref.server.faults.set({ dropRate: 1, dropTiming: "before" });
    await expect(createCase("Dropped v. Before").then((r) => r.arrayBuffer())).rejects.toThrow(
      TypeError,
    );
    ref.server.faults.clear();
    expect(await titles()).not.toContain("Dropped v. Before");
  });

  it("a dropped answer is cut short: the status line, fewer bytes than Content-Length, then a reset", async () => {
    ref.server.faults.set({ dropRate: 1 });
    const seen: { status?: number; length?: number; received: number; error?: string } = {
      received: 0,
    };
    await new Promise<void>((resolve) => {
      const req = httpRequest(
        `${ref.server.url}/v2/cases`,
        {
          method: "POST",
          headers: { authorization: `Bearer ${ref.key}`, "content-type": "application/json" },
        },
        (res) => {
          seen.status = res.statusCode;
          seen.length = Number(res.headers["content-length"]);
          res.on("data", (chunk: Buffer) => {
            seen.received += chunk.byteLength;
          });
          res.on("error", () => undefined);
        },
      );
      req.on("error", (error: NodeJS.ErrnoException) => {
        seen.error = error.code;
      });
      req.on("close", () => resolve());
      req.end(JSON.stringify({ title: "Cut v. Short", client_name: "Jane Doe" }));
    });
    ref.server.faults.clear();
    expect(seen.status).toBe(201);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.received).toBe(Math.floor(seen.length! / 2));
    expect(seen.error).toBe("ECONNRESET");
  });

  it("latency delays the answer by real time", async () => {
    ref.server.faults.set({ latencyMs: 300 });
    const started = performance.now();
    const response = await api(ref.server, ref.key, "GET", "/v2/cases");
    const elapsed = performance.now() - started;
    ref.server.faults.clear();
    expect(response.status).toBe(200);
    expect(elapsed).toBeGreaterThanOrEqual(290);
  });

  it("errorRate answers a 5xx of the API's error shape, not applied; the control API is never faulted", async () => {
    ref.server.faults.set({ errorRate: 1, errorStatuses: [503] });
    const failed = await api(ref.server, ref.key, "POST", "/v2/cases", {
      title: "Outage v. Acme",
      client_name: "Jane Doe",
    });
    expect(failed.status).toBe(503);
    expect(failed.body).toMatchObject({ error: { code: "service_unavailable" } });
    expect((await fetch(`${ref.server.controlUrl}/clock`)).status).toBe(200);
    ref.server.faults.clear();
    expect(await titles()).not.toContain("Outage v. Acme");
  });

  it("a 429 burst carries Retry-After, then requests are served again", async () => {
    ref.server.faults.set({ rateLimitBurst: 1, retryAfterSeconds: 7 });
    const limited = await api(ref.server, ref.key, "GET", "/v2/cases");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("7");
    expect(limited.body).toMatchObject({ error: { code: "rate_limited" } });
    expect((await api(ref.server, ref.key, "GET", "/v2/cases")).status).toBe(200);
    ref.server.faults.clear();
  });
});

describe("clients that go away", () => {
  const ref = useServer();
  afterAll(() => ref.server.faults.clear());

  it("a request aborted while the server waits does not break later requests", async () => {
    ref.server.faults.set({ latencyMs: 5_000 });
    const abort = new AbortController();
    const pending = fetch(`${ref.server.url}/v2/cases`, {
      headers: { authorization: `Bearer ${ref.key}` },
      signal: abort.signal,
    });
    setTimeout(() => abort.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    ref.server.faults.clear();
    expect((await api(ref.server, ref.key, "GET", "/v2/cases")).status).toBe(200);
  });

  it("an upload abandoned mid-body, and a download abandoned mid-body, leave the server serving", async () => {
    const { server, key } = ref;
    const created = await api(server, key, "POST", "/v2/cases", {
      title: "Half v. Way",
      client_name: "Jane Doe",
    });
    const signed = await api(server, key, "POST", `/v2/cases/${created.body.id}/sign-upload`, {
      file_name: "big.bin",
      file_type: "application/octet-stream",
    });
    const bytes = Uint8Array.from({ length: 2_000_000 }, (_, i) => i % 251);

    // Upload: headers and part of the body, then the client disappears.
    await new Promise<void>((resolve) => {
      const req = httpRequest(signed.body.upload_url, {
        method: "PUT",
        headers: {
          "content-type": "application/octet-stream",
          "content-length": String(bytes.byteLength),
        },
      });
      req.on("error", () => resolve());
      req.write(bytes.subarray(0, 1000), () => {
        setTimeout(() => req.destroy(), 50);
      });
      req.on("close", () => resolve());
    });

    // The same address still takes a whole upload.
    const put = await fetch(signed.body.upload_url, {
      method: "PUT",
      headers: { "content-type": "application/octet-stream" },
      body: bytes,
    });
    expect(put.status).toBe(200);
    const document = await api(server, key, "POST", `/v2/cases/${created.body.id}/documents`, {
      upload_id: signed.body.upload_id,
    });
    expect(document.status).toBe(201);

    // Download: read the first chunk, then give up.
    const link = await api(server, key, "GET", `/v2/documents/${document.body.id}/download`);
    const partial = await fetch(link.body.download_url);
    const reader = partial.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    await reader.cancel();

    // Still serving, bytes intact.
    const whole = await fetch(link.body.download_url);
    expect(new Uint8Array(await whole.arrayBuffer())).toEqual(bytes);
    expect((await api(server, key, "GET", "/v2/cases")).status).toBe(200);
  });
});
