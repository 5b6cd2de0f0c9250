/**
 * `useMockService()`: the reference server's lifecycle in a Vitest or Jest
 * file, as MSW's docs put theirs: start it before all tests, bring it back to
 * a known state after each, close it after all. Works with msw 2 and msw 3
 * (pass your `setupServer`), or without msw over real HTTP on loopback.
 *
 * The test runner is never imported: the hooks are passed in, or taken from
 * the runner's globals (Jest always; Vitest with `globals: true`).
 */
import { MedRecords } from "../client.js";
import type { ClientOptions } from "../core/options.js";
import type { MockSnapshot } from "../mock/controls/snapshot.js";
import type { Scope } from "../mock/model/api-keys.js";
import type { MockClockAdvanceResult } from "../mock/runtime/clock.js";
import type { DeliveryTarget } from "../mock/runtime/delivery-runtime.js";
import type { MockServer } from "../mock/server/http-server.js";
import type { MockServiceCore, MockServiceOptions } from "../mock/service/service.js";

/** The runner's hooks: `{ beforeAll, afterAll, afterEach }` from "vitest" or Jest's globals. */
export interface TestHooks {
  /** Runs `fn` once before the suite's tests: the mock starts there. */
  beforeAll: (fn: () => unknown) => void;
  /** Runs `fn` once after them: the mock closes there. */
  afterAll: (fn: () => unknown) => void;
  /** Runs `fn` after each test: the baseline is restored there. */
  afterEach: (fn: () => unknown) => void;
}

/** What `useMockService` needs of an msw `setupServer(...)` result (msw 2 and 3 alike). */
export interface MswServerLike {
  /** msw 2 takes `{ onUnhandledRequest }`, msw 3 `{ onUnhandledFrame }`: typed loosely for both. */
  listen(...options: never[]): void;
  /** Drops handlers a test added with `server.use(...)`. */
  resetHandlers(): void;
  /** Stops intercepting. */
  close(): void;
}

/** Options of `useMockService(options)`: those of `createMockService`, plus the lifecycle's. */
export interface UseMockServiceOptions extends MockServiceOptions {
  /**
   * The runner's hooks.
   * @default globalThis.beforeAll / afterAll / afterEach (Jest; Vitest with `globals: true`)
   * @example import { afterAll, afterEach, beforeAll } from "vitest"; useMockService({ hooks: { beforeAll, afterAll, afterEach } })
   */
  hooks?: TestHooks;
  /**
   * msw's `setupServer` (from `msw/node`, msw 2 or 3): the mock then runs
   * inside MSW at `baseUrl`. Without it, the mock listens over real HTTP on
   * 127.0.0.1 at a free port (`startMockServer`), and msw is not needed.
   * @default undefined (over HTTP)
   * @example import { setupServer } from "msw/node"; useMockService({ setupServer })
   */
  // biome-ignore lint/suspicious/noExplicitAny: msw 2 and 3 type their handlers differently
  setupServer?: (...handlers: any[]) => MswServerLike;
  /** What MSW does with a request no handler answers (msw 3 calls it `onUnhandledFrame`). @default "error" */
  onUnhandledRequest?: "bypass" | "warn" | "error";
  /**
   * Runs once after start: the state it leaves (and the clock and keys) is
   * the baseline, brought back after every test with `mock.restore()`.
   * `apiKey` is the handle's key, for setup made through the API (a webhook).
   * @default none (every test starts from an empty mock)
   * @example (mock) => { mock.seed.retrievalRequest({ status: "processing" }) }
   */
  seed?: (mock: MockServiceCore, context: { apiKey: string }) => unknown;
  /** Scopes of `apiKey`. @default every scope */
  scopes?: readonly Scope[];
}

