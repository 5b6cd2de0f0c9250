/**
 * Whether a proxy variable is set (`HTTPS_PROXY`, `HTTP_PROXY`, either case):
 * then, in Node and without a custom `fetch` or `dispatcher`, requests go
 * through src/core/node-proxy.ts, loaded only then.
 */
export function proxyConfigured(): boolean {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
    ?.env;
  return Boolean(env?.HTTPS_PROXY || env?.https_proxy || env?.HTTP_PROXY || env?.http_proxy);
}
