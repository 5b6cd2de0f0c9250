import type { IncomingMessage, ServerResponse } from "node:http";
import { BodyTooLargeError, declaredLengthExceeds, maxBodyBytesOption } from "./body-limit.js";

/** A request as Express hands it over: `body` is set by a body parser, if any ran. */
type NodeRequest = IncomingMessage & {
  body?: unknown;
  originalUrl?: string;
  /** Set by body-parser once it has read the stream. */
  _body?: unknown;
};

/** Options of `toNodeListener(handler, options)`. */
export interface NodeListenerOptions {
  /**
   * Largest body the handler may read from the stream, in bytes; a larger
   * one gets 413 and is read no further: at once when `Content-Length`
   * announces it, else when the handler reads past the cap (after checking
   * the signature headers, with createWebhookHandler). Deliveries are small
   * JSON documents.
   * @default 1_048_576 (1 MiB)
   */
  maxBodyBytes?: number;
  /**
   * How long the whole body may take to arrive, in milliseconds, counted
   * from the request's headers: a body not read to its end by then gets 408
   * `{"error":"request_timeout"}` and the connection is closed. A deadline,
   * not an idle timeout: a sender dripping a byte every second is cut off all
   * the same. The service gives up on a delivery after 5 s, so a genuine one
   * never needs more; `Infinity` leaves only the server's own timeouts.
   * @default 10_000 (10 s)
   * @example 5_000
   */
  bodyTimeoutMs?: number;
  /**
   * Called with errors of the adapter itself (a body consumed by a parser,
   * an aborted stream); verification and handler errors go to the handler's
   * own `onError`.
   * @default console.error
   */
  onError?: (error: unknown) => void;
}

export const BODY_CONSUMED_MESSAGE =
  "medrecords/webhooks: the request body was already consumed by a body parser, and the signature " +
  "needs the raw bytes. Mount the webhook route before `app.use(express.json())`, or give it " +
  '`express.raw({ type: "application/json" })`.';

/**
 * Adapts a Fetch-style handler (`createWebhookHandler`) to node:http and
 * Express. The handler gets the raw body as a stream it reads when it
 * chooses (createWebhookHandler checks the signature headers first, so an
 * unsigned request is answered without its body being read); after
 * `express.raw()` or `express.text()` it uses `req.body` instead. A body
 * already parsed into an object cannot be verified, so that case answers 500
 * with a message saying where to mount the route (500, not 400, so the
 * service retries once the route is fixed).
 *
 * @example
 * app.post("/webhooks/medrecords", toNodeListener(createWebhookHandler({ secret, on })));
 * app.use(express.json()); // after the webhook route
 * @example
 * http.createServer(toNodeListener(handler)).listen(3000);
 */
