/**
 * `startMockServer`: the reference server over real HTTP, for test suites in
 * any language. A small `node:http` adapter over the same `handle()` that the
 * MSW handlers call, rather than `@mswjs/http-middleware`: it needs no msw
 * (the CLI runs without it), streams upload and download bodies, and can
 * reset a connection mid-response for the dropped-connection fault.
 *
 * Two listeners, because presigned addresses must be another origin than the
 * API (clients send the API key to the API origin only): the API, with the
 * control API under `/__mock/`, on `port`, and the storage origin on `storagePort`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { apiErrorReply } from "../http/handlers/shared.js";
import { stopMockClock } from "../runtime/clock.js";
import { partialOfDropped, setClientSignal } from "../runtime/faults.js";
import { newRequestId } from "../runtime/ids.js";
import {
  createMockServiceCore,
  type InternalMockServiceOptions,
  type MockServiceCore,
  type MockServiceOptions,
} from "../service/service.js";
import { capConnections } from "./connection-cap.js";
import { createControlApi } from "./control-api.js";
import { type ControlGuard, controlGuard } from "./control-guard.js";
import { INSPECTOR_PATH } from "./inspector-page.js";

/** Options of `startMockServer(options)`: those of `createMockService`, plus where to listen. */
export interface MockServerOptions extends Omit<MockServiceOptions, "baseUrl" | "storageUrl"> {
  /**
   * Port of the API (and of the control API under `/__mock/`).
   * @default 0 (a free port, read it from `url`)
   * @example 4010
   */
  port?: number;
  /**
   * Address to listen on. Keep it on loopback: the control API has no
   * authentication, and anyone who reaches it can mint keys and read the
   * delivery inbox. The control API answers only requests whose `Host` names
   * this address (on loopback also `localhost`, `127.0.0.1` and `[::1]`; on
   * `0.0.0.0` or `::` also the machine's host name and interface addresses)
   * with the API's port, and refuses requests from web pages of other origins.
   * @default "127.0.0.1"
   */
  host?: string;
  /** Port of the presigned upload and download addresses. @default 0 (a free port) */
  storagePort?: number;
}

export interface MockServer extends MockServiceCore {
  /** The API's base URL, e.g. `http://127.0.0.1:4010`; the same as `baseUrl`. */
  readonly url: string;
  /** The control API's base URL: `${url}/__mock`. */
  readonly controlUrl: string;
  /**
   * The inspector, a page for a browser on this machine: `${url}/__mock/ui`.
   * It shows retrieval requests with their timelines, the event log, each
   * webhook's delivery attempts, the request journal and the clock, and makes
   * the provider's moves, clock moves and redeliveries (docs/inspector.md).
   */
  readonly inspectorUrl: string;
  /** Stops accepting connections, ends open ones, and frees both ports. */
  close(): Promise<void>;
}

/**
 * How long a connection may take and how many may be open, per listener (the
 * API's and the storage origin's). A client that connects and sends nothing,
 * or trickles its headers, is answered 408 and disconnected after
 * `headersTimeoutMs`; one whose request (headers and body) takes longer than
 * `requestTimeoutMs` likewise; an idle kept-alive connection is closed after
 * `keepAliveTimeoutMs`. At `maxConnections` open connections, a new one
 * makes the connection idle the longest close (kept alive after its answers,
 * or still without a whole request), and is closed at once only when every
 * open one has a request in flight. The answer's own time (injected latency,
 * a slow download reader) is not limited.
 */
export interface MockServerLimits {
  /** @default 10_000 */
  headersTimeoutMs: number;
  /** @default 120_000 */
  requestTimeoutMs: number;
  /** @default 5_000 */
  keepAliveTimeoutMs: number;
  /** @default 1_024 */
  maxConnections: number;
  /** How often the timeouts above are checked: their precision. @default 1_000 */
  checkIntervalMs: number;
}

export const MOCK_SERVER_LIMITS: Readonly<MockServerLimits> = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 120_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1_024,
  checkIntervalMs: 1_000,
});

/** A `node:http` server with the limits above. */
function limitedServer(
  limits: MockServerLimits,
  listener: (req: IncomingMessage, res: ServerResponse) => void,
): Server {
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: limits.checkIntervalMs,
    },
    listener,
  );
  capConnections(server, limits.maxConnections);
  return server;
}

/** Raised when a port cannot be listened on; `code` is Node's (`EADDRINUSE`, `EACCES`, ...). */
export class MockServerListenError extends Error {
  /** The class's name, set so that it survives minification and shows in logs. */
  override name = "MockServerListenError";
  /** Node's error code, e.g. `EADDRINUSE`; undefined when it gave none. */
  readonly code: string | undefined;
  constructor(message: string, code: string | undefined) {
    super(message);
    this.code = code;
  }
}

