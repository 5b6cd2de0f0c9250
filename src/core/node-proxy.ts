/**
 * Proxies in Node without a dependency: when `HTTPS_PROXY`/`HTTP_PROXY` (or
 * lower-case) is set, requests go through node:http(s) with an `Agent` built
 * on `proxyEnv` (Node >= 22.21 and 24.5), Node's own proxy client: a CONNECT
 * tunnel for https (the key travels inside TLS, the proxy sees only the host),
 * the absolute form for http, `NO_PROXY` honoured. Node's `fetch` does the
 * same only when the process runs with `NODE_USE_ENV_PROXY=1`, which a
 * library cannot turn on. Loaded on use (dynamic import) by `proxyFromEnv`.
 */
import type { Agent } from "node:http";

const agents = new Map<string, Agent>();

/** One agent per protocol and proxy setting, so a changed environment is seen. Not keep-alive: a proxy may close a connection after each request, and a reused socket would then fail the next call. */
async function agentFor(protocol: string): Promise<Agent> {
  const { env } = process;
  const key = [
    protocol,
    env.HTTPS_PROXY,
    env.https_proxy,
    env.HTTP_PROXY,
    env.http_proxy,
    env.NO_PROXY,
    env.no_proxy,
  ].join("\n");
  let agent = agents.get(key);
  if (agent === undefined) {
    const mod =
      protocol === "https:"
        ? (await import("node:https")).default
        : (await import("node:http")).default;
    agent = new mod.Agent({ proxyEnv: { ...env } } as ConstructorParameters<typeof mod.Agent>[0]);
    agents.set(key, agent);
  }
  return agent;
}

/** A `fetch` over node:http(s) through the environment's proxy; the response body streams. */
export async function nodeFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const target = new URL(request.url);
  const { request: send } =
    target.protocol === "https:"
      ? (await import("node:https")).default
      : (await import("node:http")).default;
  const agent = await agentFor(target.protocol);
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const body = request.body === null ? undefined : new Uint8Array(await request.arrayBuffer());
  if (body !== undefined) headers["content-length"] = String(body.byteLength);
  return new Promise<Response>((resolve, reject) => {
    const req = send(
      target,
      { method: request.method, headers, agent, signal: request.signal },
      (res) => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined)
            responseHeaders.set(name, Array.isArray(value) ? value.join(", ") : value);
        }
        const status = res.statusCode ?? 500;
        const empty = status === 204 || status === 304 || request.method === "HEAD";
        const stream = empty
          ? null
          : new ReadableStream<Uint8Array>({
              start(controller) {
                res.on("data", (chunk: Buffer) => controller.enqueue(new Uint8Array(chunk)));
                res.on("end", () => controller.close());
                res.on("error", (error) => controller.error(error));
              },
              cancel() {
                res.destroy();
              },
            });
        if (empty) res.resume();
        resolve(
          new Response(stream, { status, statusText: res.statusMessage, headers: responseHeaders }),
        );
      },
    );
    req.on("error", (error) => reject(new TypeError("fetch failed", { cause: error })));
    req.end(body);
  });
}

/** The agent for an upload through node:http(s) to `url`. */
export function proxyAgentFor(url: string): Promise<Agent> {
  return agentFor(new URL(url).protocol);
}
