/**
 * Event-log catch-up (docs/spec-decisions.md, "Catch-up poller"): processes every event of the log
 * newer than a checkpoint, oldest first, at least once.
 *
 * The log lists newest first. A run lists from the checkpoint: when that one
 * page holds the whole backlog (the usual run), its events are handed over in
 * reverse. Otherwise the run walks forward in time windows of about a page
 * each (`created_after` inclusive, `created_before` exclusive: adjacent
 * windows neither overlap nor leave a gap), each page reversed, one pass over
 * the backlog with one page in memory (src/poller/time-windows.ts sizes the
 * windows); a millisecond holding more than a page is walked whole, `next` to
 * its oldest page and `previous` back. The last window is open-ended, so
 * events created during the walk are picked up. The checkpoint advances per event
 * once `onEvent` resolved and is saved after each page (and before a failing
 * `onEvent`'s error propagates), so a crash at any point replays at most the
 * unsaved events of one page and loses none.
 */
import { LinkWalk } from "../core/pagination.js";
import { PAGE_LIMIT_MAX, PAGE_LIMIT_MIN } from "../schemas/common.js";
import type { AnyEvent } from "../schemas/event-list.js";
import {
  EVENT_RETENTION_DAYS,
  EVENT_RETENTION_MS,
  EVENT_TYPE_FILTER_MAX,
  type EventListParams,
} from "../schemas/event-list.js";
import type { EventType } from "../schemas/events.js";
import { isCheckpointLeaseStore } from "../shared/checkpoint-lease.js";
import {
  type Checkpoint,
  type CheckpointStore,
  compareInstants,
  instantOf,
} from "../shared/checkpoint-store.js";
import { claimChecked, type DedupeStore } from "../shared/dedupe-store.js";
import { MedRecordsError } from "../shared/errors.js";
import { StoreUnavailableError } from "../shared/store-error.js";
import { parseCheckpoint } from "../stores/parse-checkpoint.js";
import type { CatchUpEvent, CatchUpEventHandlers, HandledLogType } from "./catch-up-events.js";
import { assertCheckpointPossible, CheckpointCursor } from "./checkpoint.js";
import { LeaseHold, LeaseLost } from "./lease-hold.js";
import { memoryCheckpoint } from "./memory-checkpoint.js";
import { TimeWindows } from "./time-windows.js";

/** One page of the event log as the poller reads it. */
export interface EventLogPage {
  results: AnyEvent[];
  next: string | null;
  previous: string | null;
  /** The service's time from the response's `Date` header, in epoch ms (whole seconds); undefined without one. */
  serverTimeMs: number | undefined;
}

/** How the poller reads the log; `mr.events` provides it. */
export interface EventLogReader {
  list(query: EventListParams): Promise<EventLogPage>;
  /** Fetches a `next` or `previous` link. */
  follow(url: string): Promise<EventLogPage>;
}

/** What `onGap` is told: events between the two instants may be gone from the log. */
export interface EventLogGap {
  /** The checkpoint the run started from, older than the log's retention (`EVENT_RETENTION_DAYS`). */
  checkpoint: Checkpoint;
  /**
   * The retention horizon, ISO 8601: the log holds the events created at or
   * after it. Events after `checkpoint.created_at` and before it must be
   * recovered another way: `mr.retrievalRequests.changes({ since })`.
   */
  oldestAvailable: string;
}

/**
 * Options of `mr.events.catchUp(options)`. `Types` is the tuple given as
 * `types`: it narrows what `onEvent` and the `on` functions receive.
 */
export interface CatchUpOptions<
  Types extends readonly EventType[] | undefined = readonly EventType[] | undefined,
