import { type HttpHandler, http } from "msw";
import { createMockClock, type MockClock } from "./clock.js";
import { caseRoutes } from "./handlers/cases.js";
import { documentRoutes } from "./handlers/documents.js";
import { eventRoutes } from "./handlers/events.js";
import { facilityRoutes } from "./handlers/facilities.js";
import { requestorRoutes } from "./handlers/requestors.js";
import { retrievalRequestRoutes } from "./handlers/retrieval-requests.js";
import { type ApiRoute, json, type StorageRoute } from "./handlers/shared.js";
import { storageRoutes } from "./handlers/storage.js";
import { uploadRoutes } from "./handlers/uploads.js";
import { webhookRoutes } from "./handlers/webhooks.js";
import { MockApiError, notFound } from "./http-error.js";
import { ApiKeyStore, type CreateApiKeyOptions, requireScope } from "./model/api-keys.js";
import {
  createDeliveryRuntime,
  type DeliveryMode,
  flushDeliveries,
  type InboxDelivery,
} from "./model/delivery.js";
import { newRequestId } from "./model/ids.js";
import { createState, type ModelContext } from "./model/state.js";
import { defaultLookupHost } from "./model/webhook-urls.js";
import { createRetrievalControl, type MockRetrievalRequests } from "./retrieval-control.js";
import { Router } from "./router.js";

export interface MockServiceOptions {
  /** API origin and nothing else (no path). @default "https://api.medrecords.test" */
  baseUrl?: string;
  /** Origin of presigned upload/download addresses. @default "https://storage.medrecords.test" */
  storageUrl?: string;
  /**
   * Accept webhook URLs on private, loopback and link-local addresses and
   * `localhost` names, e.g. a receiver on 127.0.0.1 in the same test.
   * @default false
   */
  allowPrivateWebhookUrls?: boolean;
  /** Initial time of the mock clock. @default the real time at creation */
  now?: Date | string | number;
  /**
   * `"fetch"` POSTs every delivery for real; `"inbox"` records it in
   * `deliveries.inbox` instead and counts it as answered 200.
   * @default "fetch"
   */
  delivery?: DeliveryMode;
  /**
   * The `fetch` webhook deliveries are POSTed with.
   * @default globalThis.fetch at the time of each delivery (so MSW intercepts it)
   */
  fetch?: typeof fetch;
  /**
   * Resolves a webhook URL's host name, to refuse names that resolve to a
   * private address. A name that does not resolve is accepted (its
   * deliveries fail). Not called when `allowPrivateWebhookUrls` is true.
   * @default node:dns lookup of every address, except names reserved for
   * testing (`*.test`, `*.example`, `*.invalid`, `example.com/net/org`), which
   * are never looked up so that a test suite sends no DNS traffic
   * @example async () => ["93.184.215.14"]
   */
  lookupHost?: (hostname: string) => Promise<readonly string[]>;
}

/** Options for the project's own tests only; not part of `medrecords/mock`. */
export interface InternalMockServiceOptions {
  /** Per-attempt delivery timeout in ms, so the timeout test needs no 5 s wait. @default 5000 */
  deliveryTimeoutMs?: number;
}

export interface MockDeliveries {
  /** Awaits every delivery attempt in flight (attempts due now); call it before advancing the clock. */
  flush(): Promise<void>;
  /** In `delivery: "inbox"` mode, every request that would have been POSTed, oldest first. */
  readonly inbox: InboxDelivery[];
}

export interface MockApiKeys {
  /** Returns a new raw key, `medrecords_sk_live_` + 32 base62 characters. */
  create(options?: CreateApiKeyOptions): string;
}

export interface MockService {
  readonly baseUrl: string;
  readonly storageUrl: string;
  /** MSW handlers for the API origin and the presigned storage origin. */
  readonly handlers: HttpHandler[];
  /** Answers a request to one of the mock's origins; undefined for any other origin. */
  handle(request: Request): Promise<Response | undefined>;
  /** A `fetch` that serves the mock's origins and rejects with a TypeError for any other. */
  fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response>;
  readonly apiKeys: MockApiKeys;
  readonly clock: MockClock;
  /** Webhook deliveries: wait for those in flight, or read the inbox. */
  readonly deliveries: MockDeliveries;
  /** The provider's side of retrieval requests: status, action requests, records, invoices. */
  readonly retrievalRequests: MockRetrievalRequests;
  /**
   * Empties every resource and the inbox; API keys and the clock stay as they
   * are. Retries still pending on the clock find their webhook gone and stop.
   */
  reset(): void;
}

// The model behind each service, for src/mock/testing.ts (not exported from medrecords/mock).
const contexts = new WeakMap<MockService, ModelContext>();

/** The model context of a service made by `createMockService`. */
export function contextOf(mock: MockService): ModelContext {
  const ctx = contexts.get(mock);
  if (ctx === undefined) throw new TypeError("Not a service made by createMockService.");
  return ctx;
}

export const DEFAULT_BASE_URL = "https://api.medrecords.test";
export const DEFAULT_STORAGE_URL = "https://storage.medrecords.test";

