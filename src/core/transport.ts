/**
 * How the client's requests reach the network: one transport, the platform's
 * `fetch` (or the caller's own). A proxy variable that is set is used, or
 * refused loudly; never silently bypassed. In Node, whose `fetch` reads the
 * variables only when the process was started with `NODE_USE_ENV_PROXY=1`:
 *
 * - started so (Node 22.21+ or 24.5+): its `fetch` already goes through them;
 * - otherwise, on Node 24.14+: Node's own proxy dispatcher (undici's
 *   `EnvHttpProxyAgent`, as `http.setGlobalProxyFromEnv` builds it from the
 *   variables read when the client is made) is given to `fetch` as its
 *   `dispatcher`; the process's global settings are restored at once;
 * - any other Node: a `MedRecordsError` saying what to do, unless the
 *   variables send the base URL's host direct (`NO_PROXY=localhost` for a
 *   local mock, say): the client is made then, its requests to hosts the
 *   variables send direct go direct, and any other is refused with that
 *   error (no-proxy.ts reads the variables as Node's `fetch` does).
 *
 * Deno and Bun read the variables themselves; browsers and Workers have none.
 * A custom `fetch` or a `fetchOptions.dispatcher` takes over routing.
 */
import { readEnv } from "../internal/env.js";
import { MedRecordsError } from "./errors.js";
import { goesDirect } from "./no-proxy.js";
import { isNode } from "./node-put.js";

/** The variables that name a proxy, and the one that exempts hosts from it. */
const PROXY_VARIABLES = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"] as const;
const NO_PROXY_VARIABLES = ["NO_PROXY", "no_proxy"] as const;

/** The proxy variables that are set (names only: a value can hold a password). */
export function proxyVariablesSet(): string[] {
  return PROXY_VARIABLES.filter((name) => readEnv(name) !== undefined);
}

/** The client's transport. */
export interface Transport {
  /** Unbound `fetch` for API calls, downloads and (outside Node's streaming PUT) uploads. */
  readonly fetch: typeof fetch;
  /** Whether requests go through a proxy named by the environment; Node's streaming PUT then does too. */
  readonly viaProxy: boolean;
  /**
   * Throws the `MedRecordsError` the client would have been refused with
   * when a request to `url` would bypass a proxy the environment names (a
   * Node that cannot use it, made for a base URL the variables send direct);
   * Node's streaming PUT calls it, as `fetch` does.
   */
  readonly checkRoute?: ((url: string) => void) | undefined;
}

/** What decides how a Node process can use a proxy variable. */
export interface NodeProxySupport {
  /** `process.versions.node`. */
  readonly version: string;
  /** Whether the process was started with `NODE_USE_ENV_PROXY=1` or `--use-env-proxy`. */
  readonly envProxyFlag: boolean;
  /** Whether `http.setGlobalProxyFromEnv` exists (Node 24.14+). */
  readonly setGlobalProxyFromEnv: boolean;
}

/**
 * How a Node process sends `fetch` requests through a proxy variable:
 * `"platform"` when its `fetch` already does, `"dispatcher"` when the
 * client can hand Node's own proxy dispatcher to `fetch`, `"unsupported"`
 * when neither.
 */
export function nodeProxyRoute(
  support: NodeProxySupport,
): "platform" | "dispatcher" | "unsupported" {
  const [major = 0, minor = 0] = support.version.split(".").map(Number);
  const readsEnvProxy =
    major >= 25 || (major === 24 && minor >= 5) || (major === 22 && minor >= 21);
  if (support.envProxyFlag && readsEnvProxy) return "platform";
  return support.setGlobalProxyFromEnv ? "dispatcher" : "unsupported";
}

/** The transport of a client made with `options`, deciding once, as the key is read. */
export function transportFor(options: {
  readonly fetch?: typeof fetch | undefined;
  readonly fetchOptions?: Readonly<Record<string, unknown>> | undefined;
  /** The client's base URL: a Node that cannot use the proxy may still reach it direct. */
  readonly baseUrl?: string | undefined;
}): Transport {
  // Looked up on each call, so that a `fetch` stubbed after the client was made is used.
  const platform: typeof fetch = (input, init) => globalThis.fetch(input, init);
  if (options.fetch !== undefined) return { fetch: options.fetch, viaProxy: false };
  const set = proxyVariablesSet();
  if (set.length === 0 || !isNode()) return { fetch: platform, viaProxy: false };
  if (options.fetchOptions?.dispatcher !== undefined) return { fetch: platform, viaProxy: false };
  const http = nodeHttp();
  const route = nodeProxyRoute({
    version: process.versions.node,
    envProxyFlag: envProxyFlag(),
    setGlobalProxyFromEnv: typeof http?.setGlobalProxyFromEnv === "function",
  });
  if (route === "platform") return { fetch: platform, viaProxy: true };
  if (route === "unsupported" || http === undefined) {
    if (options.baseUrl === undefined || !goesDirect(options.baseUrl)) throw unusableProxy(set);
    return directOnly(platform, set);
  }
  const dispatcher = proxyDispatcher(http);
  return {
    fetch: (input, init) => globalThis.fetch(input, { ...init, dispatcher } as RequestInit),
    viaProxy: true,
  };
}