> {
  /**
   * Where the position is kept between runs and restarts. A shipped store
   * (memory, file, PostgreSQL, Redis) is also a lease: several instances
   * calling `start()` on one take turns, one polling at a time; see
   * docs/stores.md, "Running on several instances".
   * @default memoryCheckpoint() (lost on restart)
   * @example fileCheckpoint(".medrecords/checkpoint.json")
   */
  checkpoint?: CheckpointStore;
  /**
   * Only these event types (sent as `type`, 1 to `EVENT_TYPE_FILTER_MAX`), e.g.
   * `["retrieval_request.status_changed"]`: `onEvent` then receives those
   * types only, typed as such. A name this SDK does not know fails to compile.
   * @default every type the key can read
   */
  types?: Types;
  /**
   * Functions per event type, as `createWebhookHandler`'s `on`: each receives
   * its type's entry, typed. With `types`, only those types may be named.
   * Called before `onEvent`; like it, a function that throws stops the run
   * and its event comes again on the next one.
   * @example { "retrieval_request.status_changed": async (event) => { await refresh(event.data.retrieval_request_id) } }
   */
  on?: NoInfer<CatchUpEventHandlers<HandledLogType<Types>>>;
  /**
   * Processes one event (after its `on` function, if any). At least one of
   * `on` and `onEvent` is required. Events come oldest first; the checkpoint
   * passes an event only once this resolved. Throwing stops the run (its
   * error is the run's) and the event comes again on the next run. An event
   * can come more than once (at-least-once): make processing idempotent, or
   * pass `dedupe`. Without `types`, narrow with `isKnownEvent(event)` before
   * switching on `event.type`.
   */
  onEvent?: (event: NoInfer<CatchUpEvent<Types>>) => void | Promise<void>;
  /**
   * Called when the checkpoint is older than the log's retention (`EVENT_RETENTION_DAYS`), so
   * events may have expired unseen. Recover them with
   * `mr.retrievalRequests.changes({ since })` (incremental polling on the
   * retrieval requests themselves, which has no retention), then resolve: the
   * run continues from `oldestAvailable`. Throwing stops the run with the
   * checkpoint unchanged. Without `onGap`, the run fails with an
   * `EventLogGapError` instead of skipping anything silently.
   *
   * "Now" is the service's `Date` header (rounded up to the next second, so
   * a gap is never missed; the client's clock when the header is absent).
   */
  onGap?: (gap: EventLogGap) => void | Promise<void>;
  /**
   * Events per page (sent as `limit`, 1 to `PAGE_LIMIT_MAX`): also the most events the
   * poller holds in memory at once.
   * @default PAGE_LIMIT_MAX
   */
  pageSize?: number;
  /**
   * A store of event ids shared with a webhook handler
   * (`createWebhookHandler({ dedupe })`): an event one of them processed is
   * skipped by the other and counted in `duplicates`. Each event is claimed
   * (an in-progress lease) before `onEvent`, marked done once it resolved,
   * and released when it throws. An event in progress elsewhere (the webhook
   * handler is processing it right now) stops the run before it, with the
   * checkpoint saved up to the event before it (`inProgress: 1` in the
   * result); the next run retries it. A crash during `onEvent` leaves a lease
   * that lapses after the store's `leaseSeconds`, and the event is processed
   * again then.
   */
  dedupe?: DedupeStore;
  /**
   * How long an id stays done in `dedupe`, in seconds.
   * @default the log's retention (`EVENT_RETENTION_DAYS`), in seconds
   */
  dedupeTtlSeconds?: number;
  /**
   * How many times in a row `onEvent` may fail on one event (counted by this
   * poller, across its runs) before the event is handed to `onDeadLetter`
   * and passed. Needs `onDeadLetter`.
   * @default no limit: a failing event stops every run until it succeeds
   * @example 5
   */
  maxAttempts?: number;
  /**
   * Takes an event whose `onEvent` failed `maxAttempts` times in a row, with
   * the last error: park it where a person will see it. Once this resolves,
   * the event is passed (the checkpoint advances; with `dedupe`, the id is
   * marked done). Throwing stops the run, and the event is tried again on
   * the next one. Needs `maxAttempts`.
   * @example async (event, error) => { await deadLetters.insert({ id: event.id, event, error: String(error) }) }
   */
  onDeadLetter?: (event: AnyEvent, error: unknown) => void | Promise<void>;
  /**
   * Receives the error of a failed run started by `start()`; the next
   * interval runs again from the saved checkpoint.
   * @default console.error
   */
  onError?: (error: unknown) => void;
}

/** The options the poller runs with: `mr.events.catchUp` has composed `on` into `onEvent`. */
export type PollerOptions = CatchUpOptions & {
  onEvent: (event: AnyEvent) => void | Promise<void>;
};

