import type { HttpHandler, http } from "msw";
import { OPENAPI_PATH, openApiDocument } from "../../openapi/document.js";
import { createAutopilot, type MockAutopilotOptions } from "../controls/autopilot.js";
import { type MockCassetteSource, seedFromCassette } from "../controls/cassette-seed.js";
import {
  createRetrievalControl,
  type MockRetrievalRequests,
} from "../controls/retrieval-control.js";
import { createSeed, type MockSeed } from "../controls/seed.js";
import { type MockSnapshot, restoreSnapshot, takeSnapshot } from "../controls/snapshot.js";
import { type ApiRoute, apiErrorReply, json, type StorageRoute } from "../http/handlers/shared.js";
import { storageRoutes } from "../http/handlers/storage.js";
import { Router } from "../http/router.js";
import { apiRoutes } from "../http/routes.js";
import { ApiKeyStore, type CreateApiKeyOptions } from "../model/api-keys.js";
import { createState, type ModelContext } from "../model/state.js";
import { defaultLookupHost } from "../model/webhook-urls.js";
import { createMockClock, type MockClock, type MockClockMode } from "../runtime/clock.js";
import {
  checkDeliveryTarget,
  createDeliveryRuntime,
  type DeliveryFlushResult,
  type DeliveryMode,
  type DeliveryTarget,
  flushDeliveries,
  type InboxDelivery,
} from "../runtime/delivery-runtime.js";
import { createFaultController, type MockFaults } from "../runtime/faults.js";
import { MockApiError, notFound } from "../runtime/http-error.js";
import { IdSource } from "../runtime/id-source.js";
import { newRequestId } from "../runtime/ids.js";
import { createRequestJournal, type MockRequestJournal } from "../runtime/request-journal.js";

/** Options of `createMockService(options)` (and of `startMockServer`, but the origins). */
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
  /**
   * Makes every id the service hands out (cases, documents, uploads,
   * retrieval requests, action requests, requestors, webhooks, deliveries,
   * events) follow from this text: two services with the same `idSeed` and
   * the same calls hand out the same ids, for reproducible runs. Without it
   * no two services share an id. Either way a service never hands out an id
   * twice, across `reset()` and `restore()` too.
   * @default a random seed per service
   * @example "checkout-suite"
   */
  idSeed?: string;
  /** Initial time of the mock clock. @default the real time at creation */
  now?: Date | string | number;
  /**
   * How the mock clock moves. `"manual"` stands still until
   * `mock.clock.advance()` or `set()` moves it (tests cross time limits
   * exactly); `"real"` follows real time, `clockSpeed` times faster, and runs
   * deliveries, retries and expiries by itself when they fall due.
   * `medrecords mock` uses `"real"` by default.
   * @default "manual"
   */
  clock?: MockClockMode;
  /**
   * On a `"real"` clock, how many times faster than real time it runs.
   * @default 1
   * @example 60 // a minute of mock time each real second
   */
  clockSpeed?: number;
  /**
   * Moves each retrieval request created through the API through a
   * provider's life on the mock clock (request sent, processing, sometimes
   * an action request, records, an invoice, completed: about 3 hours of mock
   * time), emitting every retrieval event. `true` or `{ seed }`.
   * @default false
   */
  autopilot?: boolean | MockAutopilotOptions;
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
   * Hands every webhook delivery in-process to this Fetch-style handler
   * (what `createWebhookHandler` returns), whatever the webhook's URL: no
   * network, no MSW passthrough, no DNS. Each attempt is signed, timed out
   * after 5 s, retried and recorded as over the network; the handler's
   * answer is the receiver's. Not with `delivery: "inbox"`.
   * @default undefined (deliveries are POSTed with `fetch`)
   * @example createMockService({ deliverTo: createWebhookHandler({ secret, on }) })
   */
  deliverTo?: (request: Request) => Response | Promise<Response>;
  /**
   * The msw module `handlers` are built with. Leave it out in Node, Bun and
   * Deno: msw is then loaded when `handlers` is first read (and never when
   * they are not). Pass it where no module can be loaded synchronously: in a
   * browser, for `setupWorker`.
   * @default undefined (msw loaded on first read of `handlers`)
   * @example import * as msw from "msw"; createMockService({ msw })
   */
  msw?: {
    /** msw's `http` namespace: the two handlers are `http.all` on the API and storage origins. */
    readonly http: typeof http;
  };
  /**
   * Resolves a webhook URL's host name, to refuse names that resolve to a
   * private address: resolves to every address, to `[]` for a name that does
   * not exist, and rejects when the name cannot be resolved now. At creation
   * (and on a URL change) a name with a private address is refused (400), and
   * so is one whose lookup fails; one that does not exist is accepted (its
   * deliveries fail); names reserved for testing (`*.test`, `*.example`,
   * `*.invalid`, `example.com/net/org`) are not looked up by the default then, so a test
   * suite under MSW sends no DNS query. Each delivery attempt that really
   * connects resolves the name once, checks every address and connects only
   * to those (DNS rebinding cannot slip a private address in between); a name
   * that fails to resolve, has no address or any private one is not sent to.
   * An interceptor (MSW) answers before that lookup. With your own `fetch`,
   * the name is resolved and checked just before the attempt, but where your
   * fetch connects is up to it. Not called when `allowPrivateWebhookUrls` is true.
   * @default node:dns lookup of every address
   * @example async () => ["93.184.215.14"]
   */
  lookupHost?: (hostname: string) => Promise<readonly string[]>;
  /**
   * A cassette (`record: cassette(path)` in the client) whose cases,
   * requestors and case documents the server starts with, each as last seen
   * and under its recorded id, so tests run on shapes seen in production:
   * its path (Node), or a cassette loaded with `parseCassette(text)`. An
   * object the spec's schema cannot read is left out; documents hold zeros
   * of their recorded size. See docs/fidelity.md.
   * @default undefined (an empty server)
   * @example createMockService({ from: "recordings/2026-11-28.jsonl" })
   */
  from?: MockCassetteSource;
}

