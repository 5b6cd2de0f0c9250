/**
 * Faults on requests (`mock.faults`): latency, 5xx answers, 429 bursts with
 * `Retry-After` and dropped connections, on the API origin and, with
 * `includeStorage`, the storage origin.
 *
 * Transports see a dropped connection as a `Response.error()` (type
 * `"error"`) from `handle()`: MSW turns it into a network error, the
 * in-process `mock.fetch` rejects with `TypeError("fetch failed")`, and the
 * HTTP adapter destroys the socket, after writing the start of the real
 * response that `partialOfDropped()` returns, when there is one.
 */
import { discardBody } from "../../internal/discard-body.js";
import { randomInt } from "../../internal/seeded-random.js";
import { sleepUnlessAborted } from "../../internal/sleep.js";
import type { MockFaultConfig, MockFaultStatus } from "./fault-options.js";
import { MockApiError } from "./http-error.js";

/**
 * `handle()`'s last step for one request: catches errors into responses and
 * stamps headers. `R` is what the real serving gives (the service's replies).
 */
export type Answer<R = Response> = (serve: () => Promise<R>) => Promise<Response>;

/** What the service's `handle()` asks of the faults. */
export interface ApiFaults {
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
}

export interface ApiFaultSource {
  /** The active configuration; `serve()` counts its `rateLimitBurst` down. */
  config(): MockFaultConfig;
  /** The requests' PRNG stream. */
  random(): () => number;
}

const ERROR_CODES: Record<MockFaultStatus, string> = {
  500: "internal_error",
  502: "bad_gateway",
  503: "service_unavailable",
  504: "gateway_timeout",
};

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

export function createApiFaults(source: ApiFaultSource): ApiFaults {
  async function serve<R>(
    request: Request,
    api: boolean,
    answer: Answer<R>,
    real: () => Promise<R>,
  ): Promise<Response> {
    const config = source.config();
    if (!api && !config.includeStorage) return answer(real);
    // Every choice is drawn on arrival, so the PRNG sequence follows request order.
    const random = source.random();
    const { latencyMs, errorRate, dropRate } = config;
    const delay =
      typeof latencyMs === "number" ? latencyMs : randomInt(random, latencyMs.min, latencyMs.max);
    let fault: "rate_limited" | "error" | "drop" | undefined;
    let status: MockFaultStatus = 500;
    if (config.rateLimitBurst > 0) {
      config.rateLimitBurst -= 1;
      fault = "rate_limited";
    } else if (errorRate > 0 && random() < errorRate) {
      fault = "error";
      const statuses = config.errorStatuses;
      status = statuses[Math.floor(random() * statuses.length)] ?? 500;
    } else if (dropRate > 0 && random() < dropRate) {
      fault = "drop";
    }
    const { errorTiming, dropTiming, retryAfterSeconds } = config;

    if (delay > 0) {
      const signal = clientSignals.get(request) ?? request.signal;
      await sleepUnlessAborted(delay, signal);
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
      discardBody(response);
      return answer(async () => injected());
    }
    if (fault === "drop") return dropped(response);
    return response;
  }

  return { serve };
}