/** What one run of the poller did. */
export interface CatchUpResult {
  /** Events handed to `onEvent` that resolved. */
  processed: number;
  /** Events newer than the checkpoint skipped because `dedupe` had already seen them. */
  duplicates: number;
  /**
   * 1 when the run stopped before an event that `dedupe` says is in progress
   * elsewhere (the next run retries it), else 0.
   */
  inProgress: number;
  /** The saved position after the run; null when nothing was ever processed. */
  checkpoint: Checkpoint | null;
  /**
   * Whether this run held the checkpoint's lease to its end. False when
   * another instance holds it: at the start (nothing was processed, the
   * result is immediate) or by taking it over during the run (which then
   * stopped before its next event). Always true with a store without leases.
   */
  leader: boolean;
}

/**
 * Follows the event log from a checkpoint: `runOnce()` to catch up now, or
 * `start()`/`stop()` to keep catching up on an interval. Made by `mr.events.catchUp()`.
 */
export interface CatchUpPoller {
  /** Processes every event newer than the checkpoint, then resolves. Calls never overlap: a second waits for the first. */
  runOnce(): Promise<CatchUpResult>;
  /**
   * Runs now, then again `intervalMs` after each run ends (never
   * overlapping). With a leased checkpoint the lease is kept between runs
   * (and renewed by each) while `intervalMs` is shorter than the lease, so
   * the same instance stays the one polling.
   */
  start(options: { intervalMs: number }): void;
  /**
   * Stops the interval; resolves once the run in flight, if any, has ended
   * (at its next page boundary, checkpoint saved), and the checkpoint's
   * lease, if held, is released so that another instance takes over at once.
   */
  stop(): Promise<void>;
}

/** A run found the checkpoint past the log's retention and no `onGap` was given. */
export class EventLogGapError extends MedRecordsError {
  override name = "EventLogGapError";
  /** The checkpoint and the retention horizon: what `onGap` would have received. */
  readonly gap: EventLogGap;
  constructor(gap: EventLogGap) {
    super(
      `The catch-up checkpoint (${gap.checkpoint.created_at}) is older than the event log's ${EVENT_RETENTION_DAYS}-day retention: events before ${gap.oldestAvailable} may be gone. Recover them with mr.retrievalRequests.changes({ since }) from an onGap option, which lets the poller continue.`,
    );
    this.gap = gap;
  }
}

/** For tests: what a poller held at once. Not exported from `medrecords`. */
export const diagnostics = Symbol("medrecords.catchUp.diagnostics");

export interface CatchUpDiagnostics {
  /** Events of the page in hand. */
  eventsHeld: number;
  /** The most events held at once over the poller's life. */
  maxEventsHeld: number;
  /** Pages fetched over the poller's life. */
  pagesFetched: number;
}

const DEFAULT_PAGE_SIZE = PAGE_LIMIT_MAX;
const DEFAULT_DEDUPE_TTL_SECONDS = EVENT_RETENTION_MS / 1000;
const DEFAULT_DESCRIPTION = "The checkpoint loaded from the `checkpoint` store of events.catchUp";

export function createCatchUpPoller(
  reader: EventLogReader,
  options: PollerOptions,
): CatchUpPoller & { readonly [diagnostics]: CatchUpDiagnostics } {
  return new EventCatchUp(reader, options);
}

class EventCatchUp implements CatchUpPoller {
  readonly [diagnostics]: CatchUpDiagnostics = { eventsHeld: 0, maxEventsHeld: 0, pagesFetched: 0 };
  readonly #store: CheckpointStore;
  readonly #options: PollerOptions;
  /** Tail of the run queue: runs never overlap. */
  #queue: Promise<unknown> = Promise.resolve();
  #started = false;
  #stopping = false;
  /** Bumped by every start and stop, so a loop from before a restart never reschedules itself. */
  #generation = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The event whose `onEvent` failed last, and how many times in a row (for `maxAttempts`). */
  #failures: { id: string; count: number } | undefined;
  /** Who this poller is to the checkpoint's lease: random, one per poller. */
  readonly #owner = crypto.randomUUID();
  /** What each run reads of this poller. */
  readonly #host: RunHost;

