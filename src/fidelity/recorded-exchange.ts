/**
 * What the calling thread hands the cassette's thread for one ended exchange
 * (cassette-writer.ts to cassette-worker.ts): bytes, texts and plain
 * records only, cheap to post (the body's bytes are transferred, not
 * copied; nothing is walked field by field) and immutable, so the line
 * written is the exchange as it ended whatever the caller later does to the
 * objects the call returned. Credential headers are left out here: the key
 * never leaves the calling thread.
 */
import type { ObservedExchange } from "../core/exchange-observer.js";
import { safeHeaders } from "./cassette-entry.js";

/** One ended exchange, as posted to the cassette's thread. */
export interface RecordedExchange {
  /** The operationId; the worker finds the operation (its schemas) in the contract. */
  readonly operationId: string;
  readonly url: string;
  /** When the exchange ended, ISO 8601. */
  readonly at: string;
  /** Without credentials, the API key replaced in every value left. */
  readonly requestHeaders: Record<string, string>;
  /** The JSON text of the body sent; undefined when none. */
  readonly requestText: string | undefined;
  readonly status: number;
  /** Without credentials, the API key replaced in every value left. */
  readonly responseHeaders: Record<string, string>;
  /**
   * The answer's body: a success's bytes as read (UTF-8 JSON, transferred to
   * the thread, not copied), or the JSON text of an error's parsed body;
   * undefined when there is none.
   */
  readonly response: ArrayBuffer | string | undefined;
}

/** A line to write: its place in the order exchanges ended, and the exchange. */
export interface WriteMessage {
  readonly id: number;
  readonly exchange: RecordedExchange;
}

/** Lines written since the last report, in order: each id, and the error's name if it failed. */
export interface WrittenMessage {
  readonly written: ReadonlyArray<readonly [id: number, failed: string | undefined]>;
}

/** The exchange as posted: the headers made safe now, the bodies as texts. */
export function recordedOf(
  exchange: ObservedExchange,
  redact: (text: string) => string,
): RecordedExchange {
  const { requestBody, responseBody, responseBytes } = exchange;
  return {
    operationId: exchange.operation.operationId,
    url: exchange.url,
    at: new Date().toISOString(),
    requestHeaders: safeHeaders(Object.entries(exchange.requestHeaders), redact),
    requestText: requestBody === undefined ? undefined : JSON.stringify(requestBody),
    status: exchange.status,
    responseHeaders: safeHeaders(exchange.responseHeaders, redact),
    // The bytes as read when the client kept them; an error's body (parsed by ky) is small.
    response:
      responseBody === undefined
        ? undefined
        : responseBytes !== undefined
          ? responseBytes
          : JSON.stringify(responseBody),
  };
}