export function createMockService(options: MockServiceOptions = {}): MockService {
  return createMockServiceInternal(options, {});
}

export function createMockServiceInternal(
  options: MockServiceOptions,
  internal: InternalMockServiceOptions,
): MockService {
  const baseUrl = toOrigin(options.baseUrl ?? DEFAULT_BASE_URL, "baseUrl");
  const storageUrl = toOrigin(options.storageUrl ?? DEFAULT_STORAGE_URL, "storageUrl");
  if (baseUrl === storageUrl) {
    throw new TypeError("createMockService: baseUrl and storageUrl must be different origins.");
  }
  const clock = createMockClock(options.now ?? Date.now());
  const ctx: ModelContext = {
    clock,
    baseUrl,
    storageUrl,
    allowPrivateWebhookUrls: options.allowPrivateWebhookUrls ?? false,
    lookupHost: options.lookupHost ?? defaultLookupHost,
    delivery: createDeliveryRuntime({
      mode: options.delivery,
      fetch: options.fetch,
      timeoutMs: internal.deliveryTimeoutMs,
    }),
    state: createState(),
  };
  const keys = new ApiKeyStore();

  const api = new Router<ApiRoute>();
  for (const route of [
    ...caseRoutes(ctx),
    ...uploadRoutes(ctx),
    ...documentRoutes(ctx),
    ...webhookRoutes(ctx),
    ...retrievalRequestRoutes(ctx),
    ...facilityRoutes(ctx),
    ...requestorRoutes(ctx),
    ...eventRoutes(ctx),
  ]) {
    api.add(route.method, route.pattern, route);
  }
  const storage = new Router<StorageRoute>();
  for (const route of storageRoutes(ctx)) storage.add(route.method, route.pattern, route);

  // Check order: auth, route, scope; the route's handler then validates, finds, applies rules.
  async function serveApi(request: Request, url: URL, requestId: string): Promise<Response> {
    const apiKey = keys.authenticate(request.headers.get("authorization"));
    const match = api.match(request.method, url.pathname);
    if (match === undefined) throw notFound(`No endpoint ${request.method} ${url.pathname}.`);
    requireScope(apiKey, match.route.scope);
    return match.route.handle({ request, url, params: match.params, apiKey, requestId });
  }

  async function serveStorage(request: Request, url: URL): Promise<Response> {
    const match = storage.match(request.method, url.pathname);
    if (match === undefined) throw notFound("No such storage address.");
    return match.route.handle({ request, params: match.params });
  }

  async function handle(request: Request): Promise<Response | undefined> {
    const url = new URL(request.url);
    const isApi = url.origin === baseUrl;
    if (!isApi && url.origin !== storageUrl) return undefined;
    const requestId = newRequestId();
    let response: Response;
    try {
      response = isApi ? await serveApi(request, url, requestId) : await serveStorage(request, url);
    } catch (error) {
      response = errorResponse(error);
    }
    response.headers.set("x-request-id", requestId);
    // The service's own time, as a real server's Date header: the event poller reads it for retention.
    response.headers.set("date", clock.now().toUTCString());
    return response;
  }

  async function mockFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const request = new Request(input, init);
    request.signal.throwIfAborted();
    const response = await handle(request);
    if (response === undefined) {
      throw new TypeError(
        `medrecords mock fetch: ${new URL(request.url).origin} is neither ${baseUrl} nor ${storageUrl}.`,
      );
    }
    return response;
  }

  const handlers: HttpHandler[] = [
    http.all(`${baseUrl}/*`, ({ request }) => handle(request)),
    http.all(`${storageUrl}/*`, ({ request }) => handle(request)),
  ];

  const service: MockService = {
    baseUrl,
    storageUrl,
    handlers,
    handle,
    fetch: mockFetch,
    apiKeys: { create: (createOptions) => keys.create(createOptions) },
    clock,
    deliveries: {
      flush: () => flushDeliveries(ctx.delivery),
      inbox: ctx.delivery.inbox,
    },
    retrievalRequests: createRetrievalControl(ctx),
    reset() {
      ctx.state = createState();
      ctx.delivery.inbox.length = 0;
    },
  };
  contexts.set(service, ctx);
  return service;
}

function errorResponse(error: unknown): Response {
  if (error instanceof MockApiError) {
    const response = json(error.status, { error: { code: error.code, message: error.message } });
    for (const [name, value] of Object.entries(error.headers)) response.headers.set(name, value);
    return response;
  }
  // A bug in the mock: answer like a failing service rather than crash the test's fetch.
  const reason = error instanceof Error ? error.message : String(error);
  return json(500, {
    error: { code: "internal_error", message: `The mock service failed: ${reason}` },
  });
}

function toOrigin(value: string, option: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`createMockService: ${option} must be an absolute http(s) URL.`);
  }
  if (
    (url.protocol !== "http:" && url.protocol !== "https:") ||
    url.pathname !== "/" ||
    url.search !== "" ||
    url.hash !== ""
  ) {
    throw new TypeError(
      `createMockService: ${option} must be an origin only, like "https://api.medrecords.test".`,
    );
  }
  return url.origin;
}
