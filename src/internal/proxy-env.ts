import { readEnv } from "./env.js";

/**
 * Whether a proxy variable is set (`HTTPS_PROXY`, `HTTP_PROXY`, either case):
 * then, in Node and without a custom `fetch` or `dispatcher`, requests go
 * through src/core/node-proxy.ts, loaded only then.
 */
export function proxyConfigured(): boolean {
  return PROXY_VARIABLES.some((name) => readEnv(name) !== undefined);
}

const PROXY_VARIABLES = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"] as const;
