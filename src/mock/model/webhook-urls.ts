/**
 * Webhook URLs must be publicly reachable and must not resolve to a private
 * address (spec, Webhooks rule 6): otherwise the service becomes a way into
 * the network it runs in. Address literals are judged as written; a host name
 * is resolved and refused when any of its addresses is not public.
 *
 * The rule binds where a connection is made: each delivery attempt resolves
 * the name once, checks every address, and connects to a checked address
 * (see delivery-transport.ts), so a name that turns private between a check
 * and the connection (DNS rebinding) is never sent to. A name that cannot be
 * resolved is not sent to (fail closed). At creation nothing is sent: a name
 * that does not resolve is accepted (its deliveries fail), and names reserved
 * for testing are not looked up by the default resolver, so a test suite under
 * MSW sends no DNS query.
 */
import { MockApiError } from "../runtime/http-error.js";
import type { ModelContext } from "./state.js";

/**
 * Addresses of a host name; an empty list when it does not exist. Rejects
 * when the name cannot be resolved now (a timeout, SERVFAIL): a webhook URL's
 * host is then not sent to.
 */
export type LookupHost = ModelContext["lookupHost"];

/**
 * Names reserved for testing and documentation (RFC 2606, RFC 6761): they
 * never resolve publicly, so a webhook created with one is not looked up at
 * creation (nothing is sent then). A delivery that really connects resolves it
 * like any other name.
 */
export function isReservedTestName(hostname: string): boolean {
  return (
    /\.(test|example|invalid)$/.test(hostname) || /(^|\.)example\.(com|net|org)$/.test(hostname)
  );
}

/** DNS answers meaning "no such name", as opposed to "could not ask". */
const NOT_FOUND = new Set(["ENOTFOUND", "ENODATA", "EAI_NONAME", "EAI_NODATA"]);

/**
 * Resolves through the operating system (node:dns), loaded on use so that the
 * mock still runs where there is none; there every name counts as not
 * existing (and nothing is sent to it by the mock's own transport). A name
 * that does not exist is an empty list; any other failure rejects.
 */
export const defaultLookupHost: LookupHost = async (hostname) => {
  let lookup: typeof import("node:dns/promises").lookup;
  try {
    ({ lookup } = await import("node:dns/promises"));
  } catch {
    return [];
  }
  try {
    const found = await lookup(hostname, { all: true, verbatim: true });
    return found.map((entry) => entry.address);
  } catch (error) {
    if (NOT_FOUND.has((error as { code?: string }).code ?? "")) return [];
    throw error;
  }
};

/** Throws 400 invalid_request unless the URL's host is public (or private URLs are allowed). */
export async function assertPublicWebhookUrl(ctx: ModelContext, url: string): Promise<void> {
  if (ctx.allowPrivateWebhookUrls) return;
  const reason = await nonPublicHostReason(ctx, url, { atCreation: true });
  if (reason !== undefined) {
    throw new MockApiError(
      400,
      "invalid_request",
      `url: Must be publicly reachable; the host is ${reason}. Webhook URLs must not point at private, loopback, link-local or other non-public addresses. For a receiver on your machine: this mock accepts such URLs when started with --allow-private-webhook-urls (createMockService({ allowPrivateWebhookUrls: true })), and \`medrecords listen --forward-to <url>\` delivers the events of any service, the real one included, to a local URL without a webhook.`,
    );
  }
}

/** The host of a webhook URL as the rule judges it: lower case, no trailing dot, no brackets. */
export function webhookHost(url: string): { host: string; literal: boolean } {
  // WHATWG parsing already rewrote decimal, octal and hex IPv4 forms (2130706433,
  // 0177.0.0.1, 0x7f.1) to dotted decimal, and IPv6 to its compressed form.
  const host = new URL(url).hostname.toLowerCase().replace(/\.$/, "");
  if (host.startsWith("[")) return { host: host.slice(1, -1), literal: true };
  return { host, literal: parseIPv4(host) !== undefined };
}

