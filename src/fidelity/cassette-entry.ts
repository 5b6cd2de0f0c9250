/**
 * Building and scrubbing cassette lines: the recorder turns each exchange
 * into an entry, and `medrecords cassette scrub` runs existing entries
 * through the same scrubbing.
 */
import { EMPTY_BODY, type Operation } from "../contract/operation.js";
import { CASSETTE_VERSION, type CassetteEntry } from "./cassette-format.js";
import type { RecordedExchange } from "./recorded-exchange.js";
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

const utf8 = new TextDecoder();
const textOf = (body: ArrayBuffer | string) =>
  typeof body === "string" ? body : utf8.decode(body);

/** An entry for an ended exchange as posted to the cassette's thread, not yet scrubbed. */
export function entryOf(exchange: RecordedExchange, op: Operation | undefined): CassetteEntry {
  const url = new URL(exchange.url);
  const { requestText, response } = exchange;
  return {
    v: CASSETTE_VERSION,
    at: exchange.at,
    operation: exchange.operationId,
    params: op === undefined ? {} : paramsOf(op, url),
    query: Object.fromEntries(url.searchParams),
    request: {
      headers: exchange.requestHeaders,
      ...(requestText === undefined ? {} : { body: JSON.parse(requestText) }),
    },
    response: {
      status: exchange.status,
      headers: exchange.responseHeaders,
      ...(response === undefined ? {} : { body: JSON.parse(textOf(response)) }),
    },
  };
}

/**
 * `entry` with its bodies scrubbed by `op`'s schemas (a body of an unknown
 * operation keeps its shape only), and credential headers left out.
 */
export function scrubEntry(
  entry: CassetteEntry,
  op: Operation | undefined,
  scrubber: Scrubber,
  redact: (text: string) => string = (text) => text,
): CassetteEntry {
  const requestSchema = op?.body === EMPTY_BODY ? undefined : op?.body;
  const { status } = entry.response;
  const responseBody = (body: unknown) =>
    status >= 400 ? scrubber.errorBody(body) : scrubber.scrub(op?.response, body);
  return {
    ...entry,
    params:
      op === undefined ? (scrubber.unknown(entry.params) as Record<string, string>) : entry.params,
    query:
      op === undefined ? (scrubber.unknown(entry.query) as Record<string, string>) : entry.query,
    request: {
      headers: safeHeaders(Object.entries(entry.request.headers ?? {}), redact),
      ...("body" in entry.request
        ? { body: scrubber.scrub(requestSchema, entry.request.body) }
        : {}),
    },
    response: {
      status,
      headers: safeHeaders(Object.entries(entry.response.headers ?? {}), redact),
      ...("body" in entry.response ? { body: responseBody(entry.response.body) } : {}),
    },
  };
}