export function toNodeListener(
  handler: (request: Request) => Promise<Response>,
  options: NodeListenerOptions = {},
): (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void {
  const maxBodyBytes = maxBodyBytesOption(options.maxBodyBytes, "toNodeListener");
  const bodyTimeoutMs = bodyTimeoutOption(options.bodyTimeoutMs);
  const onError = options.onError ?? ((error: unknown) => console.error(error));

  return (incoming, res, next) => {
    const req = incoming as NodeRequest;
    void (async () => {
      let streamed: CappedBody | undefined;
      const method = (req.method ?? "GET").toUpperCase();
      let body: Uint8Array | ReadableStream<Uint8Array> | undefined;
      if (method !== "GET" && method !== "HEAD") {
        const parsed = parsedBody(req);
        if (parsed !== undefined) {
          body = parsed;
        } else if (bodyConsumed(req)) {
          onError(new Error(BODY_CONSUMED_MESSAGE));
          send(res, 500, BODY_CONSUMED_MESSAGE, "text/plain; charset=utf-8");
          return;
        } else if (declaredLengthExceeds(req.headers["content-length"], maxBodyBytes)) {
          tooLarge(res);
          return;
        } else if (req.headers["content-length"]?.trim() === "0") {
          // Nothing to stream, and nothing left unread on the connection.
          body = new Uint8Array();
        } else {
          // Handed over as a stream, not read first: the handler checks the
          // signature headers before it pulls a byte, so an unsigned sender
          // gets its answer without the receiver reading what it sends.
          streamed = new CappedBody(req, maxBodyBytes, bodyTimeoutMs, () => timedOut(res));
          body = streamed.stream;
        }
      }
      let response: Response;
      try {
        response = await handler(toRequest(req, method, body));
      } catch (error) {
        // Answered 408 already.
        if (streamed?.timedOut) return;
        // A handler other than createWebhookHandler let the cap's error through.
        if (streamed?.overflowed) {
          tooLarge(res);
          return;
        }
        throw error;
      } finally {
        streamed?.stopDeadline();
      }
      // The deadline passed while the handler ran: the 408 went out instead.
      if (streamed?.timedOut) return;
      // A body left unread (refused on its headers, or over the cap) is not
      // drained for the next request on this connection: the connection ends.
      if (streamed !== undefined && !streamed.finished) res.setHeader("connection", "close");
      res.statusCode = response.status;
      response.headers.forEach((value, name) => {
        res.setHeader(name, value);
      });
      res.end(new Uint8Array(await response.arrayBuffer()));
    })().catch((error: unknown) => {
      if (next) {
        next(error);
        return;
      }
      onError(error);
      if (!res.headersSent)
        send(res, 500, JSON.stringify({ error: "internal_error" }), "application/json");
      else res.end();
    });
  };
}

/** The whole body did not arrive within `bodyTimeoutMs`: answered 408. */
export class BodyTimeoutError extends Error {
  override name = "BodyTimeoutError";
  readonly bodyTimeoutMs: number;
  constructor(bodyTimeoutMs: number) {
    super(
      `The request body did not arrive whole within bodyTimeoutMs (${bodyTimeoutMs} ms); it was not read further.`,
    );
    this.bodyTimeoutMs = bodyTimeoutMs;
  }
}

/**
 * A Node request body as a web stream that pulls from the socket only when
 * read, and errors with `BodyTooLargeError` past `max` bytes (reading no
 * further), or with `BodyTimeoutError` once the deadline passes before its
 * end (calling `onTimeout` then, read or not). `finished` once read to its
 * end; `overflowed` once past the cap; `timedOut` once past the deadline.
 * Each read takes everything the request has buffered as one chunk, so a
 * body sent in a million 1-byte HTTP chunks reaches the handler in about as
 * many pieces as the socket was read in, not a million.
 */
class CappedBody {
  readonly stream: ReadableStream<Uint8Array>;
  finished = false;
  overflowed = false;
  timedOut = false;
  readonly #req: NodeRequest;
  readonly #max: number;
  readonly #deadline = new AbortController();
  readonly #timer: ReturnType<typeof setTimeout> | undefined;
  #length = 0;

  constructor(req: NodeRequest, max: number, timeoutMs: number, onTimeout: () => void) {
    this.#req = req;
    this.#max = max;
    this.stream = new ReadableStream<Uint8Array>(
      { pull: (controller) => this.#pull(controller) },
      // No read-ahead: `pull` runs only when the handler reads.
      { highWaterMark: 0 },
    );
    if (timeoutMs !== Number.POSITIVE_INFINITY) {
      this.#timer = setTimeout(() => {
        this.timedOut = true;
        this.#deadline.abort(new BodyTimeoutError(timeoutMs));
        onTimeout();
      }, timeoutMs);
      // The deadline alone must not keep a process alive.
      this.#timer.unref();
    }
  }

  /** The body was read, or the request answered: the deadline no longer matters. */
  stopDeadline(): void {
    clearTimeout(this.#timer);
  }

  async #pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    const chunk = await this.#next();
    if (chunk === null) {
      this.finished = true;
      this.stopDeadline();
      controller.close();
      return;
    }
    const bytes = typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk;
    this.#length += bytes.byteLength;
    if (this.#length > this.#max) {
      this.overflowed = true;
      controller.error(new BodyTooLargeError(this.#max));
      return;
    }
    controller.enqueue(bytes);
  }

  /** All the request has buffered, joined into one chunk (Node's `read()`); null at its end. */
  async #next(): Promise<Uint8Array | string | null> {
    for (;;) {
      this.#deadline.signal.throwIfAborted();
      const chunk: Uint8Array | string | null = this.#req.read();
      if (chunk !== null) return chunk;
      if (this.#req.readableEnded) return null;
      await arrival(this.#req, this.#deadline.signal);
      // Node's HTTP parser hands over each HTTP chunk of a socket read in a
      // callback of its own, and promises settle between them: read now, and
      // a body of 1-byte chunks costs a read (and a pull) per byte. After
      // setImmediate the parser has finished the socket read, whose chunks
      // one read then takes together.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
}

/**
 * Settles once the request has bytes to read, has ended, or failed (an
 * abort included), or the deadline's signal fires.
 */
function arrival(req: NodeRequest, deadline: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const settle = (error?: unknown) => {
      req.off("readable", onReady);
      req.off("end", onReady);
      req.off("error", onError);
      req.off("close", onClose);
      deadline.removeEventListener("abort", onDeadline);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onReady = () => settle();
    const onError = (error: unknown) => settle(error);
    const onClose = () =>
      settle(req.readableEnded ? undefined : new Error("the request closed before its body ended"));
    const onDeadline = () => settle(deadline.reason);
    req.on("readable", onReady);
    req.on("end", onReady);
    req.on("error", onError);
    req.on("close", onClose);
    deadline.addEventListener("abort", onDeadline);
  });
}

/** Largest `bodyTimeoutMs` by default: twice the service's 5 s delivery timeout. */
const DEFAULT_BODY_TIMEOUT_MS = 10_000;
const MAX_TIMER_MS = 2_147_483_647;

function bodyTimeoutOption(value: number | undefined): number {
  if (value === undefined) return DEFAULT_BODY_TIMEOUT_MS;
  // Past setTimeout's range Node fires after 1 ms: refused rather than inverted.
  const usable =
    typeof value === "number" &&
    (value === Number.POSITIVE_INFINITY ||
      (Number.isInteger(value) && value > 0 && value <= MAX_TIMER_MS));
  if (!usable) {
    throw new TypeError(
      `toNodeListener: \`bodyTimeoutMs\` must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS}, or Infinity`,
    );
  }
  return value;
}

/** The body's deadline passed before its end: answered now, whatever the handler is doing. */
function timedOut(res: ServerResponse): void {
  if (res.headersSent) return;
  res.setHeader("connection", "close");
  send(res, 408, JSON.stringify({ error: "request_timeout" }), "application/json");
}

function tooLarge(res: ServerResponse): void {
  res.setHeader("connection", "close");
  send(res, 413, JSON.stringify({ error: "payload_too_large" }), "application/json");
}

/** Raw bytes left by `express.raw()` (a Buffer) or `express.text()` (a string). */
function parsedBody(req: NodeRequest): Uint8Array | undefined {
  if (req.body instanceof Uint8Array) return req.body;
  // express.text decoded the bytes as UTF-8: encoding again gives them back.
  if (typeof req.body === "string") return new TextEncoder().encode(req.body);
  return undefined;
}

function bodyConsumed(req: NodeRequest): boolean {
  // body-parser < 2 sets `req.body = {}` even when it skips a content type,
  // so an object body alone does not prove the stream was read.
  return req.readableEnded || req._body === true;
}

function toRequest(
  req: NodeRequest,
  method: string,
  body: Uint8Array | ReadableStream<Uint8Array> | undefined,
): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    // HTTP/2 pseudo-headers (":path") are not valid names for Headers.
    if (value === undefined || name.startsWith(":")) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return new Request(requestUrl(req), {
    method,
    headers,
    body: body === undefined ? null : body instanceof ReadableStream ? body : new Uint8Array(body),
    // A stream body needs it (Node's fetch); the handler reads it whole anyway.
    duplex: "half",
  } as RequestInit);
}

function requestUrl(req: NodeRequest): string {
  const path = req.originalUrl ?? req.url ?? "/";
  // The Host header is the client's to choose: fall back when it is not a host.
  const base = `http://${req.headers.host ?? "localhost"}`;
  return URL.canParse(path, base) ? new URL(path, base).href : "http://localhost/";
}

function send(res: ServerResponse, status: number, body: string, contentType: string): void {
  res.statusCode = status;
  res.setHeader("content-type", contentType);
  res.end(body);
}
