import type { Agent, ClientRequest } from "node:http";

/**
 * Node's fetch keeps every chunk of a streamed request body until the request
 * ends (nodejs/undici#4058), so a 1 GiB upload would hold 1 GiB. In Node the
 * upload helper therefore PUTs through node:http(s), writing a chunk only when
 * the socket has drained the last one. Loaded on use: other runtimes never see it.
 */
export function isNode(): boolean {
  const g = globalThis as {
    process?: { release?: { name?: string }; versions?: Record<string, string> };
    Deno?: unknown;
  };
  return g.process?.release?.name === "node" && !g.process.versions?.bun && g.Deno === undefined;
}

/**
 * Bytes the request may buffer before the next chunk waits for `drain`: two
 * 64 KiB chunks, so that a write the socket took at once lets the next chunk
 * follow without a round through the event loop (Node's default is 16 KiB,
 * below one chunk, so every chunk waited). Memory stays bounded by it.
 */
const WRITE_BUFFER = 256 * 1024;

/** Free sockets are closed after this long unused, as Node's global agent does. */
const IDLE_SOCKET_MS = 5_000;

/** Keep-alive agents per client and protocol: uploads of one client reuse their connections. */
const agents = new WeakMap<object, Map<string, Agent>>();

type NodeHttp = typeof import("node:http");

/**
 * The client's keep-alive agent for `protocol`. An idle socket is unref'd by
 * the agent (it never keeps the process alive) and closed after
 * `IDLE_SOCKET_MS`; the agent goes with the client.
 */
function keepAliveAgent(owner: object, protocol: string, http: NodeHttp): Agent {
  let byProtocol = agents.get(owner);
  if (byProtocol === undefined) {
    byProtocol = new Map();
    agents.set(owner, byProtocol);
  }
  let agent = byProtocol.get(protocol);
  if (agent === undefined) {
    agent = new http.Agent({ keepAlive: true, scheduling: "lifo", timeout: IDLE_SOCKET_MS });
    byProtocol.set(protocol, agent);
  }
  return agent;
}

/**
 * PUTs `body` to `url` through node:http(s) on `owner`'s keep-alive agent
 * (`owner`: the client), or through the environment's proxy when the client
 * found one set (`owner.viaProxy`).
 */
export async function nodePut(
  owner: { readonly viaProxy: boolean; readonly checkRoute?: ((url: string) => void) | undefined },
  url: string,
  body: BodyInit,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<Response> {
  // Refused, as the client's fetch would refuse it, where the proxy cannot be used and the host is not exempt.
  owner.checkRoute?.(url);
  const target = new URL(url);
  // `.default` is the module object itself, so patches applied to it (as
  // MSW's interceptors do) are seen; a named ESM import would miss them.
  const http = (
    target.protocol === "https:" ? await import("node:https") : await import("node:http")
  ).default as NodeHttp;
  // Through the environment's proxy when one is set (src/core/node-proxy.ts).
  const agent = owner.viaProxy
    ? await (await import("./node-proxy.js")).proxyAgentFor(url)
    : keepAliveAgent(owner, target.protocol, http);
  const stream = new Response(body).body;
  return new Promise<Response>((resolve, reject) => {
    // `highWaterMark` is honoured by ClientRequest (as by OutgoingMessage) but missing from @types/node.
    const options = { method: "PUT", headers, signal, agent, highWaterMark: WRITE_BUFFER };
    const req = http.request(target, options as import("node:http").RequestOptions, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", reject);
      res.on("end", () => {
        const responseHeaders = new Headers();
        for (const [key, value] of Object.entries(res.headers)) {
          if (value !== undefined)
            responseHeaders.set(key, Array.isArray(value) ? value.join(", ") : value);
        }
        const status = res.statusCode ?? 500;
        const payload = status === 204 || status === 304 ? null : Buffer.concat(chunks);
        resolve(new Response(payload, { status, headers: responseHeaders }));
      });
    });
    req.on("error", reject);
    if (stream === null) {
      req.end();
      return;
    }
    writeStream(req, stream).catch((error: unknown) => req.destroy(error as Error));
  });
}

/**
 * Writes `stream` to `req`, reading the next chunk while the socket sends the
 * last one and writing it once the socket has drained: at most two chunks
 * held, and the read overlaps the send.
 */
async function writeStream(req: ClientRequest, stream: ReadableStream<Uint8Array>): Promise<void> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (req.writableNeedDrain) await drained(req);
      req.write(value);
    }
  } catch (error) {
    await reader.cancel(error).catch(() => undefined);
    throw error;
  }
  req.end();
}

/** Resolves on `drain`; rejects if the request fails or closes first. */
function drained(req: ClientRequest): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const done = (error?: Error) => {
      req.off("drain", onDrain);
      req.off("error", onError);
      req.off("close", onClose);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => done();
    const onError = (error: Error) => done(error);
    const onClose = () => done(new Error("The upload connection closed before the body was sent."));
    req.on("drain", onDrain);
    req.on("error", onError);
    req.on("close", onClose);
  });
}
