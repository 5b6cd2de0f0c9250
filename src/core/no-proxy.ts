import { readEnv } from "../internal/env.js";

/**
 * Whether the environment's proxy variables send a request to `url`
 * straight to its host, read as Node's `fetch` (undici's
 * `EnvHttpProxyAgent`) reads them: no variable for its protocol
 * (`HTTPS_PROXY` serves https only, `HTTP_PROXY` both), or an entry of
 * `NO_PROXY` naming its host (`*`, the host itself, or `.domain` / `*.domain`
 * for the hosts under it; with `:port`, that port only).
 */
export function goesDirect(url: string): boolean {
  const target = new URL(url);
  const https = target.protocol === "https:";
  const proxy =
    (https ? (readEnv("https_proxy") ?? readEnv("HTTPS_PROXY")) : undefined) ??
    readEnv("http_proxy") ??
    readEnv("HTTP_PROXY");
  if (proxy === undefined) return true;
  const noProxy = readEnv("no_proxy") ?? readEnv("NO_PROXY");
  if (noProxy === undefined) return false;
  if (noProxy === "*") return true;
  const host = target.host.replace(/:\d*$/, "").toLowerCase();
  const port = Number.parseInt(target.port, 10) || (https ? 443 : 80);
  return noProxy
    .split(/[,\s]/)
    .filter((entry) => entry !== "")
    .some((entry) => {
      const [, name = entry, entryPort] = /^(.+):(\d+)$/.exec(entry) ?? [];
      if (entryPort !== undefined && Number(entryPort) !== port) return false;
      const hostname = name.toLowerCase();
      return /^[.*]/.test(hostname)
        ? host.endsWith(hostname.replace(/^\*/, ""))
        : host === hostname;
    });
}
