/**
 * The proxy of Node's streaming upload PUT (node-put.ts): a node:http(s)
 * `Agent` built on `proxyEnv` (Node 22.21+ and 24.5+), Node's own proxy
 * client: a CONNECT tunnel for https (the proxy sees only the host), the
 * absolute form for http, `NO_PROXY` honoured. API calls and downloads go
 * through `fetch` (transport.ts). Loaded on use (dynamic import).
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

/** The agent for an upload through node:http(s) to `url`. */
export function proxyAgentFor(url: string): Promise<Agent> {
  return agentFor(new URL(url).protocol);
}
