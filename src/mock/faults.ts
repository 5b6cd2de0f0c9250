/**
 * Fault injection for the reference server (`mock.faults`, DESIGN section 8):
 * latency, 5xx answers, 429 bursts with `Retry-After` and dropped
 * connections on the API origin; duplicated, reordered and clock-skewed
 * webhook deliveries.
 *
 * Every random choice comes from a PRNG seeded by `seed` (reported by
 * `current()`), in two independent streams, one for requests and one for
 * deliveries, so a failing run replays exactly when the same requests and
 * events happen in the same order. Delays are real time (the mock clock is
 * manual and would never let a delayed answer out).
 *
 * Transports see a dropped connection as a `Response.error()` (type
 * `"error"`) from `handle()`: MSW turns it into a network error, the
 * in-process `mock.fetch` rejects with `TypeError("fetch failed")`, and the
 * HTTP adapter destroys the socket, after writing the start of the real
 * response that `partialOfDropped()` returns, when there is one.
 */
import * as z from "zod";
import { randomInt, seededRandom } from "../internal/seeded-random.js";
import { sleepUnlessAborted } from "../internal/sleep.js";
import { MockApiError } from "./http-error.js";

/** A 5xx status `errorRate` may answer with. */
export type MockFaultStatus = 500 | 502 | 503 | 504;

/** When an injected fault strikes, relative to serving the request. */
export type MockFaultTiming = "before" | "after";

/** Reordering of webhook deliveries: how many are held back and for how long. */
export interface MockFaultReorder {
  /**
   * Deliveries held back before the whole batch is sent in shuffled order.
   * @default 10
   * @example 3
   */
  window?: number;
  /**
   * Longest real time in ms a delivery is held when the window does not fill
   * (a running server with nobody calling `deliveries.flush()` still
   * delivers). `deliveries.flush()` sends everything held at once.
   * @default 100
   * @example 60_000
   */
  maxHoldMs?: number;
}

/**
 * What `mock.faults.set()` takes. Each call replaces the whole configuration:
 * an option left out takes its default, which injects nothing.
 */