/** Options for the project's own tests only; not part of `medrecords/mock`. */
export interface InternalMockServiceOptions {
  /** Per-attempt delivery timeout in ms, so the timeout test needs no long wait. @default WEBHOOK_DELIVERY_TIMEOUT_MS */
  deliveryTimeoutMs?: number;
  /** Addresses taken for public at delivery, so a loopback receiver can stand in for a public host. */
  publicAddressesForTesting?: readonly string[];
  /** Which version of each object `from` seeds: `"first"` (and none the cassette created) for `medrecords drift`. @default "last" */
  fromVersion?: "first" | "last";
  /** Sees every answer of the API origin, e.g. to check it against openapi.json. */
  onApiResponse?: (request: Request, response: Response) => void;
}

/** `mock.deliveries`: the webhook deliveries the service sends. */
export interface MockDeliveries {
  /**
   * Awaits every delivery attempt in flight (attempts due now, such as those
   * an API call set off; `await clock.advance()` awaits a window's itself).
   * Resolves to what the attempts finished since the previous `flush()`
   * came to: `{ attempted, succeeded, failed }`, each failure as `{
   * webhook_id, event_id, event_type, attempt, attempted_at, status_code,
   * error, receiver_error, hint }` (never a body).
   * @example const { failed } = await mock.deliveries.flush(); expect(failed).toEqual([]);
   */
  flush(): Promise<DeliveryFlushResult>;
  /** In `delivery: "inbox"` mode, every request that would have been POSTed, oldest first. */
  readonly inbox: InboxDelivery[];
}

/** `mock.apiKeys`: the keys the service accepts. */
export interface MockApiKeys {
  /** Returns a new raw key, `medrecords_sk_live_` + 32 base62 characters. */
  create(options?: CreateApiKeyOptions): string;
  /**
   * Accepts a key of your choosing (`medrecords_sk_live_` + at least 16
   * visible ASCII characters), e.g. one kept across restarts; returns it.
   * @example mock.apiKeys.register(process.env.MEDRECORDS_API_KEY, { scopes: ["cases:read"] })
   */
  register(key: string, options?: CreateApiKeyOptions): string;
}

/**
 * Everything of a reference server but its MSW handlers: what
 * `startMockServer` and the CLI serve, so neither needs msw installed.
 */