/**
 * Why the URL's host is not public ("a loopback address", "a name that
 * resolves to a private address"), or undefined when it is, as far as a
 * check before sending can tell: a name that does not exist passes (nothing
 * can reach it). A lookup that fails is a reason (fail closed). At creation,
 * names reserved for testing are not looked up.
 */
export async function nonPublicHostReason(
  ctx: ModelContext,
  url: string,
  options: { atCreation?: boolean; publicForTesting?: ReadonlySet<string> } = {},
): Promise<string | undefined> {
  const { host, literal } = webhookHost(url);
  if (literal) return addressReason(host, options.publicForTesting);
  const localhost = localhostReason(host);
  if (localhost !== undefined) return localhost;
  // Delivered in-process (`deliverTo`): the name is never reached, so nothing is looked up.
  if (ctx.delivery.deliverTo !== undefined) return undefined;
  // Only the DNS default skips them: a resolver given to the mock answers for every name.
  if (options.atCreation && ctx.lookupHost === defaultLookupHost && isReservedTestName(host)) {
    return undefined;
  }
  let addresses: readonly string[];
  try {
    addresses = await ctx.lookupHost(host);
  } catch (error) {
    return unresolvableReason(error);
  }
  return addressesReason(addresses, options.publicForTesting);
}

/** "a localhost name" for `localhost` and its subdomains, which resolve to loopback by definition. */
export function localhostReason(host: string): string | undefined {
  return host === "localhost" || host.endsWith(".localhost") ? "a localhost name" : undefined;
}

/** Why a list of a name's addresses is refused: any one that is not public. */
export function addressesReason(
  addresses: readonly string[],
  publicForTesting?: ReadonlySet<string>,
): string | undefined {
  for (const address of addresses) {
    const found = addressReason(address, publicForTesting);
    if (found) return `a name that resolves to ${found}`;
  }
  return undefined;
}

function addressReason(address: string, publicForTesting?: ReadonlySet<string>) {
  return publicForTesting?.has(address) ? undefined : nonPublicReason(address);
}

/** The reason given for a name whose lookup failed. */
export function unresolvableReason(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return `a name that could not be resolved${typeof code === "string" ? ` (${code})` : ""}`;
}

/** Why an IP address is not public ("a loopback address"), or undefined when it is public. */
export function nonPublicReason(address: string): string | undefined {
  const v4 = parseIPv4(address);
  if (v4) return ipv4Reason(v4);
  const v6 = parseIPv6(address);
  if (v6) return ipv6Reason(v6);
  // Not an address at all: refuse rather than guess.
  return "not a valid IP address";
}

/** The four octets of a dotted-decimal IPv4 address. */
export function parseIPv4(text: string): number[] | undefined {
  const parts = text.split(".");
  const isOctet = (part: string) => /^(0|[1-9]\d{0,2})$/.test(part) && Number(part) <= 255;
  return parts.length === 4 && parts.every(isOctet) ? parts.map(Number) : undefined;
}

