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

// A webhook's host, narrowed to what WHATWG URL parsing (the service's) can
// take: an IPv6 address in brackets as RFC 3986 writes it (no IPvFuture);
// percent-encoding only of characters a host may hold (never a control
// character, which the parser refuses once decoded); and a last label, a
// trailing dot aside, that is a number only in an IPv4 address of up to four
// numbers (decimal, octal or hex, as the parser reads them): `a.123` is
// refused. What it cannot tell: a number out of range (`256.0.0.1`), a
// percent-encoding that decodes to such a number, and Punycode.
const H16 = "[0-9A-Fa-f]{1,4}";
const DEC_OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])";
const LS32 = `(?:${H16}:${H16}|${DEC_OCTET}(?:\\.${DEC_OCTET}){3})`;
const IPV6 = `(?:(?:${H16}:){6}${LS32}|::(?:${H16}:){5}${LS32}|(?:${H16})?::(?:${H16}:){4}${LS32}|(?:(?:${H16}:){0,1}${H16})?::(?:${H16}:){3}${LS32}|(?:(?:${H16}:){0,2}${H16})?::(?:${H16}:){2}${LS32}|(?:(?:${H16}:){0,3}${H16})?::${H16}:${LS32}|(?:(?:${H16}:){0,4}${H16})?::${LS32}|(?:(?:${H16}:){0,5}${H16})?::${H16}|(?:(?:${H16}:){0,6}${H16})?::)`;
// %21 %24 %26-%2E %30-%39 %3B %3D %41-%5A %5F %61-%7A %7E: unreserved and sub-delims.
const HOST_PCT =
  "%(?:2[146-9A-Ea-e]|3[0-9BbDd]|4[1-9A-Fa-f]|5[0-9Aa]|5[Ff]|6[1-9A-Fa-f]|7[0-9Aa]|7[Ee])";
const HOST_CHAR = `(?:[${UNRESERVED_OR_SUB_DELIM}]|${HOST_PCT})`;
const NUMBER = "(?:0[xX][0-9A-Fa-f]*|0[0-7]*|[1-9][0-9]*)";
const ENCODED_LABEL = `(?:[^./?#:%]|${HOST_PCT})*${HOST_PCT}(?:[^./?#:%]|${HOST_PCT})*`;
const IPV4_NUMBERS = `(?:(?:${NUMBER}|${ENCODED_LABEL})\\.){0,3}${NUMBER}\\.?(?=[/?#:]|$)`;
const NUMERIC_LABEL = "(?:[0-9]+|0[xX][0-9A-Fa-f]*)";
const HOST_NAME = `(?!(?:[^./?#:]*\\.)*${NUMERIC_LABEL}\\.?(?:[/?#:]|$))${HOST_CHAR}+`;
const WEBHOOK_HOST = `(?:\\[${IPV6}\\]|${IPV4_NUMBERS}|${HOST_NAME})`;
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
 * in any case, a host (an IPv6 address in brackets, an IPv4 address of up
 * to four numbers, or a host name whose last label is not a number, with
 * percent-encoding only of characters a host may hold), a port up to 65535,
 * and no user info. Flag-free: the OpenAPI document states it as the
 * `pattern` of webhook URLs. The service also parses the URL (WHATWG), which
 * refuses a few hosts no pattern can tell: an IPv4 number out of range
 * (`256.0.0.1`), a percent-encoding that decodes to a numeric last label, and
 * (where the runtime checks it: Node 22, not 24) a label starting `xn--` that
 * is not valid Punycode; a property test holds that these are the only
 * differences.
 */
export const HTTP_URL_PATTERN = new RegExp(
  `^[Hh][Tt][Tt][Pp][Ss]?://${WEBHOOK_HOST}${PORT}${PATH_QUERY_FRAGMENT}$`,
);

/** Said when a URL fails {@link HTTP_URL_PATTERN} only by its host. */
export const WEBHOOK_HOST_RULE =
  "The host must be a host name whose last label is not a number, an IPv4 address, or an IPv6 address in brackets, percent-encoding only characters a host may hold";

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