export interface MockServiceCore {
  /** The API origin, e.g. `https://api.medrecords.test`: the client's `baseUrl`. */
  readonly baseUrl: string;
  /** The origin of presigned upload and download addresses, another origin than the API's. */
  readonly storageUrl: string;
  /** Answers a request to one of the mock's origins; undefined for any other origin. */
  handle(request: Request): Promise<Response | undefined>;
  /** A `fetch` that serves the mock's origins and rejects with a TypeError for any other. */
  fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response>;
  /** Mints API keys, with every scope or chosen ones. */
  readonly apiKeys: MockApiKeys;
  /**
   * The service's clock: expiries, delivery retries and retention move only
   * when you advance it; `await clock.advance(by)` also makes the window's
   * deliveries, in time order.
   */
  readonly clock: MockClock;
  /** Webhook deliveries: wait for those in flight, or read the inbox. */
  readonly deliveries: MockDeliveries;
  /** The provider's side of retrieval requests: status, action requests, records, invoices. */
  readonly retrievalRequests: MockRetrievalRequests;
  /**
   * Fault injection: latency, 5xx, 429 bursts and dropped connections on the
   * API origin; duplicated, reordered and clock-skewed webhook deliveries.
   * `set(options)` replaces the configuration, `clear()` removes every fault,
   * `current()` reports it (with the PRNG seed).
   */
  readonly faults: MockFaults;
  /**
   * Empties every resource and the inbox; API keys, the clock and the fault
   * configuration stay as they are, and the id sequence goes on (an id is
   * never handed out twice). Retries still pending on the clock find their
   * webhook gone and stop.
   */
  reset(): void;
  /**
   * Puts cases and retrieval requests in place directly, in any state: no API
   * call, no event unless `{ emit: true }`. Returns them as the API renders them.
   * @example mock.seed.retrievalRequest({ status: "action_required", action_required_reason: "missing_hipaa_authorization", pending_action_request: { message: "Please sign the attached form" } })
   */
  readonly seed: MockSeed;
  /**
   * Saves the state, the delivery inbox, the clock and the API keys, for
   * `restore()`. Not saved: faults, `requests`, deliveries in flight and
   * their retries. Cheap enough for every `beforeEach`.
   */
  snapshot(): MockSnapshot;
  /**
   * Brings back exactly what `snapshot()` saved; a snapshot can be restored
   * any number of times. The id sequence is not part of it: ids handed out
   * after a restore are new, so a receiver's dedupe store kept across tests
   * sees no false duplicate.
   */
  restore(snapshot: MockSnapshot): void;
  /**
   * Every request the API origin received (method, path, path template,
   * status, request id, time; no body, header or query), oldest first, the
   * last `MOCK_REQUEST_JOURNAL_LIMIT`; `requests.clear()` forgets them.
   */
  readonly requests: MockRequestJournal;
}

export interface MockService extends MockServiceCore {
  /** MSW handlers for the API origin and the presigned storage origin. */
  readonly handlers: HttpHandler[];
}

// The model behind each service, for test/helpers/mock-internals.ts (not exported from medrecords/mock).
const contexts = new WeakMap<MockServiceCore, ModelContext>();

/**
 * Sends the service's deliveries in-process to `target` from now on (the
 * test kit's `deliverTo`); survives `reset()` and `restore()`.
 */
export function setDeliveryTarget(mock: MockServiceCore, target: DeliveryTarget): void {
  const runtime = contextOf(mock).delivery;
  checkDeliveryTarget(target, runtime.mode, "deliverTo(handler)");
  runtime.deliverTo = target;
}

/** The model context of a service made by `createMockService` or `startMockServer`. */
export function contextOf(mock: MockServiceCore): ModelContext {
  const ctx = contexts.get(mock);
  if (ctx === undefined) throw new TypeError("Not a service made by createMockService.");
  return ctx;
}

export const DEFAULT_BASE_URL = "https://api.medrecords.test";
export const DEFAULT_STORAGE_URL = "https://storage.medrecords.test";

export function createMockServiceCore(
  options: MockServiceOptions,
  internal: InternalMockServiceOptions = {},
): MockServiceCore {
  return new ServiceRuntime(options, internal).service;
}