/**
 * Serves the reference server over HTTP on loopback. The returned object is
 * the same service as `createMockService` gives (clock, API keys, provider
 * controls, deliveries), so a test can drive it in-process or through
 * `/__mock/`.
 *
 * @example
 * const server = await startMockServer({ port: 4010, allowPrivateWebhookUrls: true });
 * const apiKey = server.apiKeys.create();
 * // ... point any HTTP client at server.url ...
 * await server.close();
 */
export function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  return startMockServerInternal(options, {});
}

export async function startMockServerInternal(
  options: MockServerOptions,
  internal: InternalMockServiceOptions & { limits?: Partial<MockServerLimits> },
): Promise<MockServer> {
  const limits = { ...MOCK_SERVER_LIMITS, ...internal.limits };
  const { port = 0, host = "127.0.0.1", storagePort = 0, ...serviceOptions } = options;
  checkPort(port, "port");
  checkPort(storagePort, "storagePort");

  let service: MockServiceCore | undefined;
  let control: ControlHandler | undefined;
  const listener = (kind: "api" | "storage") => (req: IncomingMessage, res: ServerResponse) => {
    if (service === undefined || control === undefined) {
      res.writeHead(503, { "content-type": "application/json", "retry-after": "1" }).end();
      return;
    }
    serve(kind, service, control, req, res);
  };

  const apiServer = limitedServer(limits, listener("api"));
  const storageServer = limitedServer(limits, listener("storage"));
  const apiPort = await listen(apiServer, port, host, "API");
  let boundStoragePort: number;
  try {
    boundStoragePort = await listen(storageServer, storagePort, host, "storage");
  } catch (error) {
    await closeServer(apiServer);
    throw error;
  }

  const urlHost = displayHost(host);
  service = createMockServiceCore(
    {
      ...serviceOptions,
      baseUrl: `http://${urlHost}:${apiPort}`,
      storageUrl: `http://${urlHost}:${boundStoragePort}`,
    },
    internal,
  );
  control = guarded(createControlApi(service), controlGuard(host, apiPort));

  let closing: Promise<void> | undefined;
  const clock = service.clock;
  return Object.assign(service, {
    url: service.baseUrl,
    controlUrl: `${service.baseUrl}/__mock`,
    inspectorUrl: `${service.baseUrl}${INSPECTOR_PATH}`,
    close() {
      // A real clock's timer would go on delivering for a server that is gone.
      stopMockClock(clock);
      closing ??= Promise.all([closeServer(apiServer), closeServer(storageServer)]).then(
        () => undefined,
      );
      return closing;
    },
  });
}

/** The control API, answering a request on the API port; `req` carries what the socket received. */
type ControlHandler = (request: Request, url: URL, req: IncomingMessage) => Promise<Response>;

/**
 * The control API behind its Host and Origin check. Here and not in the
 * control API itself: only the HTTP adapter knows the address it listens on.
 */
function guarded(
  control: (request: Request, url: URL) => Promise<Response>,
  guard: ControlGuard,
): ControlHandler {
  return (request, url, req) => {
    // An absolute-form target (`POST http://host/__mock/...`) names the host itself; Host is then ignored (RFC 9112, 3.2.2).
    const host = req.url?.startsWith("/") === false ? url.host : req.headers.host;
    const refusal = guard({ host, origin: req.headers.origin });
    if (refusal !== undefined) return Promise.resolve(apiErrorReply(refusal));
    return control(request, url);
  };
}

function checkPort(port: number, option: string): void {
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new RangeError(`startMockServer: ${option} must be an integer from 0 to 65535.`);
  }
}

function listen(server: Server, port: number, host: string, what: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off("listening", onListening);
      const reason =
        error.code === "EADDRINUSE"
          ? "is already in use"
          : error.code === "EACCES"
            ? "needs privileges this process lacks"
            : error.code === "EADDRNOTAVAIL"
              ? "is not an address of this machine"
              : `failed (${error.code ?? error.message})`;
      reject(new MockServerListenError(`${what} port ${port} on ${host} ${reason}.`, error.code));
    };
    const onListening = () => {
      server.off("error", onError);
      resolve((server.address() as AddressInfo).port);
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.listen(port, host);
  });
}

function closeServer(server: Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Keep-alive sockets would hold the port until they time out.
    server.closeAllConnections();
  });
}

/** A wildcard address is not somewhere a client can connect to; loopback is. */
function displayHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}