  constructor(reader: EventLogReader, options: PollerOptions) {
    if (typeof options?.onEvent !== "function") {
      throw new TypeError("events.catchUp: `onEvent` must be a function.");
    }
    const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(pageSize) || pageSize < PAGE_LIMIT_MIN || pageSize > PAGE_LIMIT_MAX) {
      throw new RangeError(
        `events.catchUp: \`pageSize\` must be an integer from ${PAGE_LIMIT_MIN} to ${PAGE_LIMIT_MAX}.`,
      );
    }
    const { maxAttempts, onDeadLetter } = options;
    if (maxAttempts !== undefined && (!Number.isInteger(maxAttempts) || maxAttempts < 1)) {
      throw new RangeError("events.catchUp: `maxAttempts` must be an integer >= 1.");
    }
    if (maxAttempts !== undefined && typeof onDeadLetter !== "function") {
      throw new TypeError(
        "events.catchUp: `maxAttempts` needs `onDeadLetter(event, error)`, which takes the event that failed that many times before it is passed.",
      );
    }
    if (onDeadLetter !== undefined && maxAttempts === undefined) {
      throw new TypeError(
        "events.catchUp: `onDeadLetter` needs `maxAttempts`: how many failures in a row hand an event over to it.",
      );
    }
    const { types } = options;
    if (types !== undefined && (types.length < 1 || types.length > EVENT_TYPE_FILTER_MAX)) {
      throw new RangeError(
        `events.catchUp: \`types\` must name 1 to ${EVENT_TYPE_FILTER_MAX} event types.`,
      );
    }
    this.#store = options.checkpoint ?? memoryCheckpoint();
    this.#options = options;
    this.#host = {
      store: this.#store,
      options,
      pageSize,
      list: async (query) => this.#hold(await reader.list(query)),
      follow: async (link) => this.#hold(await reader.follow(link)),
      process: (event, dedupe, ttl) => this.#process(event, dedupe, ttl),
      stopping: () => this.#stopping,
      settle: () => {
        this[diagnostics].eventsHeld = 0;
      },
    };
  }

  runOnce(): Promise<CatchUpResult> {
    return this.#enqueue(false);
  }

  /** A run after the others; one of `start()`'s keeps the lease for the next. */
  #enqueue(keepLease: boolean): Promise<CatchUpResult> {
    const run = this.#queue.then(() => this.#run(keepLease));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  start({ intervalMs }: { intervalMs: number }): void {
    if (!(Number.isFinite(intervalMs) && intervalMs > 0)) {
      throw new RangeError("events.catchUp: start({ intervalMs }) needs a number of ms above 0.");
    }
    if (this.#started) throw new MedRecordsError("This catch-up poller is already started.");
    this.#started = true;
    this.#stopping = false;
    const generation = ++this.#generation;
    const onError =
      this.#options.onError ??
      ((error: unknown) =>
        console.error("medrecords: an event catch-up run failed; the next one retries.", error));
    const tick = async () => {
      this.#timer = undefined;
      try {
        await this.#enqueue(true);
      } catch (error) {
        try {
          onError(error);
        } catch {
          // A failing error reporter must not end the loop.
        }
      }
      if (this.#started && generation === this.#generation) {
        this.#timer = setTimeout(tick, intervalMs);
      }
    };
    void tick();
  }

  async stop(): Promise<void> {
    this.#started = false;
    this.#stopping = true;
    this.#generation++;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    try {
      await this.#queue;
    } finally {
      this.#stopping = false;
    }
    // Unreleased (the store unreachable), the lease lapses on its own within leaseSeconds.
    if (isCheckpointLeaseStore(this.#store)) {
      await this.#store.release(this.#owner).catch(() => undefined);
    }
  }

  /**
   * One run. With a leased checkpoint: acquire first (another instance
   * polling: done at once), walk while holding the lease, and release at the
   * end unless `keepLease` (runs of `start()`, until `stop()`).
   */
  async #run(keepLease: boolean): Promise<CatchUpResult> {
    const store = this.#store;
    if (!isCheckpointLeaseStore(store)) return this.#walk(undefined);
    const acquiredAt = Date.now();
    const fence = await store.acquire(this.#owner);
    if (fence === null) {
      return {
        processed: 0,
        duplicates: 0,
        inProgress: 0,
        checkpoint: await store.load(),
        leader: false,
      };
    }
    try {
      return await this.#walk(new LeaseHold(store, this.#owner, fence, acquiredAt));
    } catch (error) {
      if (error instanceof LeaseLost) return error.result;
      throw error;
    } finally {
      if (!keepLease) await store.release(this.#owner).catch(() => undefined);
    }
  }

  #hold(page: EventLogPage): EventLogPage {
    const stats = this[diagnostics];
    stats.pagesFetched += 1;
    stats.eventsHeld = page.results.length;
    stats.maxEventsHeld = Math.max(stats.maxEventsHeld, stats.eventsHeld);
    return page;
  }

  async #walk(hold: LeaseHold | undefined): Promise<CatchUpResult> {
    // Checked here rather than trusted to each store: a user's store is read the same way.
    const stored = await this.#store.load();
    const where = this.#store.description ?? DEFAULT_DESCRIPTION;
    const loaded = stored === null ? null : parseCheckpoint(stored, where);
    return new CatchUpRun(this.#host, hold, loaded, where).walk();
  }

  /**
   * One event: claimed in `dedupe` (when given), handed to `onEvent`, marked
   * done. Returns (or, when something was pending, resolves) what became of
   * it; "dead_letter" once `onDeadLetter` took it. Rejects when it must come
   * again on the next run.
   */
  #process(event: AnyEvent, dedupe: DedupeStore | undefined, ttl: number): Step | Promise<Step> {
    return dedupe === undefined ? this.#handle(event) : this.#processClaimed(event, dedupe, ttl);
  }

  async #processClaimed(event: AnyEvent, dedupe: DedupeStore, ttl: number): Promise<Step> {
    const claim = await claimChecked(dedupe, event.id).catch((error: unknown) => {
      throw asStoreError(error, "claim");
    });
    if (claim.state === "done") return "duplicate";
    if (claim.state === "in_progress") return "in_progress";
    const { token } = claim;
    let outcome: Handled;
    try {
      outcome = await this.#handle(event);
    } catch (failure) {
      await dedupe.release(event.id, token).catch(() => undefined);
      throw failure;
    }
    try {
      await dedupe.complete(event.id, token, ttl);
    } catch (error) {
      await dedupe.release(event.id, token).catch(() => undefined);
      throw asStoreError(error, "complete");
    }
    return outcome;
  }

  /** `onEvent`, synchronous when it is; a failure counts towards `maxAttempts`. */
  #handle(event: AnyEvent): Handled | Promise<Handled> {
    let pending: void | Promise<void>;
    try {
      // Called as a plain function, as the user's own `onEvent` is handed over unwrapped.
      const { onEvent } = this.#options;
      pending = onEvent(event);
    } catch (error) {
      return this.#failed(event, error);
    }
    if (!isThenable(pending)) return this.#passed();
    return Promise.resolve(pending).then(
      () => this.#passed(),
      (error: unknown) => this.#failed(event, error),
    );
  }

  #passed(): "processed" {
    this.#failures = undefined;
    return "processed";
  }

  /** Rejects with `error` (the event comes again), unless it failed `maxAttempts` times: then to `onDeadLetter`. */
  async #failed(event: AnyEvent, error: unknown): Promise<"dead_letter"> {
    const failures = this.#failures?.id === event.id ? this.#failures : { id: event.id, count: 0 };
    failures.count += 1;
    this.#failures = failures;
    const { maxAttempts, onDeadLetter } = this.#options;
    if (maxAttempts === undefined || onDeadLetter === undefined || failures.count < maxAttempts) {
      throw error;
    }
    await onDeadLetter(event, error);
    this.#failures = undefined;
    return "dead_letter";
  }
}

