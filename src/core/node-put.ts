import { proxyConfigured } from "../internal/proxy-env.js";

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

export async function nodePut(
  url: string,
  body: BodyInit,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<Response> {
  const target = new URL(url);
  // `.default` is the module object itself, so patches applied to it (as
  // MSW's interceptors do) are seen; a named ESM import would miss them.
  const { request } = (
    target.protocol === "https:" ? await import("node:https") : await import("node:http")
  ).default;
  const { once } = (await import("node:events")).default;
  // Through the environment's proxy when one is set (src/core/node-proxy.ts).
  const agent = proxyConfigured()
    ? await (await import("./node-proxy.js")).proxyAgentFor(url)
    : undefined;
  const stream = new Response(body).body;
  return new Promise<Response>((resolve, reject) => {
    const req = request(target, { method: "PUT", headers, signal, agent }, (res) => {
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
    (async () => {
      if (stream) {
        for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
          if (!req.write(chunk)) await once(req, "drain");
        }
      }
      req.end();
    })().catch((error: unknown) => req.destroy(error as Error));
  });
}
