/**
 * The port through which the fidelity tools (src/fidelity: `onDrift`, `record`)
 * see each exchange. Core loads them only when one of those options is set
 * (a dynamic import), so a client without them does no work per response.
 */
import type { Operation } from "../contract/operation.js";
import type { ClientOptions } from "./options.js";

/** One exchange with the API as it ended: the last attempt's answer, its body parsed. */
export interface ObservedExchange {
  readonly operation: Operation;
  /** The absolute address called (path parameters and query in it). */
  readonly url: string;
  /** The headers sent, without `authorization`. */
  readonly requestHeaders: Readonly<Record<string, string>>;
  /** The JSON body sent; undefined when none. */
  readonly requestBody: unknown;
  readonly status: number;
  readonly responseHeaders: Headers;
  /** The parsed JSON answer; undefined when none. */
  readonly responseBody: unknown;
  readonly requestId: string | undefined;
}

/** What core hands each ended exchange to. Never throws: failures go to `warn`. */
export interface ExchangeObserver {
  observe(exchange: ObservedExchange): Promise<void>;
}

/** What the observer needs from the client. */
export interface ObserverContext {
  readonly onDrift: ClientOptions["onDrift"];
  readonly record: ClientOptions["record"];
  /** Replaces the API key in a text, should anything reflect it. */
  readonly redact: (text: string) => string;
  /** Tells the client's logger that a recording or an `onDrift` callback failed. */
  readonly warn: (message: string) => void;
}

/** Loads the observer when `onDrift` or `record` is set; undefined otherwise. */
export function loadObserver(context: ObserverContext): Promise<ExchangeObserver> | undefined {
  if (context.onDrift === undefined && context.record === undefined) return undefined;
  return import("../fidelity/observer.js").then((module) => module.createObserver(context));
}