/** What `useMockService` returns; its members can be read once the `beforeAll` hook ran. */
export interface MockTestHandle {
  /** The running service: seed it, drive the provider's side, read `requests`. */
  readonly mock: MockServiceCore;
  /** An API key with `scopes`, minted before `seed`: valid in every test. */
  readonly apiKey: string;
  /** The API's base URL, for the client's `baseUrl`. */
  readonly baseUrl: string;
  /**
   * The service's time, in epoch ms (the mock's clock), to read what the
   * service thinks "now" is: a retrieval request's `created_at`, a poller's
   * window. Not for a webhook receiver's `now`: the mock signs deliveries
   * with this machine's clock, which a receiver reads by default.
   * @example expect(Date.parse(request.created_at)).toBe(t.now())
   */
  readonly now: () => number;
  /**
   * Moves the mock's clock by `by` ("90s", "13h", "3d" or milliseconds), as
   * `mock.clock.advance(by)`: at once, the state changes due on the way run;
   * awaited, every webhook delivery due in the window (retries included) has
   * been made in time order, each awaited before the next. Resolves to `{
   * now, attempted, succeeded, failed }` for the attempts of the window.
   * @example const { failed } = await t.advance("13h"); expect(failed).toEqual([]);
   */
  advance(by: number | string): Promise<MockClockAdvanceResult>;
  /**
   * A `MedRecords` client for the mock: its `baseUrl`, `apiKey` and
   * transport (the mock itself under MSW, loopback HTTP otherwise), unless
   * `options` give their own.
   * @example const mr = t.client({ validateResponses: true });
   */
  client(options?: Partial<ClientOptions>): MedRecords;
  /**
   * Hands every webhook delivery of the mock in-process to `handler` (what
   * `createWebhookHandler` returns), whatever the webhook's URL: no network,
   * no MSW passthrough. Holds for the rest of the file (restores keep it);
   * callable before the mock started.
   * @example t.deliverTo(createWebhookHandler({ secret, on, dedupe }))
   */
  deliverTo(handler: DeliveryTarget): void;
  /** Brings the baseline back now (done after each test anyway). */
  reset(): Promise<void>;
}

function globalHooks(): TestHooks {
  const g = globalThis as Partial<TestHooks>;
  if (
    typeof g.beforeAll !== "function" ||
    typeof g.afterAll !== "function" ||
    typeof g.afterEach !== "function"
  ) {
    throw new TypeError(
      "useMockService: no test hooks found. Pass { hooks: { beforeAll, afterAll, afterEach } } (from vitest), or enable the runner's globals.",
    );
  }
  return { beforeAll: g.beforeAll, afterAll: g.afterAll, afterEach: g.afterEach };
}

/**
 * Starts the mock before all tests of the file (or describe block), restores
 * the baseline after each test (state, clock and keys as `seed` left them;
 * faults cleared; `requests` emptied; MSW's runtime handlers reset), and
 * closes it after all.
 */
export function useMockService(options: UseMockServiceOptions = {}): MockTestHandle {
  return new MockLifecycle(options).handle();
}

/** One file's mock: started, brought back to its baseline, closed, by the runner's hooks. */
class MockLifecycle {
  readonly #setupServer: UseMockServiceOptions["setupServer"];
  readonly #onUnhandledRequest: UseMockServiceOptions["onUnhandledRequest"];
  readonly #seed: UseMockServiceOptions["seed"];
  readonly #scopes: UseMockServiceOptions["scopes"];
  readonly #service: MockServiceOptions;
  #running: { mock: MockServiceCore; apiKey: string; baseline: MockSnapshot } | undefined;
  #msw: MswServerLike | undefined;
  #http: MockServer | undefined;
  /** The `deliverTo` target, kept for when the mock starts; set on the running mock at once. */
  #target: DeliveryTarget | undefined;
  #applyTarget: ((mock: MockServiceCore, target: DeliveryTarget) => void) | undefined;

