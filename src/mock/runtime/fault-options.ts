/**
 * What `mock.faults.set()` takes, declared once as a zod schema with its
 * type of the same name, and the active configuration it becomes (every
 * option filled in with its default).
 */
import * as z from "zod";

const MAX_TIMER_MS = 2_147_483_647;

const Rate = z.number().min(0).max(1);
const Ms = z.number().int().min(0).max(MAX_TIMER_MS);

/** A 5xx status `errorRate` may answer with. */
export type MockFaultStatus = 500 | 502 | 503 | 504;

/** When an injected fault strikes, relative to serving the request. */
export type MockFaultTiming = "before" | "after";

// Plain unions rather than zod pairs: the documentation of the configuration
// links to a plain alias, where it would spell a zod-inferred one out.
const FaultStatus = z.literal([500, 502, 503, 504]) satisfies z.ZodType<MockFaultStatus>;
const FaultTiming = z.enum(["before", "after"]) satisfies z.ZodType<MockFaultTiming>;

/** The schema of {@link MockFaultReorder}; medrecords/mock exports only the type. */
export const MockFaultReorder = z.strictObject({
  /**
   * Deliveries held back before the whole batch is sent in shuffled order.
   * @default 10
   * @example 3
   */
  window: z.number().int().min(2).max(10_000).default(10),
  /**
   * Longest real time in ms a delivery is held when the window does not fill
   * (a running server with nobody calling `deliveries.flush()` still
   * delivers). `deliveries.flush()` sends everything held at once.
   * @default 100
   * @example 60_000
   */
  maxHoldMs: Ms.default(100),
});
/** Reordering of webhook deliveries: how many are held back and for how long. */
export type MockFaultReorder = z.input<typeof MockFaultReorder>;

/** A delay range drawn uniformly per request (integers, both ends included). */
const LatencyRange = z
  .strictObject({
    /** Shortest delay, ms. */
    min: Ms,
    /** Longest delay, ms. */
    max: Ms,
  })
  .refine((range) => range.min <= range.max, "min must not be greater than max");

/**
 * The schema of {@link MockFaultOptions}, which `set()` parses
 * with; medrecords/mock exports only the type.
 */
export const MockFaultOptions = z.strictObject({
  /**
   * Real wall-clock delay before each faulted request is answered (API origin,
   * and storage with `includeStorage`): a fixed number of ms, or a range drawn
   * uniformly per request (integers, both ends included). The delay comes
   * before any other fault, so a 429, a 5xx or a drop is late too. Aborting
   * the request (its `signal`) ends the wait and fails the fetch.
   * @default 0
   * @example { min: 50, max: 250 }
   */
  latencyMs: z.union([Ms, LatencyRange]).optional(),
  /**
   * Fraction (0 to 1) of faulted requests answered with a 5xx from
   * `errorStatuses`, body `{ error: { code, message } }`: 500
   * `internal_error`, 502 `bad_gateway`, 503 `service_unavailable`, 504
   * `gateway_timeout`. See `errorTiming` for whether the request was applied.
   * @default 0
   * @example 0.1
   */
  errorRate: Rate.optional(),
  /**
   * Statuses `errorRate` picks from, uniformly.
   * @default [500, 502, 503]
   * @example [503]
   */
  errorStatuses: z.array(FaultStatus).min(1).optional(),
  /**
   * `"before"`: the 5xx replaces the request, which is never applied (the
   * usual outage; any retry is safe). `"after"`: the request is applied (a
   * create creates, an event is emitted) and its answer replaced by the 5xx,
   * for testing that non-idempotent calls are not blindly retried.
   * @default "before"
   */
  errorTiming: FaultTiming.optional(),
  /**
   * The next N faulted requests, whatever their key, path or method, are
   * answered 429 `rate_limited` with `Retry-After: retryAfterSeconds` and are
   * not applied. Counts down; `current()` reports what is left.
   * @default 0
   * @example 3
   */
  rateLimitBurst: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  /**
   * The `Retry-After` value (seconds) of the 429s of `rateLimitBurst`.
   * @default 1
   * @example 0
   */
  retryAfterSeconds: z.number().int().min(0).max(86_400).optional(),
  /**
   * Fraction (0 to 1) of faulted requests whose connection is dropped (reset)
   * instead of answered: the fetch fails with a network error. Drawn only
   * for requests not already answered by a 429 or a 5xx.
   * @default 0
   * @example 0.05
   */
  dropRate: Rate.optional(),
  /**
   * `"after"`: the request is applied, then the connection is reset midway
   * through the real response (over HTTP the status line and part of the body
   * are written first): the server did the write, the client never learned
   * it, the case for idempotency tests. `"before"`: reset before the request
   * is applied; nothing happened.
   * @default "after"
   */
  dropTiming: FaultTiming.optional(),
  /**
   * Also inject `latencyMs`, `errorRate`, `rateLimitBurst` and `dropRate` on
   * the presigned upload/download origin. Off, only the API origin is faulted.
   * The control API (`/__mock/*`) is never faulted.
   * @default false
   */
  includeStorage: z.boolean().optional(),
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
  duplicateRate: Rate.optional(),
  /**
   * Holds webhook event delivery attempts (and their duplicates) back and
   * sends each batch in shuffled order, once `window` are held, after
   * `maxHoldMs`, or on `deliveries.flush()`, whichever comes first. Nothing is
   * lost: every held attempt is sent. `true` means `{ window: 10, maxHoldMs: 100 }`.
   * @default false
   * @example { window: 5, maxHoldMs: 60_000 }
   */
  reorder: z.union([z.boolean(), MockFaultReorder]).optional(),
  /**
   * Added to the mock clock's time in the signed `X-Service-Timestamp` of
   * every delivery attempt (events, tests and redeliveries), as if the
   * sender's clock were off; receivers reject beyond
   * `WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS` either way. The
   * delivery records keep the mock clock's time.
   * @default 0
   * @example 301_000
   */
  deliveryClockSkewMs: z.number().int().min(-MAX_TIMER_MS).max(MAX_TIMER_MS).optional(),
  /**
   * Seed (unsigned 32-bit integer) of the PRNG behind every random choice.
   * `set(current())` replays from the start of the sequence.
   * @default a random seed, reported by `current()`
   * @example 42
   */
  seed: z.number().int().min(0).max(0xffff_ffff).optional(),
});
/**
 * What `mock.faults.set()` takes. Each call replaces the whole configuration:
 * an option left out takes its default, which injects nothing.
 */
export type MockFaultOptions = z.input<typeof MockFaultOptions>;

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

/**
 * Parses `set()`'s argument; throws a TypeError naming every option that is
 * unknown or out of range.
 */
export function parseFaultOptions(options: MockFaultOptions): z.output<typeof MockFaultOptions> {
  const parsed = MockFaultOptions.safeParse(options);
  if (!parsed.success) {
    const reasons = parsed.error.issues
      .map((i) => `${i.path.length > 0 ? i.path.join(".") : "options"}: ${i.message}`)
      .join("; ");
    throw new TypeError(`mock.faults.set: ${reasons}.`);
  }
  return parsed.data;
}

/** The configuration parsed `options` give: each left-out option at its default. */
export function faultConfig(
  options: z.output<typeof MockFaultOptions>,
  seed: number,
): MockFaultConfig {
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
    reorder: reorder === true ? MockFaultReorder.parse({}) : reorder,
    deliveryClockSkewMs: options.deliveryClockSkewMs ?? 0,
    seed,
  };
}