function unusableProxy(set: readonly string[]): MedRecordsError {
  return new MedRecordsError(
    `${set.join(" and ")} ${set.length > 1 ? "are" : "is"} set, but Node.js ${process.versions.node} does not send fetch requests through a proxy unless started with NODE_USE_ENV_PROXY=1 (Node 22.21+ or 24.5+), and cannot be told to from a library before Node 24.14. Start Node with NODE_USE_ENV_PROXY=1, upgrade Node, pass your own \`fetch\` or \`fetchOptions: { dispatcher }\` (undici's EnvHttpProxyAgent, say), list the host in NO_PROXY, or unset the variable.`,
  );
}

/**
 * Where the proxy cannot be used but the base URL's host is sent direct:
 * requests the variables send direct go so, as the proxy dispatcher would
 * send them; any other (a presigned address on a host not exempted) is
 * refused, never sent around the proxy.
 */
function directOnly(platform: typeof fetch, set: readonly string[]): Transport {
  const checkRoute = (url: string) => {
    if (!goesDirect(url)) throw unusableProxy(set);
  };
  return {
    fetch: (input, init) => {
      try {
        checkRoute(input instanceof Request ? input.url : String(input));
      } catch (error) {
        return Promise.reject(error);
      }
      return platform(input, init);
    },
    viaProxy: false,
    checkRoute,
  };
}

type NodeHttp = typeof import("node:http");

function nodeHttp(): NodeHttp | undefined {
  const get = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  return get?.("node:http") as NodeHttp | undefined;
}

function envProxyFlag(): boolean {
  const flag = "--use-env-proxy";
  return (
    readEnv("NODE_USE_ENV_PROXY") === "1" ||
    process.execArgv.includes(flag) ||
    (readEnv("NODE_OPTIONS") ?? "").split(/\s+/).includes(flag)
  );
}

/** Where undici (Node's `fetch`) keeps the global dispatcher, shared by every copy of it. */
const GLOBAL_DISPATCHER = Symbol.for("undici.globalDispatcher.1");

/** Dispatchers per proxy setting, so clients made alike share one pool of connections. */
const dispatchers = new Map<string, unknown>();

/**
 * Node's proxy dispatcher (undici's `EnvHttpProxyAgent`, which reads the
 * variables as they are now). Node exports no constructor for it, but
 * `http.setGlobalProxyFromEnv` installs one: it is taken before the function
 * that call returns puts the process's own settings back (nothing runs in
 * between). Plain-http requests go to the proxy in absolute form, not
 * through a CONNECT tunnel, as Node's own `http.Agent` proxy sends them
 * (the upload PUT's): a proxy then sees, logs and filters every request
 * alike. https is always a CONNECT tunnel, so the proxy sees only the host.
 */
function proxyDispatcher(http: NodeHttp): unknown {
  const env: Record<string, string> = {};
  for (const name of [...PROXY_VARIABLES, ...NO_PROXY_VARIABLES]) {
    const value = readEnv(name);
    if (value !== undefined) env[name] = value;
  }
  const key = JSON.stringify(env);
  let dispatcher = dispatchers.get(key);
  if (dispatcher === undefined) {
    const restore = http.setGlobalProxyFromEnv(env);
    let installed: unknown;
    try {
      installed = (globalThis as Record<symbol, unknown>)[GLOBAL_DISPATCHER];
    } finally {
      restore();
    }
    const EnvHttpProxyAgent = (installed as { constructor?: unknown } | undefined)?.constructor;
    if (typeof EnvHttpProxyAgent !== "function" || EnvHttpProxyAgent === Object) {
      throw new MedRecordsError(
        `Node.js ${process.versions.node} gave no proxy dispatcher for ${Object.keys(env).join(", ")}: pass \`fetchOptions: { dispatcher }\` (undici's EnvHttpProxyAgent, say).`,
      );
    }
    dispatcher = new (EnvHttpProxyAgent as new (options: object) => unknown)({
      proxyTunnel: false,
    });
    dispatchers.set(key, dispatcher);
  }
  return dispatcher;
}