  constructor(options: UseMockServiceOptions) {
    const {
      hooks = globalHooks(),
      setupServer,
      onUnhandledRequest,
      seed,
      scopes,
      ...service
    } = options;
    this.#setupServer = setupServer;
    this.#onUnhandledRequest = onUnhandledRequest;
    this.#seed = seed;
    this.#scopes = scopes;
    this.#service = service;
    hooks.beforeAll(() => this.#start());
    hooks.afterEach(() => this.#restoreBaseline());
    hooks.afterAll(() => this.#close());
  }

  /** The handle: plain functions and getters, so that it can be destructured. */
  handle(): MockTestHandle {
    const get = () => this.#get();
    return {
      get mock() {
        return get().mock;
      },
      get apiKey() {
        return get().apiKey;
      },
      get baseUrl() {
        return get().mock.baseUrl;
      },
      now: () => get().mock.clock.now().getTime(),
      advance: (by) => get().mock.clock.advance(by),
      client: (options = {}) => this.#client(options),
      deliverTo: (handler) => this.#deliverTo(handler),
      reset: () => this.#restoreBaseline(),
    };
  }

  #get() {
    if (this.#running === undefined) {
      throw new Error(
        "useMockService: the mock starts in beforeAll; read its members inside a test or a hook.",
      );
    }
    return this.#running;
  }

  async #start(): Promise<void> {
    const mock = this.#setupServer === undefined ? await this.#overHttp() : await this.#inMsw();
    const { setDeliveryTarget } = await import("../mock/service/service.js");
    this.#applyTarget = setDeliveryTarget;
    if (this.#target !== undefined) setDeliveryTarget(mock, this.#target);
    const scopes = this.#scopes;
    const apiKey = mock.apiKeys.create(scopes === undefined ? {} : { scopes });
    await this.#seed?.(mock, { apiKey });
    mock.requests.clear();
    this.#running = { mock, apiKey, baseline: mock.snapshot() };
  }

  async #inMsw(): Promise<MockServiceCore> {
    // Loaded here only, so that the HTTP mode needs no msw installed.
    const { createMockService } = await import("../mock/service/create-mock-service.js");
    const created = createMockService(this.#service);
    const msw = (this.#setupServer as NonNullable<UseMockServiceOptions["setupServer"]>)(
      ...created.handlers,
    );
    this.#msw = msw;
    // Each major reads its own name and ignores the other's.
    const unhandled = this.#onUnhandledRequest ?? "error";
    (msw.listen as (options: object) => void)({
      onUnhandledRequest: unhandled,
      onUnhandledFrame: unhandled,
    });
    return created;
  }

  async #overHttp(): Promise<MockServiceCore> {
    const { startMockServer } = await import("../mock/server/http-server.js");
    this.#http = await startMockServer(this.#service);
    return this.#http;
  }

  async #restoreBaseline(): Promise<void> {
    const { mock, baseline } = this.#get();
    // Attempts in flight belong to the test that caused them: finish them there.
    await mock.deliveries.flush();
    mock.restore(baseline);
    mock.faults.clear();
    mock.requests.clear();
    this.#msw?.resetHandlers();
  }

  async #close(): Promise<void> {
    this.#msw?.close();
    await this.#http?.close();
    this.#running = undefined;
  }

  #client(options: Partial<ClientOptions>): MedRecords {
    const { mock, apiKey } = this.#get();
    return new MedRecords({
      baseUrl: mock.baseUrl,
      apiKey,
      // Under MSW the mock answers in-process; over HTTP the default fetch reaches it.
      ...(this.#msw === undefined ? {} : { fetch: mock.fetch }),
      ...options,
    });
  }

  #deliverTo(handler: DeliveryTarget): void {
    if (typeof handler !== "function") {
      throw new TypeError(
        "useMockService: deliverTo(handler) takes a Fetch-style handler, (request: Request) => Response, such as createWebhookHandler(...) returns.",
      );
    }
    this.#target = handler;
    if (this.#running !== undefined) this.#applyTarget?.(this.#running.mock, handler);
  }
}
