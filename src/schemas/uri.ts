/**
 * The RFC 3986 grammar of an absolute URI with an authority (`scheme://host…`),
 * ASCII only. WHATWG URL parsing (`new URL`, `z.url()`) is lenient: it takes
 * spaces, non-ASCII hosts and paths and rewrites them, so a value it accepts
 * may not be a URI, and the service would store and answer something that is
 * not the `uri` it documents (see docs/spec-decisions.md, Webhook management).
 */

const UNRESERVED_OR_SUB_DELIM = "A-Za-z0-9\\-._~!$&'()*+,;=";
const PCT = "%[0-9A-Fa-f]{2}";
const PCHAR = `(?:[${UNRESERVED_OR_SUB_DELIM}:@]|${PCT})`;
const REG_NAME = `(?:[${UNRESERVED_OR_SUB_DELIM}]|${PCT})+`;
// IPv6 or IPvFuture between brackets; WHATWG parsing checks the address itself.
const IP_LITERAL = "\\[[0-9A-Fa-f:.vV]+\\]";
const USERINFO = `(?:[${UNRESERVED_OR_SUB_DELIM}:]|${PCT})*@`;

const HOST = `(?:${IP_LITERAL}|${REG_NAME})`;
const PATH_QUERY_FRAGMENT = `(?:/${PCHAR}*)*(?:\\?(?:${PCHAR}|[/?])*)?(?:#(?:${PCHAR}|[/?])*)?`;
// 0 to 65535, leading zeros allowed, or empty (`host:`): the ports WHATWG parsing takes.
const PORT =
  "(?::(?:0*(?:[0-5]?[0-9]{1,4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?)?";

const ABSOLUTE_URI = new RegExp(
  `^[A-Za-z][A-Za-z0-9+\\-.]*://(?:${USERINFO})?${HOST}(?::[0-9]*)?${PATH_QUERY_FRAGMENT}$`,
);

/**
 * A webhook URL as the service takes it (docs/spec-decisions.md, Webhook
 * management): an absolute ASCII URI (RFC 3986) with the scheme http or https
 * in any case, a host, a port up to 65535, and no user info. Flag-free: the
 * OpenAPI document states it as the `pattern` of webhook URLs. The service
 * also parses the URL (WHATWG), which refuses hosts this grammar allows but
 * no URL can have (`[::zz]`, `%00`, a last label that is a number but not an
 * IPv4 address); a property test holds that this is the only difference.
 */
export const HTTP_URL_PATTERN = new RegExp(
  `^[Hh][Tt][Tt][Pp][Ss]?://${HOST}${PORT}${PATH_QUERY_FRAGMENT}$`,
);

/**
 * Why `value` is not an absolute ASCII URI with a host (RFC 3986), or
 * undefined when it is one.
 */
export function uriProblem(value: string): string | undefined {
  if (/[^\x21-\x7e]/.test(value)) {
    return "Must be an ASCII URI (RFC 3986): percent-encode spaces and other characters, and write an international host name in its xn-- form";
  }
  if (!ABSOLUTE_URI.test(value)) {
    return "Must be an absolute URI (RFC 3986): a character is not allowed where it stands; percent-encode it";
  }
  return undefined;
}

/** Whether a URI that passed {@link uriProblem} has a user info part, even an empty one (`https://@host/`). */
export function hasUserInfo(uri: string): boolean {
  const afterScheme = uri.slice(uri.indexOf("://") + 3);
  const authority = afterScheme.split(/[/?#]/, 1)[0] ?? "";
  return authority.includes("@");
}