/** The eight 16-bit groups of an IPv6 address (zone id ignored, IPv4 tail allowed). */
export function parseIPv6(text: string): number[] | undefined {
  let rest = text.replace(/%.*$/, "");
  if (!/^[0-9a-f:.]+$/i.test(rest)) return undefined;
  if (rest.includes(".")) {
    // An IPv4 tail ("::ffff:1.2.3.4") is two groups written in decimal: rewrite it in hex.
    const lastColon = rest.lastIndexOf(":");
    const v4 = lastColon === -1 ? undefined : parseIPv4(rest.slice(lastColon + 1));
    if (!v4) return undefined;
    const [a, b, c, d] = v4 as [number, number, number, number];
    rest = `${rest.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = rest.split("::");
  if (halves.length > 2) return undefined;
  const groupsOf = (part: string | undefined): number[] | undefined => {
    if (part === undefined || part === "") return [];
    const groups = part.split(":");
    if (!groups.every((group) => /^[0-9a-f]{1,4}$/i.test(group))) return undefined;
    return groups.map((group) => Number.parseInt(group, 16));
  };
  const head = groupsOf(halves[0]);
  const back = groupsOf(halves[1]);
  if (!head || !back) return undefined;
  const explicit = head.length + back.length;
  if (halves.length === 1) return explicit === 8 ? head : undefined;
  if (explicit > 7) return undefined;
  return [...head, ...new Array<number>(8 - explicit).fill(0), ...back];
}

function inV4(octets: number[], prefix: readonly number[], bits: number): boolean {
  let remaining = bits;
  for (let i = 0; remaining > 0; i++, remaining -= 8) {
    const mask = remaining >= 8 ? 0xff : (0xff << (8 - remaining)) & 0xff;
    if (((octets[i] as number) & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

// Every range that is not globally reachable (IANA special-purpose registry).
const V4_RANGES: ReadonlyArray<[readonly number[], number, string]> = [
  [[0], 8, "an unspecified (this-network) address"],
  [[10], 8, "a private address"],
  [[100, 64], 10, "a shared (carrier-grade NAT) address"],
  [[127], 8, "a loopback address"],
  [[169, 254], 16, "a link-local address"],
  [[172, 16], 12, "a private address"],
  [[192, 0, 0], 24, "a reserved (IETF protocol) address"],
  [[192, 0, 2], 24, "a documentation address"],
  [[192, 168], 16, "a private address"],
  [[198, 18], 15, "a benchmarking address"],
  [[198, 51, 100], 24, "a documentation address"],
  [[203, 0, 113], 24, "a documentation address"],
  [[224], 4, "a multicast address"],
  [[240], 4, "a reserved or broadcast address"],
];

function ipv4Reason(octets: number[]): string | undefined {
  for (const [prefix, bits, reason] of V4_RANGES) if (inV4(octets, prefix, bits)) return reason;
  return undefined;
}

function ipv6Reason(g: number[]): string | undefined {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const embedded = (high: number, low: number) => [high >> 8, high & 0xff, low >> 8, low & 0xff];
  const zeroTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroTo(8)) return "an unspecified address";
  if (zeroTo(7) && g7 === 1) return "a loopback address";
  // A dual-stack socket connects to the embedded IPv4 address: a classic way
  // past address filters, and never needed for a public endpoint.
  if (zeroTo(5) && g5 === 0xffff) return "an IPv4-mapped IPv6 address";
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return "an IPv4-translated IPv6 address";
  if (zeroTo(6)) return "an IPv4-compatible IPv6 address";
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    const inner = ipv4Reason(embedded(g6, g7));
    return inner && `a NAT64 address of ${inner}`;
  }
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return "a local-use NAT64 address";
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return "a discard-only address";
  if (g0 === 0x2001 && g1 === 0) return "a Teredo tunnel address";
  if (g0 === 0x2001 && g1 === 0xdb8) return "a documentation address";
  if (g0 === 0x3fff && g1 < 0x1000) return "a documentation address";
  if (g0 === 0x2001 && g1 === 2 && g2 === 0) return "a benchmarking address";
  if (g0 === 0x2002) {
    const inner = ipv4Reason(embedded(g1, g2));
    return inner && `a 6to4 address of ${inner}`;
  }
  if ((g0 & 0xfe00) === 0xfc00) return "a unique-local address";
  if ((g0 & 0xffc0) === 0xfe80) return "a link-local address";
  if ((g0 & 0xffc0) === 0xfec0) return "a site-local address";
  if ((g0 & 0xff00) === 0xff00) return "a multicast address";
  // Every public address is global unicast (2000::/3); the rest is reserved
  // or unassigned, e.g. ::ffff:0:0:7f00:1 or 5f00::/16.
  if ((g0 & 0xe000) !== 0x2000) return "a reserved IPv6 address";
  return undefined;
}