/** What a run reads of its poller. */
interface RunHost {
  readonly store: CheckpointStore;
  readonly options: PollerOptions;
  readonly pageSize: number;
  /** A page of the log (counted in the diagnostics). */
  list(query: EventListParams): Promise<EventLogPage>;
  follow(link: string): Promise<EventLogPage>;
  /** One event through the dedupe store and `onEvent` (see `EventCatchUp.#process`). */
  process(event: AnyEvent, dedupe: DedupeStore | undefined, ttl: number): Step | Promise<Step>;
  /** Whether `stop()` was called: the run ends at the next page. */
  stopping(): boolean;
  /** No page held any more (the diagnostics). */
  settle(): void;
}

/** How a window of the walk ended: on to the next one, or the run is over. */
type WindowEnd = "next" | "done" | "stopped";

/**
 * One run of the poller over the log, from the checkpoint to now: what it
 * counted, where it stands, and the steps of the walk (check for a gap, hand
 * a page over, walk the windows, walk a crowded millisecond).
 */
class CatchUpRun {
  readonly #host: RunHost;
  readonly #hold: LeaseHold | undefined;
  readonly #loaded: Checkpoint | null;
  readonly #where: string;
  readonly #position: CheckpointCursor;
  readonly #dedupe: DedupeStore | undefined;
  readonly #ttl: number;
  /** From the checkpoint's own instant (see `walk`). */
  readonly #query: EventListParams;
  /** A link that repeats within this run would make it loop forever. */
  readonly #links = new LinkWalk(null, "event log");
  #processed = 0;
  #duplicates = 0;
  #inProgress = 0;
  #unsaved = false;

