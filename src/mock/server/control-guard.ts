/**
 * Who may call the control API over HTTP. It has no authentication and mints
 * full-scope keys, so two browser attacks would otherwise reach it from any
 * page the developer visits (docs/spec-decisions.md, "Reference server
 * conventions"):
 *
 * - a cross-site request: a page POSTs `text/plain` (a "simple" request, sent
 *   without a CORS preflight) and the key is minted even though the page
 *   cannot read the answer. Browsers name the page in `Origin`, so a request
 *   whose `Origin` is not the server's own is refused with 403.
 * - DNS rebinding: the attacker's host name is made to resolve to 127.0.0.1,
 *   so the page is same-origin with the mock and can read answers. The
 *   request still says `Host: attacker.example`, so a `Host` that is not an
 *   address the server listens on is refused with 421 Misdirected Request.
 *
 * Only the HTTP adapter can apply this: it alone knows the listening address.
 */
import { isIPv4 } from "node:net";
import { hostname, networkInterfaces } from "node:os";
import { MockApiError } from "../runtime/http-error.js";

/** Checks a control API request's `Host` and `Origin`; returns the refusal, or undefined to serve it. */
export type ControlGuard = (request: {
  host: string | undefined;
  origin: string | undefined;
}) => MockApiError | undefined;

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/** Whether `host` (an address or name to listen on) is this machine's loopback. */
export function isLoopbackHost(host: string): boolean {
  const name = hostOf(host);
  if (name === undefined) return false;
  return name === "localhost" || name === "[::1]" || (isIPv4(name) && name.startsWith("127."));
}

/** Whether `host` listens on every interface. */
export function isWildcardHost(host: string): boolean {
  const name = host === "" ? "0.0.0.0" : hostOf(host);
  return name === "0.0.0.0" || name === "[::]";
}

/**
 * The guard for a server listening on `host`:`port`. The names accepted in
 * `Host` (each with `port`): on loopback, `localhost`, `127.0.0.1`, `[::1]`
 * and the address itself; on a wildcard address, those plus the machine's
 * host name and the addresses its network interfaces have at start; on any
 * other address or name, that one only. `Origin` must be `http://` and one of
 * the same host:port pairs.
 */
export function controlGuard(host: string, port: number): ControlGuard {
  const names = isWildcardHost(host)
    ? [...LOOPBACK_NAMES, ...machineNames()]
    : [hostOf(host), ...(isLoopbackHost(host) ? LOOPBACK_NAMES : [])];
  const accepted = new Set(
    names.flatMap((name) => (name === undefined ? [] : (authorityOf(`${name}:${port}`) ?? []))),
  );
  const listening = [...accepted].join(", ");

  return ({ host: hostHeader, origin }) => {
    const authority = hostHeader === undefined ? undefined : authorityOf(hostHeader);
    if (authority === undefined || !accepted.has(authority)) {
      return new MockApiError(
        421,
        "misdirected_request",
        `The control API answers only requests addressed to where it listens (Host ${listening}); this one names ${hostHeader === undefined ? "no Host" : "another host"}. Use the address medrecords mock printed.`,
      );
    }
    if (origin !== undefined && !isOwnOrigin(origin, accepted)) {
      return new MockApiError(
        403,
        "forbidden_origin",
        "The control API refuses requests from web pages of another origin (the Origin header names another site): it has no authentication, so a page you visit must not drive it. Call it from a test or a tool such as curl, which send no Origin.",
      );
    }
    return undefined;
  };
}

/** `host:port` as URL serializes it (lowercase, IPv6 in brackets and compressed, no port 80), or undefined when it is not just an authority. */
function authorityOf(text: string): string | undefined {
  if (text === "" || /[/\\@?#\s]/.test(text)) return undefined;
  const url = `http://${text}`;
  return URL.canParse(url) ? new URL(url).host : undefined;
}

/** A host (no port) as URL serializes it: `[::1]` for `::1` or `[::1]`. */
function hostOf(host: string): string | undefined {
  const bracketed = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  const authority = authorityOf(bracketed);
  return authority === undefined ? undefined : new URL(`http://${authority}`).hostname;
}

function isOwnOrigin(origin: string, accepted: ReadonlySet<string>): boolean {
  // `null` (a sandboxed frame, a file: page) or several Origin fields joined do not parse: not this server.
  if (!URL.canParse(origin)) return false;
  const url = new URL(origin);
  return url.protocol === "http:" && url.origin === origin && accepted.has(url.host);
}

/** The host name and interface addresses (without IPv6 zone ids, which no Host can carry). */
function machineNames(): string[] {
  const addresses = Object.values(networkInterfaces()).flatMap((list) => list ?? []);
  const usable = addresses.filter((address) => address.family !== "IPv6" || !address.scopeid);
  return [hostname(), ...usable.map((a) => (a.family === "IPv6" ? `[${a.address}]` : a.address))];
}