async function serve(
  kind: "api" | "storage",
  service: MockServiceCore,
  control: ControlHandler,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  // Every answer, control API and refusals included, carries the service's time, as handle() stamps its own.
  res.setHeader("date", service.clock.now().toUTCString());
  const abort = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) abort.abort();
  });
  const origin = kind === "api" ? service.baseUrl : service.storageUrl;
  let url: URL;
  let request: Request;
  try {
    url = new URL(req.url ?? "/", origin);
    request = toRequest(req, url, abort.signal);
  } catch {
    // What Node's parser lets through but a URL or a Request cannot hold: a
    // target such as `http://`, or a method fetch forbids (CONNECT, TRACE, TRACK).
    const method = req.method ?? "";
    const refused = ["CONNECT", "TRACE", "TRACK"].includes(method.toUpperCase());
    // The path, as every other method's 404 names it (service.ts), when the target has one.
    const target = req.url ?? "/";
    const path = URL.canParse(target, origin) ? ` ${new URL(target, origin).pathname}` : "";
    const [status, code, message] = refused
      ? [404, "not_found", `No endpoint ${method}${path}.`]
      : [400, "bad_request", "The request target or a header cannot be read."];
    res
      .writeHead(status, { "content-type": "application/json", "x-request-id": newRequestId() })
      .end(JSON.stringify({ error: { code, message } }));
    return;
  }
  try {
    const isControl =
      kind === "api" && (url.pathname === "/__mock" || url.pathname.startsWith("/__mock/"));
    const response = isControl ? await control(request, url, req) : await service.handle(request);
    if (response === undefined) {
      res.writeHead(404).end();
      return;
    }
    if (response.type === "error") {
      await resetMidResponse(res, partialOfDropped(response));
      return;
    }
    dropUnreadBody(request);
    // API and control answers are JSON documents: whole. Storage downloads stream.
    await writeResponse(res, response, kind === "api");
  } catch (error) {
    failed(res, error);
  }
}

/** The client went away, or a body stream broke: nothing left to answer. */
function failed(res: ServerResponse, error: unknown): void {
  if (!res.headersSent && !res.destroyed) {
    const message = error instanceof Error ? error.message : String(error);
    res
      .writeHead(500, { "content-type": "application/json" })
      .end(JSON.stringify({ error: { code: "internal_error", message } }));
  } else {
    res.destroy();
  }
}

function toRequest(req: IncomingMessage, url: URL, signal?: AbortSignal): Request {
  // Pairs, which the Request fills its own Headers from (a Headers here would be copied once more).
  const headers: [string, string][] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    headers.push([req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string]);
  }
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  const request = new Request(url, {
    method,
    headers,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: "half" } : {}),
  } as RequestInit);
  // Beside the Request, not in it (see setClientSignal): only injected latency waits on it.
  if (signal !== undefined) setClientSignal(request, signal);
  return request;
}

/**
 * Reads and drops what the handler left of the request body (an answer
 * given before reading it, or a 413 part-way): a client still sending then
 * finishes and reads the answer, instead of stalling until the connection is reset.
 */
function dropUnreadBody(request: Request): void {
  if (request.body === null || request.body.locked) return;
  request.body.pipeTo(new WritableStream()).catch(() => {
    // The client went away: nothing left to drop.
  });
}

/**
 * Writes the answer: `whole`, read first and sent with its Content-Length in
 * one write (a small JSON document; piping it through a stream costs more
 * than the request); otherwise streamed as it is read.
 */
async function writeResponse(
  res: ServerResponse,
  response: Response,
  whole: boolean,
): Promise<void> {
  const headers: Record<string, string> = Object.fromEntries(response.headers);
  if (response.body === null) {
    res.writeHead(response.status, headers);
    res.end();
    return;
  }
  if (whole) {
    const body = new Uint8Array(await response.arrayBuffer());
    headers["content-length"] = String(body.byteLength);
    res.writeHead(response.status, headers);
    res.end(body);
    return;
  }
  res.writeHead(response.status, headers);
  await pipeline(Readable.fromWeb(response.body as import("node:stream/web").ReadableStream), res);
}

/** Status line and half the body, then a reset: what a crashed proxy or dropped link looks like. */
async function resetMidResponse(res: ServerResponse, partial: Response | undefined): Promise<void> {
  if (partial !== undefined) {
    const body = new Uint8Array(await partial.arrayBuffer());
    const headers: Record<string, string> = Object.fromEntries(partial.headers);
    headers["content-length"] = String(body.byteLength);
    res.writeHead(partial.status, headers);
    res.write(body.subarray(0, Math.floor(body.byteLength / 2)));
  }
  // Let the partial write reach the socket before resetting it.
  await new Promise((resolve) => setImmediate(resolve));
  res.socket?.resetAndDestroy();
}
