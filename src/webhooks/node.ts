import type { IncomingMessage, ServerResponse } from "node:http";
import {
  BodyTooLargeError,
  declaredLengthExceeds,
  maxBodyBytesOption,
  readCapped,
} from "./body-limit.js";

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
   * Largest body read from the stream, in bytes; a larger one (announced in
   * `Content-Length`, or as read) gets 413 before any verification and is
   * read no further. Deliveries are small JSON documents.
   * @default 1_048_576 (1 MiB)
   */
  maxBodyBytes?: number;
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
 * Express. It reads the raw body from the stream itself; after
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
  const onError = options.onError ?? ((error: unknown) => console.error(error));

  return (incoming, res, next) => {
    const req = incoming as NodeRequest;
    void (async () => {
      const method = (req.method ?? "GET").toUpperCase();
      let body: Uint8Array | undefined;
      if (method !== "GET" && method !== "HEAD") {
        const parsed = parsedBody(req);
        if (parsed !== undefined) {
          body = parsed;
        } else if (bodyConsumed(req)) {
          onError(new Error(BODY_CONSUMED_MESSAGE));
          send(res, 500, BODY_CONSUMED_MESSAGE, "text/plain; charset=utf-8");
          return;
        } else {
          try {
            if (declaredLengthExceeds(req.headers["content-length"], maxBodyBytes)) {
              throw new BodyTooLargeError(maxBodyBytes);
            }
            body = await readCapped(req, maxBodyBytes);
          } catch (error) {
            if (error instanceof BodyTooLargeError) {
              send(res, 413, JSON.stringify({ error: "payload_too_large" }), "application/json");
              return;
            }
            throw error;
          }
        }
      }
      const response = await handler(toRequest(req, method, body));
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

function toRequest(req: NodeRequest, method: string, body: Uint8Array | undefined): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    // HTTP/2 pseudo-headers (":path") are not valid names for Headers.
    if (value === undefined || name.startsWith(":")) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return new Request(requestUrl(req), {
    method,
    headers,
    body: body === undefined ? null : new Uint8Array(body),
  });
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
