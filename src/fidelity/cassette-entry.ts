/**
 * Building and scrubbing cassette lines: the recorder turns each exchange
 * into an entry, and `medrecords cassette scrub` runs existing entries
 * through the same scrubbing.
 */
import { EMPTY_BODY, type Operation } from "../contract/operation.js";
import type { ObservedExchange } from "../core/exchange-observer.js";
import { CASSETTE_VERSION, type CassetteEntry } from "./cassette-format.js";
import { scrubbedJson } from "./scrub-json.js";
import type { Scrubber } from "./scrubber.js";

/**
 * Header names never written: credentials, cookies, and anything whose
 * name says it holds a key, a token, a secret or a signature.
 */
const CREDENTIAL_HEADER = /authorization|cookie|api-?key|token|secret|signature|session/i;

/** Headers without credentials, the API key replaced in every value left. */
export function safeHeaders(
  headers: Iterable<[string, string]>,
  redact: (text: string) => string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of headers) {
    const lower = name.toLowerCase();
    if (CREDENTIAL_HEADER.test(lower)) continue;
    out[lower] = redact(value);
  }
  return out;
}

/** Each operation's path template as a pattern and its parameter names, made once. */
const templates = new WeakMap<Operation, { pattern: RegExp; names: string[] }>();

function templateOf(op: Operation): { pattern: RegExp; names: string[] } {
  let template = templates.get(op);
  if (template === undefined) {
    const names: string[] = [];
    const source = op.path
      .replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
      .replace(/\\\{(\w+)\\\}/g, (_, name: string) => {
        names.push(name);
        return "([^/]+)";
      });
    template = { pattern: new RegExp(`${source}$`), names };
    templates.set(op, template);
  }
  return template;
}

/** The path parameters of `url` under `op`'s template, decoded; empty when it does not match. */
export function paramsOf(op: Operation, url: URL): Record<string, string> {
  const { pattern, names } = templateOf(op);
  const match = pattern.exec(url.pathname);
  if (match === null) return {};
  return Object.fromEntries(
    names.map((name, i) => [name, decodeURIComponent(match[i + 1] as string)]),
  );
}

/** An entry for an ended exchange, not yet scrubbed. */
export function entryOf(
  exchange: ObservedExchange,
  redact: (text: string) => string,
  at: string,
): CassetteEntry {
  const url = new URL(exchange.url);
  return {
    v: CASSETTE_VERSION,
    at,
    operation: exchange.operation.operationId,
    params: paramsOf(exchange.operation, url),
    query: Object.fromEntries(url.searchParams),
    request: {
      headers: safeHeaders(Object.entries(exchange.requestHeaders), redact),
      ...(exchange.requestBody === undefined ? {} : { body: exchange.requestBody }),
    },
    response: {
      status: exchange.status,
      headers: safeHeaders(exchange.responseHeaders, redact),
      ...(exchange.responseBody === undefined ? {} : { body: exchange.responseBody }),
    },
  };
}

/**
 * The cassette line of `entry` (newline included) with its bodies scrubbed
 * by `op`'s schemas (a body of an unknown operation keeps its shape only),
 * and credential headers left out. The bodies are scrubbed straight to text
 * (scrub-json.ts): a recorded page is walked once, not copied and then
 * serialized.
 */
export function scrubbedLine(
  entry: CassetteEntry,
  op: Operation | undefined,
  scrubber: Scrubber,
  redact: (text: string) => string = (text) => text,
): string {
  const requestSchema = op?.body === EMPTY_BODY ? undefined : op?.body;
  const { request, response } = entry;
  const { status } = response;
  const head = JSON.stringify({
    ...entry,
    params: op === undefined ? scrubber.unknown(entry.params) : entry.params,
    query: op === undefined ? scrubber.unknown(entry.query) : entry.query,
    request: undefined,
    response: undefined,
  });
  const requestBody =
    "body" in request ? scrubbedJson(requestSchema, request.body, scrubber) : undefined;
  const responseBody = !("body" in response)
    ? undefined
    : status >= 400
      ? JSON.stringify(scrubber.errorBody(response.body))
      : scrubbedJson(op?.response, response.body, scrubber);
  const headers = (of: Record<string, string> | undefined) =>
    JSON.stringify(safeHeaders(Object.entries(of ?? {}), redact));
  const body = (text: string | undefined) => (text === undefined ? "" : `,"body":${text}`);
  return `${head.length > 2 ? `${head.slice(0, -1)},` : "{"}"request":{"headers":${headers(request.headers)}${body(requestBody)}},"response":{"status":${JSON.stringify(status)},"headers":${headers(response.headers)}${body(responseBody)}}}\n`;
}