  constructor(
    host: RunHost,
    hold: LeaseHold | undefined,
    loaded: Checkpoint | null,
    where: string,
  ) {
    this.#host = host;
    this.#hold = hold;
    this.#loaded = loaded;
    this.#where = where;
    this.#position = new CheckpointCursor(loaded);
    this.#dedupe = host.options.dedupe;
    this.#ttl = host.options.dedupeTtlSeconds ?? DEFAULT_DEDUPE_TTL_SECONDS;
    // `created_after` is inclusive, so the events sharing the checkpoint's instant come again
    // and the ids the checkpoint holds for it tell the processed ones from the rest
    // (`position.covers`).
    this.#query = { limit: host.pageSize };
    if (host.options.types !== undefined) this.#query.type = [...host.options.types];
    if (loaded !== null) this.#query.created_after = loaded.created_at;
    hold?.track(this.result, loaded);
  }

  /** What the run came to so far (also what a lost lease reports). */
  readonly result = (): CatchUpResult => ({
    processed: this.#processed,
    duplicates: this.#duplicates,
    inProgress: this.#inProgress,
    checkpoint: this.#position.snapshot(),
    leader: true,
  });

  async walk(): Promise<CatchUpResult> {
    const page = await this.#host.list(this.#query);
    if (this.#loaded !== null) await this.#checkGap(this.#loaded, page);
    // The whole backlog in one page (the usual run): oldest first, done.
    if (page.next === null) {
      await this.#handOver(page);
    } else if ((await this.#walkWindows(page)) === "stopped") {
      // Stopped within a crowded millisecond: the page it held is not let go here.
      return this.result();
    }
    this.#host.settle();
    return this.result();
  }

  /**
   * A checkpoint older than the log keeps: to `onGap` (or an
   * `EventLogGapError`), then on from the oldest event the log still has.
   * Judged by the service's clock, which the first response brings (its Date header).
   */
  async #checkGap(loaded: Checkpoint, page: EventLogPage): Promise<void> {
    assertCheckpointPossible(loaded, this.#where, page.serverTimeMs);
    // Rounded up: the Date header has whole seconds, and a gap must not be missed.
    const nowMs = page.serverTimeMs === undefined ? Date.now() : page.serverTimeMs + 999;
    const oldestAvailable = new Date(nowMs - EVENT_RETENTION_MS).toISOString();
    if (compareInstants(loaded.created_at, oldestAvailable) >= 0) return;
    const gap = { checkpoint: loaded, oldestAvailable };
    const { onGap } = this.#host.options;
    if (onGap === undefined) throw new EventLogGapError(gap);
    await onGap(gap);
    this.#position.reset(oldestAvailable);
    this.#unsaved = true;
    await this.#save();
  }

  /**
   * More than a page: forward in time windows of about a page each, each
   * page reversed (src/poller/time-windows.ts). Without a checkpoint, from
   * the retention horizon (the epoch when the service's time is unknown).
   */
  async #walkWindows(first: EventLogPage): Promise<WindowEnd> {
    let nowMs = nowOf(first);
    const start =
      this.#position.snapshot()?.created_at ??
      new Date(
        first.serverTimeMs === undefined ? 0 : first.serverTimeMs - EVENT_RETENTION_MS,
      ).toISOString();
    const windows = new TimeWindows(start, this.#host.pageSize, spanOf(first));
    for (;;) {
      if (this.#host.stopping()) return "done";
      const window = windows.next(nowMs);
      const bounded: EventListParams = { ...this.#query, created_after: window.after };
      if (window.before !== undefined) bounded.created_before = window.before;
      const page = await this.#host.list(bounded);
      nowMs = nowOf(page);
      const end =
        page.next === null
          ? await this.#finishWindow(page, windows)
          : await this.#crowdedWindow(page, windows);
      if (end !== "next") return end;
    }
  }

  /** A window that fits one page: handed over, and the windows told how full it was. */
  async #finishWindow(page: EventLogPage, windows: TimeWindows): Promise<WindowEnd> {
    if (await this.#handOver(page)) return "done";
    return windows.complete(page.results.length) ? "next" : "done";
  }

  /**
   * A window over a page: narrowed and listed again, unless it is one
   * millisecond holding more than a page, which is walked whole: `next` to
   * its oldest page, then `previous` back, each handed over.
   */
  async #crowdedWindow(first: EventLogPage, windows: TimeWindows): Promise<WindowEnd> {
    const span = spanOf(first);
    if (windows.full(span.newestMs, span.oldestMs)) return "next";
    let page = first;
    let count = page.results.length;
    while (page.next !== null) {
      if (this.#host.stopping()) return "stopped";
      this.#links.follow("next", page.next);
      page = await this.#host.follow(page.next);
      count += page.results.length;
    }
    for (;;) {
      if (await this.#handOver(page)) return "done";
      if (page.previous === null || this.#host.stopping()) break;
      this.#links.follow("previous", page.previous);
      page = await this.#host.follow(page.previous);
    }
    return windows.complete(count) ? "next" : "done";
  }

  /** Hands `page`'s events over oldest first and saves; true when the run must stop (an event in progress elsewhere). */
  async #handOver(page: EventLogPage): Promise<boolean> {
    const position = this.#position;
    const hold = this.#hold;
    for (let i = page.results.length - 1; i >= 0; i--) {
      const event = page.results[i] as AnyEvent;
      if (position.covers(event)) continue;
      // Awaited only when a renewal or the handler is pending: a synchronous
      // `onEvent` then costs no promise per event.
      const renewal = hold?.renewIfDue();
      if (renewal !== undefined) await renewal;
      let step: Step;
      try {
        const pending = this.#host.process(event, this.#dedupe, this.#ttl);
        step = typeof pending === "string" ? pending : await pending;
      } catch (error) {
        // Keep what was done; the failing event comes again next run.
        await this.#save().catch(() => undefined);
        throw error;
      }
      if (step === "in_progress") {
        // Processed elsewhere right now: stop before it, the next run retries it.
        this.#inProgress = 1;
        break;
      }
      if (step === "duplicate") this.#duplicates += 1;
      if (step === "processed") this.#processed += 1;
      position.advance(event);
      this.#unsaved = true;
    }
    await this.#save();
    return this.#inProgress > 0;
  }

  async #save(): Promise<void> {
    const snapshot = this.#position.snapshot();
    if (this.#unsaved && snapshot !== null) {
      // Fenced: refused once another instance took the lease (the run then ends quietly).
      await (this.#hold === undefined
        ? this.#host.store.save(snapshot)
        : this.#hold.save(snapshot));
    }
    this.#unsaved = false;
  }
}

/** A time no event of the log can be newer than, as of `page`'s answer: the service's next second (this machine's when unknown). */
function nowOf(page: EventLogPage): number {
  return (page.serverTimeMs ?? Date.now()) + 1000;
}

/** The times of a page's newest and oldest events (it lists newest first). */
function spanOf(page: EventLogPage): { newestMs: number; oldestMs: number } {
  const newest = page.results[0];
  const oldest = page.results[page.results.length - 1];
  if (newest === undefined || oldest === undefined) {
    throw new MedRecordsError("The event log answered an empty page with a `next` link.");
  }
  return { newestMs: instantOf(newest.created_at).ms, oldestMs: instantOf(oldest.created_at).ms };
}

/** What became of one event. */
type Handled = "processed" | "dead_letter";
type Step = Handled | "duplicate" | "in_progress";

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === "object" || typeof value === "function") &&
    typeof (value as PromiseLike<unknown>).then === "function"
  );
}

/** A store's error as a `StoreUnavailableError`; the shipped stores throw one already, and a one-phase store's TypeError passes. */
function asStoreError(error: unknown, operation: string): unknown {
  if (error instanceof StoreUnavailableError || error instanceof TypeError) return error;
  return new StoreUnavailableError("the catch-up poller's `dedupe` store", operation, error);
}