export interface MockFaultOptions {
  /**
   * Real wall-clock delay before each faulted request is answered (API origin,
   * and storage with `includeStorage`): a fixed number of ms, or a range drawn
   * uniformly per request (integers, both ends included). The delay comes
   * before any other fault, so a 429, a 5xx or a drop is late too. Aborting
   * the request (its `signal`) ends the wait and fails the fetch.
   * @default 0
   * @example { min: 50, max: 250 }
   */
  latencyMs?:
    | number
    | {
        /** Shortest delay, ms. */
        min: number;
        /** Longest delay, ms. */
        max: number;
      };
  /**
   * Fraction (0 to 1) of faulted requests answered with a 5xx from
   * `errorStatuses`, body `{ error: { code, message } }`: 500
   * `internal_error`, 502 `bad_gateway`, 503 `service_unavailable`, 504
   * `gateway_timeout`. See `errorTiming` for whether the request was applied.
   * @default 0
   * @example 0.1
   */
  errorRate?: number;
  /**
   * Statuses `errorRate` picks from, uniformly.
   * @default [500, 502, 503]
   * @example [503]
   */
  errorStatuses?: MockFaultStatus[];
  /**
   * `"before"`: the 5xx replaces the request, which is never applied (the
   * usual outage; any retry is safe). `"after"`: the request is applied (a
   * create creates, an event is emitted) and its answer replaced by the 5xx,
   * for testing that non-idempotent calls are not blindly retried.
   * @default "before"
   */
  errorTiming?: MockFaultTiming;
  /**
   * The next N faulted requests, whatever their key, path or method, are
   * answered 429 `rate_limited` with `Retry-After: retryAfterSeconds` and are
   * not applied. Counts down; `current()` reports what is left.
   * @default 0
   * @example 3
   */
  rateLimitBurst?: number;
  /**
   * The `Retry-After` value (seconds) of the 429s of `rateLimitBurst`.
   * @default 1
   * @example 0
   */
  retryAfterSeconds?: number;
  /**
   * Fraction (0 to 1) of faulted requests whose connection is dropped (reset)
   * instead of answered: the fetch fails with a network error. Drawn only
   * for requests not already answered by a 429 or a 5xx.
   * @default 0
   * @example 0.05
   */
  dropRate?: number;
  /**
   * `"after"`: the request is applied, then the connection is reset midway
   * through the real response (over HTTP the status line and part of the body
   * are written first): the server did the write, the client never learned
   * it, the case for idempotency tests. `"before"`: reset before the request
   * is applied; nothing happened.
   * @default "after"
   */
  dropTiming?: MockFaultTiming;
  /**
   * Also inject `latencyMs`, `errorRate`, `rateLimitBurst` and `dropRate` on
   * the presigned upload/download origin. Off, only the API origin is faulted.
   * The control API (`/__mock/*`) is never faulted.
   * @default false
   */
  includeStorage?: boolean;
  /**
   * Fraction (0 to 1) of webhook event delivery attempts (first attempts and
   * retries; not the test operation nor a redelivery asked through the API)
   * that are POSTed a second time once they finished: the same body and
   * event id, freshly signed. The copy is not in the delivery history and
   * changes neither the webhook's health nor its retries; in `"inbox"` mode
   * it is in `deliveries.inbox` with the same `attempt`.
   * @default 0
   * @example 0.5
   */
  duplicateRate?: number;
  /**
   * Holds webhook event delivery attempts (and their duplicates) back and
   * sends each batch in shuffled order, once `window` are held, after
   * `maxHoldMs`, or on `deliveries.flush()`, whichever comes first. Nothing is
   * lost: every held attempt is sent. `true` means `{ window: 10, maxHoldMs: 100 }`.
   * @default false
   * @example { window: 5, maxHoldMs: 60_000 }
   */
  reorder?: boolean | MockFaultReorder;
  /**
   * Added to the mock clock's time in the signed `X-Service-Timestamp` of
   * every delivery attempt (events, tests and redeliveries), as if the
   * sender's clock were off; receivers reject beyond 300 s either way. The
   * delivery records keep the mock clock's time.
   * @default 0
   * @example 301_000
   */
  deliveryClockSkewMs?: number;
  /**
   * Seed (unsigned 32-bit integer) of the PRNG behind every random choice.
   * `set(current())` replays from the start of the sequence.
   * @default a random seed, reported by `current()`
   * @example 42
   */
  seed?: number;
}

/** The active configuration: every option filled in, `reorder` expanded. Plain JSON. */
export interface MockFaultConfig {
  /** See {@link MockFaultOptions.latencyMs}. */
  latencyMs:
    | number
    | {
        /** Shortest delay, ms. */
        min: number;
        /** Longest delay, ms. */
        max: number;
      };
  /** See {@link MockFaultOptions.errorRate}. */
  errorRate: number;
  /** See {@link MockFaultOptions.errorStatuses}. */
  errorStatuses: MockFaultStatus[];
  /** See {@link MockFaultOptions.errorTiming}. */
  errorTiming: MockFaultTiming;
  /** The 429s still to come. */
  rateLimitBurst: number;
  /** See {@link MockFaultOptions.retryAfterSeconds}. */
  retryAfterSeconds: number;
  /** See {@link MockFaultOptions.dropRate}. */
  dropRate: number;
  /** See {@link MockFaultOptions.dropTiming}. */
  dropTiming: MockFaultTiming;
  /** See {@link MockFaultOptions.includeStorage}. */
  includeStorage: boolean;
  /** See {@link MockFaultOptions.duplicateRate}. */
  duplicateRate: number;
  /** See {@link MockFaultOptions.reorder}; false when off. */
  reorder: false | Required<MockFaultReorder>;
  /** See {@link MockFaultOptions.deliveryClockSkewMs}. */
  deliveryClockSkewMs: number;
  /** The seed in use: pass this configuration to `set()` to replay the same faults. */
  seed: number;
}