/** One service's parts, its two origins' routing, and the object it hands out. */
class ServiceRuntime {
  readonly #baseUrl: string;
  readonly #storageUrl: string;
  readonly #internal: InternalMockServiceOptions;
  readonly #journal = createRequestJournal();
  readonly #faults = createFaultController();
  readonly #keys = new ApiKeyStore();
  readonly #clock: ReturnType<typeof createMockClock>;
  readonly #ctx: ModelContext;
  readonly #api = new Router<ApiRoute>();
  readonly #storage = new Router<StorageRoute>();
  /** What `createMockServiceCore` returns: a plain object, which callers extend. */
  readonly service: MockServiceCore;

  constructor(options: MockServiceOptions, internal: InternalMockServiceOptions) {
    this.#baseUrl = toOrigin(options.baseUrl ?? DEFAULT_BASE_URL, "baseUrl");
    this.#storageUrl = toOrigin(options.storageUrl ?? DEFAULT_STORAGE_URL, "storageUrl");
    checkOptions(this.#baseUrl, this.#storageUrl, options);
    this.#internal = internal;
    this.#clock = createMockClock(options.now ?? Date.now(), {
      ...(options.clock === undefined ? {} : { mode: options.clock }),
      ...(options.clockSpeed === undefined ? {} : { speed: options.clockSpeed }),
    });
    this.#ctx = this.#context(options);
    this.#startModel(options);
    for (const route of apiRoutes(this.#ctx)) this.#api.add(route.method, route.pattern, route);
    for (const route of storageRoutes(this.#ctx)) {
      this.#storage.add(route.method, route.pattern, route);
    }
    this.service = this.#facade();
    contexts.set(this.service, this.#ctx);
  }

  #context(options: MockServiceOptions): ModelContext {
    const clock = this.#clock;
    return {
      clock,
      baseUrl: this.#baseUrl,
      storageUrl: this.#storageUrl,
      allowPrivateWebhookUrls: options.allowPrivateWebhookUrls ?? false,
      lookupHost: options.lookupHost ?? defaultLookupHost,
      ids: new IdSource(options.idSeed),
      delivery: createDeliveryRuntime({
        mode: options.delivery,
        fetch: options.fetch,
        deliverTo: options.deliverTo,
        timeoutMs: this.#internal.deliveryTimeoutMs,
        faults: this.#faults.delivery,
        publicForTesting: this.#internal.publicAddressesForTesting,
        clock,
      }),
      state: createState(),
    };
  }

  /** The clock's windows, the autopilot and the cassette's seed, in that order. */
  #startModel(options: MockServiceOptions): void {
    const ctx = this.#ctx;
    this.#clock.runWindowsWith(() => ctx.delivery.queue.runWindow());
    if (options.autopilot) {
      ctx.autopilot = createAutopilot(ctx, options.autopilot === true ? {} : options.autopilot);
    }
    if (options.from !== undefined) {
      seedFromCassette(ctx, options.from, this.#internal.fromVersion ?? "last");
    }
  }

  #facade(): MockServiceCore {
    const ctx = this.#ctx;
    const keys = this.#keys;
    const service: MockServiceCore = {
      baseUrl: this.#baseUrl,
      storageUrl: this.#storageUrl,
      handle: (request) => this.#handle(request),
      fetch: (input, init) => this.#fetch(input, init),
      apiKeys: {
        create: (createOptions) => keys.create(createOptions),
        register: (key, registerOptions) => keys.register(key, registerOptions),
      },
      clock: this.#clock,
      deliveries: {
        flush: () => flushDeliveries(ctx.delivery),
        inbox: ctx.delivery.inbox,
      },
      retrievalRequests: createRetrievalControl(ctx),
      faults: this.#faults.faults,
      reset() {
        ctx.state = createState();
        ctx.delivery.inbox.length = 0;
      },
      seed: createSeed(ctx),
      snapshot: () => takeSnapshot(snapshotParts),
      restore: (snapshot) => restoreSnapshot(snapshotParts, snapshot),
      requests: this.#journal.journal,
    };
    const snapshotParts = { owner: service, ctx, clock: this.#clock, keys };
    return service;
  }

  async #handle(request: Request): Promise<Response | undefined> {
    const url = new URL(request.url);
    const isApi = url.origin === this.#baseUrl;
    if (!isApi && url.origin !== this.#storageUrl) return undefined;
    const requestId = newRequestId();
    const at = this.#ctx.clock.now().toISOString();
    // A dropped connection comes back as Response.error() (see api-faults.ts).
    const response = await this.#faults.serve(
      request,
      isApi,
      (serve) => this.#answer(request, isApi, requestId, serve),
      async () =>
        isApi ? this.#serveApi(request, url, requestId) : this.#serveStorage(request, url),
    );
    if (isApi) {
      this.#journal.record({
        method: request.method,
        path: url.pathname,
        pathTemplate: this.#templateOf(request.method, url.pathname),
        status: response.status,
        requestId,
        at,
      });
    }
    return response;
  }

  /** Serves, answering an error as the API does, with the headers every answer carries. */
  async #answer(
    request: Request,
    isApi: boolean,
    requestId: string,
    serve: () => Promise<Response>,
  ): Promise<Response> {
    let response: Response;
    try {
      response = await serve();
    } catch (error) {
      response = errorReply(error);
    }
    response.headers.set("x-request-id", requestId);
    // The service's own time, as a real server's Date header: the event poller reads it for retention.
    response.headers.set("date", this.#ctx.clock.now().toUTCString());
    if (isApi) this.#internal.onApiResponse?.(request, response);
    return response;
  }

  // Check order: auth, route, then the bound operation's own (src/mock/http/bind.ts): scope,
  // query, body; its handler then finds and applies the model's rules.
  #serveApi(request: Request, url: URL, requestId: string): Response | Promise<Response> {
    const method = request.method;
    // The API's description is public, as a real service's would be: tools read it without a key.
    if (method === "GET" && url.pathname === OPENAPI_PATH) {
      return json(200, openApiDocument());
    }
    const apiKey = this.#keys.authenticate(request.headers.get("authorization"));
    const match = this.#api.match(method, url.pathname);
    if (match === undefined) throw notFound(`No endpoint ${method} ${url.pathname}.`);
    return match.route.handle({ request, url, params: match.params, apiKey, requestId });
  }

  // The journal's pathTemplate: also for a request refused before routing (401), so matched again.
  #templateOf(method: string, path: string): string | null {
    return method === "GET" && path === OPENAPI_PATH
      ? OPENAPI_PATH
      : (this.#api.match(method, path)?.route.pattern ?? null);
  }

  async #serveStorage(request: Request, url: URL): Promise<Response> {
    const match = this.#storage.match(request.method, url.pathname);
    if (match === undefined) throw notFound("No such storage address.");
    return match.route.handle({ request, params: match.params });
  }

  async #fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const request = new Request(input, init);
    request.signal.throwIfAborted();
    const response = await this.#handle(request);
    if (response === undefined) {
      throw new TypeError(
        `medrecords mock fetch: ${new URL(request.url).origin} is neither ${this.#baseUrl} nor ${this.#storageUrl}.`,
      );
    }
    if (response.type === "error") {
      // Aborted while an injected latency ran: reject as fetch does, with the abort reason.
      request.signal.throwIfAborted();
      // What undici throws for a reset connection, so clients classify it as a network error.
      throw new TypeError("fetch failed", {
        cause: Object.assign(new Error("The mock dropped the connection (mock.faults)."), {
          code: "ECONNRESET",
        }),
      });
    }
    return response;
  }
}

function checkOptions(baseUrl: string, storageUrl: string, options: MockServiceOptions): void {
  if (baseUrl === storageUrl) {
    throw new TypeError("createMockService: baseUrl and storageUrl must be different origins.");
  }
  if (
    options.idSeed !== undefined &&
    (typeof options.idSeed !== "string" || options.idSeed === "")
  ) {
    throw new TypeError("createMockService: idSeed must be a non-empty string.");
  }
}

function errorReply(error: unknown): Response {
  if (error instanceof MockApiError) return apiErrorReply(error);
  // A bug in the mock: answer like a failing service rather than crash the test's fetch.
  const reason = error instanceof Error ? error.message : String(error);
  return json(500, {
    error: { code: "internal_error", message: `The mock service failed: ${reason}` },
  });
}

function toOrigin(value: string, option: string): string {
  if (!URL.canParse(value)) {
    throw new TypeError(`createMockService: ${option} must be an absolute http(s) URL.`);
  }
  const url = new URL(value);
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
