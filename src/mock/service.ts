import { type HttpHandler, http } from "msw";
import { createMockClock, type MockClock } from "./clock.js";
import { caseRoutes } from "./handlers/cases.js";
import { documentRoutes } from "./handlers/documents.js";
import { type ApiRoute, json, type StorageRoute } from "./handlers/shared.js";
import { storageRoutes } from "./handlers/storage.js";
import { uploadRoutes } from "./handlers/uploads.js";
import { MockApiError, notFound } from "./http-error.js";
import { ApiKeyStore, type CreateApiKeyOptions, requireScope } from "./model/api-keys.js";
import { newRequestId } from "./model/ids.js";
import { createState, type ModelContext } from "./model/state.js";
import { Router } from "./router.js";

export interface MockServiceOptions {
  /** API origin and nothing else (no path). @default "https://api.medrecords.test" */
  baseUrl?: string;
  /** Origin of presigned upload/download addresses. @default "https://storage.medrecords.test" */
  storageUrl?: string;
  /** Accepted now, used by the webhooks slice. @default false */
  allowPrivateWebhookUrls?: boolean;
  /** Initial time of the mock clock. @default the real time at creation */
  now?: Date | string | number;
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
  /** Empties every resource; API keys and the clock stay as they are. */
  reset(): void;
}

export const DEFAULT_BASE_URL = "https://api.medrecords.test";
export const DEFAULT_STORAGE_URL = "https://storage.medrecords.test";

export function createMockService(options: MockServiceOptions = {}): MockService {
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
    state: createState(),
  };
  const keys = new ApiKeyStore();

  const api = new Router<ApiRoute>();
  for (const route of [...caseRoutes(ctx), ...uploadRoutes(ctx), ...documentRoutes(ctx)]) {
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

  return {
    baseUrl,
    storageUrl,
    handlers,
    handle,
    fetch: mockFetch,
    apiKeys: { create: (createOptions) => keys.create(createOptions) },
    clock,
    reset() {
      ctx.state = createState();
    },
  };
}

function errorResponse(error: unknown): Response {
  if (error instanceof MockApiError) {
    return json(error.status, { error: { code: error.code, message: error.message } });
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