/** `mock.faults`: fault injection on the API origin and in webhook deliveries. */
export interface MockFaults {
  /**
   * Replaces the whole fault configuration (left-out options take their
   * defaults) and restarts the PRNG; returns the new `current()`. Throws a
   * TypeError on an unknown option or a value out of range. Deliveries held
   * by a previous `reorder` are sent first.
   */
  set(options: MockFaultOptions): MockFaultConfig;
  /** Back to no faults (and a new random seed); held deliveries are sent. */
  clear(): void;
  /** The active configuration; `rateLimitBurst` is what is left of the burst. */
  current(): MockFaultConfig;
}

const MAX_TIMER_MS = 2_147_483_647;

const REORDER_DEFAULTS: Required<MockFaultReorder> = { window: 10, maxHoldMs: 100 };

const ERROR_CODES: Record<MockFaultStatus, string> = {
  500: "internal_error",
  502: "bad_gateway",
  503: "service_unavailable",
  504: "gateway_timeout",
};

const Rate = z.number().min(0).max(1);
const Ms = z.number().int().min(0).max(MAX_TIMER_MS);

const FaultOptions = z.strictObject({
  latencyMs: z
    .union([
      Ms,
      z
        .strictObject({ min: Ms, max: Ms })
        .refine((range) => range.min <= range.max, "min must not be greater than max"),
    ])
    .optional(),
  errorRate: Rate.optional(),
  errorStatuses: z
    .array(z.literal([500, 502, 503, 504]))
    .min(1)
    .optional(),
  errorTiming: z.enum(["before", "after"]).optional(),
  rateLimitBurst: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  retryAfterSeconds: z.number().int().min(0).max(86_400).optional(),
  dropRate: Rate.optional(),
  dropTiming: z.enum(["before", "after"]).optional(),
  includeStorage: z.boolean().optional(),
  duplicateRate: Rate.optional(),
  reorder: z
    .union([
      z.boolean(),
      z.strictObject({
        window: z.number().int().min(2).max(10_000).optional(),
        maxHoldMs: Ms.optional(),
      }),
    ])
    .optional(),
  deliveryClockSkewMs: z.number().int().min(-MAX_TIMER_MS).max(MAX_TIMER_MS).optional(),
  seed: z.number().int().min(0).max(0xffff_ffff).optional(),
});

/** What the delivery engine (model/delivery.ts) asks of the faults. */
export interface DeliveryFaults {
  /** The signed timestamp (epoch ms) of an attempt sent at `sentAtMs` of the mock clock. */
  signedAtMs(sentAtMs: number): number;
  /** Whether an event delivery attempt is to be POSTed a second time. */
  duplicate(): boolean;
  /**
   * Holds an attempt back when `reorder` is on and returns true (`task` runs
   * later, from `release()`); returns false, keeping nothing, otherwise.
   */
  hold(task: () => void): boolean;
  /** Runs every held attempt now, in shuffled order. */
  release(): void;
}

/**
 * `handle()`'s last step for one request: catches errors into responses and
 * stamps headers. `R` is what the real serving gives (the service's replies).
 */
export type Answer<R = Response> = (serve: () => Promise<R>) => Promise<Response>;

export interface FaultController {
  /** The public `mock.faults`. */
  readonly faults: MockFaults;
  readonly delivery: DeliveryFaults;
  /**
   * Serves one request to the API origin (`api` true) or the storage origin
   * under the active faults. `answer(real)` serves it for real.
   */
  serve<R>(
    request: Request,
    api: boolean,
    answer: Answer<R>,
    real: () => Promise<R>,
  ): Promise<Response>;
  /**
   * True when `serve()` would inject nothing into a request of this origin
   * and draw nothing from the PRNG: the request may be served without it
   * (the HTTP server's direct path).
   */
  idle(api: boolean): boolean;
}

