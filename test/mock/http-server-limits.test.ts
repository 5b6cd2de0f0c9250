/**
 * The HTTP reference server's connection limits (MockServerLimits): a
 * connection that sends nothing, or trickles its headers, is answered 408 and
 * closed; an idle kept-alive one is closed; at `maxConnections` a new
 * connection closes the one idle the longest, or is closed at once when every
 * open one has a request in flight. Small limits through the internal options,
 * so no test waits for the defaults.
 */
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  MOCK_SERVER_LIMITS,
  type MockServer,
  type MockServerLimits,
  startMockServerInternal,
} from "../../src/mock/server/http-server.js";

let server: MockServer | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await server?.close();
  server = undefined;
});

async function start(limits: Partial<MockServerLimits>) {
  server = await startMockServerInternal({}, { limits: { checkIntervalMs: 25, ...limits } });
  return server;
}

/** A raw connection to `url`'s port: what it received, and when it closed (ms after opening). */
function open(url: string, send = "") {
  const { port } = new URL(url);
  const socket = connect(Number(port), "127.0.0.1");
  sockets.push(socket);
  const opened = performance.now();
  const state = { received: "", closedAfterMs: undefined as number | undefined };
  socket.on("data", (chunk: Buffer) => {
    state.received += chunk.toString("latin1");
  });
  socket.on("error", () => undefined);
  const closed = new Promise<void>((resolve) =>
    socket.on("close", () => {
      state.closedAfterMs = performance.now() - opened;
      resolve();
    }),
  );
  // Written now: queued before anything the test writes later, whenever the connection opens.
  if (send) socket.write(send);
  return { socket, state, closed };
}

/** Resolves when `closed` does, or after `ms` (then the connection is still open). */
const within = (closed: Promise<void>, ms: number) =>
  Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, ms))]);

describe("startMockServer's connection limits", () => {
  it("answers 408 to a connection that sends nothing, and closes it, on the API and storage ports", async () => {
    const s = await start({ headersTimeoutMs: 150 });
    for (const url of [s.url, s.storageUrl]) {
      const silent = open(url);
      await within(silent.closed, 3_000);
      expect(silent.state.closedAfterMs, url).toBeDefined();
      expect(silent.state.closedAfterMs!).toBeGreaterThanOrEqual(100);
      expect(silent.state.received).toMatch(/^HTTP\/1\.1 408 /);
    }
  });

  it("answers 408 to headers that never end", async () => {
    const s = await start({ headersTimeoutMs: 150 });
    const trickle = open(s.url, "GET /v2/cases HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
    const timer = setInterval(() => trickle.socket.write("a"), 20);
    try {
      await within(trickle.closed, 3_000);
    } finally {
      clearInterval(timer);
    }
    expect(trickle.state.received).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("closes a request whose body does not arrive within requestTimeoutMs", async () => {
    const s = await start({ headersTimeoutMs: 150, requestTimeoutMs: 300 });
    const slow = open(
      s.url,
      `POST /v2/cases HTTP/1.1\r\nHost: ${new URL(s.url).host}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"title":`,
    );
    await within(slow.closed, 3_000);
    expect(slow.state.closedAfterMs).toBeDefined();
  });

  it("closes a kept-alive connection left idle after its answer", async () => {
    const s = await start({ keepAliveTimeoutMs: 150 });
    const idle = open(s.url, `GET /__mock/clock HTTP/1.1\r\nHost: ${new URL(s.url).host}\r\n\r\n`);
    await within(idle.closed, 3_000);
    expect(idle.state.received).toMatch(/^HTTP\/1\.1 200 /);
    expect(idle.state.closedAfterMs).toBeDefined();
  });

  it("at maxConnections, closes the connection idle the longest to serve a new one", async () => {
    const s = await start({ maxConnections: 3, headersTimeoutMs: 10_000 });
    const host = new URL(s.url).host;
    const silent = open(s.url);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Answered, then kept alive: idle since its answer, after `silent` since it opened.
    const keptAlive = open(s.url, `GET /__mock/clock HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    await expect.poll(() => keptAlive.state.received).toMatch(/^HTTP\/1\.1 200 /);
    const third = open(s.url);
    await new Promise((resolve) => setTimeout(resolve, 50));

    const fourth = open(s.url, `GET /__mock/clock HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    await expect.poll(() => fourth.state.received).toMatch(/^HTTP\/1\.1 200 /);
    await within(silent.closed, 2_000);
    expect(silent.state.closedAfterMs).toBeDefined();
    expect(keptAlive.state.closedAfterMs).toBeUndefined();
    expect(third.state.closedAfterMs).toBeUndefined();

    // The next one takes the kept-alive connection's place: it has been idle the longest now.
    const fifth = open(s.url, `GET /__mock/clock HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    await expect.poll(() => fifth.state.received).toMatch(/^HTTP\/1\.1 200 /);
    await within(keptAlive.closed, 2_000);
    expect(keptAlive.state.closedAfterMs).toBeDefined();
    expect(third.state.closedAfterMs).toBeUndefined();
  });

  it("serves a new request with 1 024 idle connections open", async () => {
    const s = await start({ headersTimeoutMs: 60_000 });
    expect(MOCK_SERVER_LIMITS.maxConnections).toBe(1_024);
    const idle = Array.from({ length: 1_024 }, () => open(s.url));
    await Promise.all(
      idle.map(
        ({ socket }) => new Promise<void>((resolve) => socket.once("connect", () => resolve())),
      ),
    );
    // Every one accepted by the server before the new one arrives.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const answer = await fetch(`${s.url}/__mock/clock`, { headers: { connection: "close" } });
    expect(answer.status).toBe(200);
    await within(idle[0]!.closed, 2_000);
    expect(idle[0]!.state.closedAfterMs).toBeDefined();
    expect(idle.filter(({ state }) => state.closedAfterMs !== undefined).length).toBe(1);
  });

  it("closes a new connection at once when every open one has a request in flight", async () => {
    const s = await start({ maxConnections: 2, headersTimeoutMs: 10_000 });
    // Headers whole, body still to come: the control API waits for it.
    const pending = `POST /__mock/api-keys HTTP/1.1\r\nHost: ${new URL(s.url).host}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`;
    const first = open(s.url, pending);
    const second = open(s.url, pending);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const third = open(s.url);
    await within(third.closed, 2_000);
    expect(third.state.closedAfterMs).toBeDefined();
    expect(third.state.received).toBe("");
    expect(first.state.closedAfterMs).toBeUndefined();
    expect(second.state.closedAfterMs).toBeUndefined();

    first.socket.destroy();
    await first.closed;
    await new Promise((resolve) => setTimeout(resolve, 50));
    const answer = await fetch(`${s.url}/__mock/clock`, { headers: { connection: "close" } });
    expect(answer.status).toBe(200);
  });

  it("has limits that keep a silent client from holding a connection for minutes", () => {
    expect(MOCK_SERVER_LIMITS.headersTimeoutMs).toBeLessThanOrEqual(10_000);
    expect(MOCK_SERVER_LIMITS.keepAliveTimeoutMs).toBeLessThanOrEqual(5_000);
    expect(MOCK_SERVER_LIMITS.checkIntervalMs).toBeLessThanOrEqual(1_000);
    expect(MOCK_SERVER_LIMITS.maxConnections).toBeGreaterThan(0);
  });
});