export interface FaultDependencies {
  /** Waits `ms` of real time, or less if `signal` aborts. @default setTimeout */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** A fresh random seed. @default crypto.getRandomValues */
  randomSeed?: () => number;
}

// The abort signal of each request the HTTP server keeps beside the Request
// rather than in it: a Request built with a signal costs undici more than
// serving a GET does (it registers the signal for cleanup).
const clientSignals = new WeakMap<Request, AbortSignal>();

/** Names the signal that aborts when `request`'s client goes away, for a Request built without one. */
export function setClientSignal(request: Request, signal: AbortSignal): void {
  clientSignals.set(request, signal);
}

// The real response behind each `Response.error()` of a drop after handling.
const partials = new WeakMap<Response, Response>();

/**
 * The real response a dropped connection cut short (`dropTiming: "after"`),
 * so an HTTP transport can write its status line and part of its body before
 * resetting the socket; undefined when nothing was to be written (a drop
 * before handling, or a response that was not a drop).
 */
export function partialOfDropped(response: Response): Response | undefined {
  return partials.get(response);
}

function dropped(partial: Response | undefined): Response {
  const response = Response.error();
  if (partial !== undefined) partials.set(response, partial);
  return response;
}

export function createFaultController(deps: FaultDependencies = {}): FaultController {
  const sleep = deps.sleep ?? sleepUnlessAborted;
  const randomSeed = deps.randomSeed ?? defaultRandomSeed;

  let config = normalize({}, randomSeed());
  let apiRandom = seededRandom(streamSeed(config.seed, 1));
  let deliveryRandom = seededRandom(streamSeed(config.seed, 2));

  let held: Array<() => void> = [];
  let holdTimer: ReturnType<typeof setTimeout> | undefined;

  function release(): void {
    if (holdTimer !== undefined) clearTimeout(holdTimer);
    holdTimer = undefined;
    const batch = held;
    held = [];
    for (let i = batch.length - 1; i > 0; i--) {
      const j = Math.floor(deliveryRandom() * (i + 1));
      [batch[i], batch[j]] = [batch[j]!, batch[i]!];
    }
    for (const task of batch) task();
  }

  function apply(next: MockFaultConfig): MockFaultConfig {
    release();
    config = next;
    apiRandom = seededRandom(streamSeed(config.seed, 1));
    deliveryRandom = seededRandom(streamSeed(config.seed, 2));
    return current();
  }

  function current(): MockFaultConfig {
    return structuredClone(config);
  }

  const faults: MockFaults = {
    set(options) {
      const parsed = FaultOptions.safeParse(options);
      if (!parsed.success) {
        const reasons = parsed.error.issues
          .map((i) => `${i.path.length > 0 ? i.path.join(".") : "options"}: ${i.message}`)
          .join("; ");
        throw new TypeError(`mock.faults.set: ${reasons}.`);
      }
      return apply(normalize(parsed.data, parsed.data.seed ?? randomSeed()));
    },
    clear() {
      apply(normalize({}, randomSeed()));
    },
    current,
  };

  const delivery: DeliveryFaults = {
    signedAtMs: (sentAtMs) => sentAtMs + config.deliveryClockSkewMs,
    duplicate: () => config.duplicateRate > 0 && deliveryRandom() < config.duplicateRate,
    hold(task) {
      const { reorder } = config;
      if (reorder === false) return false;
      held.push(task);
      if (held.length >= reorder.window) {
        release();
      } else if (holdTimer === undefined) {
        holdTimer = setTimeout(release, reorder.maxHoldMs);
        // A pending hold must not keep a test process alive.
        (holdTimer as { unref?: () => void }).unref?.();
      }
      return true;
    },
    release,
  };

  function idle(api: boolean): boolean {
    if (!api && !config.includeStorage) return true;
    return (
      config.latencyMs === 0 &&
      config.rateLimitBurst === 0 &&
      config.errorRate === 0 &&
      config.dropRate === 0
    );
  }

  async function serve<R>(
    request: Request,
    api: boolean,
    answer: Answer<R>,
    real: () => Promise<R>,
  ): Promise<Response> {
    if (!api && !config.includeStorage) return answer(real);
    // Every choice is drawn on arrival, so the PRNG sequence follows request order.
    const { latencyMs, errorRate, dropRate } = config;
    const delay =
      typeof latencyMs === "number"
        ? latencyMs
        : randomInt(apiRandom, latencyMs.min, latencyMs.max);
    let fault: "rate_limited" | "error" | "drop" | undefined;
    let status: MockFaultStatus = 500;
    if (config.rateLimitBurst > 0) {
      config.rateLimitBurst -= 1;
      fault = "rate_limited";
    } else if (errorRate > 0 && apiRandom() < errorRate) {
      fault = "error";
      const statuses = config.errorStatuses;
      status = statuses[Math.floor(apiRandom() * statuses.length)] ?? 500;
    } else if (dropRate > 0 && apiRandom() < dropRate) {
      fault = "drop";
    }
    const { errorTiming, dropTiming, retryAfterSeconds } = config;

    if (delay > 0) {
      const signal = clientSignals.get(request) ?? request.signal;
      await sleep(delay, signal);
      // The client gave up while it waited: nothing is served, and nobody reads an answer.
      if (signal.aborted) return dropped(undefined);
    }
    const injected = () => {
      throw fault === "rate_limited"
        ? new MockApiError(
            429,
            "rate_limited",
            `Too many requests (injected by mock.faults); retry in ${retryAfterSeconds} s.`,
            { "retry-after": String(retryAfterSeconds) },
          )
        : new MockApiError(
            status,
            ERROR_CODES[status],
            `The service failed (HTTP ${status} injected by mock.faults).`,
          );
    };
    if (fault === "rate_limited" || (fault === "error" && errorTiming === "before")) {
      return answer(async () => injected());
    }
    if (fault === "drop" && dropTiming === "before") return dropped(undefined);
    const response = await answer(real);
    if (fault === "error") {
      await response.body?.cancel().catch(() => undefined);
      return answer(async () => injected());
    }
    if (fault === "drop") return dropped(response);
    return response;
  }

  return { faults, delivery, serve, idle };
}

function normalize(options: z.infer<typeof FaultOptions>, seed: number): MockFaultConfig {
  const reorder = options.reorder ?? false;
  return {
    latencyMs: options.latencyMs ?? 0,
    errorRate: options.errorRate ?? 0,
    errorStatuses: [...new Set<MockFaultStatus>(options.errorStatuses ?? [500, 502, 503])],
    errorTiming: options.errorTiming ?? "before",
    rateLimitBurst: options.rateLimitBurst ?? 0,
    retryAfterSeconds: options.retryAfterSeconds ?? 1,
    dropRate: options.dropRate ?? 0,
    dropTiming: options.dropTiming ?? "after",
    includeStorage: options.includeStorage ?? false,
    duplicateRate: options.duplicateRate ?? 0,
    reorder:
      reorder === false
        ? false
        : reorder === true
          ? { ...REORDER_DEFAULTS }
          : {
              window: reorder.window ?? REORDER_DEFAULTS.window,
              maxHoldMs: reorder.maxHoldMs ?? REORDER_DEFAULTS.maxHoldMs,
            },
    deliveryClockSkewMs: options.deliveryClockSkewMs ?? 0,
    seed,
  };
}

/** Independent streams from one seed, so deliveries do not shift the requests' sequence. */
function streamSeed(seed: number, stream: number): number {
  let h = (seed ^ Math.imul(stream, 0x9e37_79b9)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85eb_ca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2_ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function defaultRandomSeed(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0]!;
}
