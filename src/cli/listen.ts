/**
 * `medrecords listen --forward-to <url>`: the local development loop's
 * receiving half (docs/spec-decisions.md, "The local development loop").
 * The service does not deliver to private addresses, so a receiver on a
 * laptop cannot get the real deliveries; this command follows the event log
 * of the service (real or mock) with the catch-up poller and delivers each
 * event to the local URL as the service would, signed with a local secret.
 * It only reads the event log: it never creates a webhook, and nothing leaves
 * this machine but the API calls that read the log.
 */

import type { MedRecords } from "../client.js";
import { APIError, ConnectionError, NotFoundError, TimeoutError } from "../core/errors.js";
import { causeCode } from "../internal/cause-code.js";
import { sleepUnlessAborted } from "../internal/sleep.js";
import type { CatchUpPoller, EventLogGap } from "../poller/catch-up.js";
import { memoryCheckpoint } from "../poller/memory-checkpoint.js";
import { PAGE_LIMIT_MAX } from "../schemas/common.js";
import { EVENT_RETENTION_DAYS } from "../schemas/event-list.js";
import { type EventType, SUBSCRIBABLE_EVENT_TYPES } from "../schemas/events.js";
import { WEBHOOK_DELIVERY_TIMEOUT_MS } from "../schemas/webhooks.js";
import { type CheckpointStore, compareInstants } from "../shared/checkpoint-store.js";
import { commandLogger } from "./client-logger.js";
import { commandCheckpoint } from "./command-checkpoint.js";
import { commandClient } from "./command-client.js";
import { failure } from "./command-failure.js";
import { messageOf, oneLine } from "./error-text.js";
import {
  LISTEN_SEE_HELP,
  type ListenOptions,
  newSecret,
  parseListenOptions,
} from "./listen-options.js";
import { positionAfterNewest } from "./newest-position.js";
import { OutputClosedError } from "./process-output.js";
import { positionSince } from "./since.js";
import { terminalSafe } from "./terminal-text.js";
import { CommandError, type CommandIo } from "./usage-error.js";
import {
  createForwarder,
  type Forwarder,
  LISTEN_RETRY_SPEEDUP,
  retryDelaysMs,
} from "./webhook-forwarder.js";

/** Events per page: the most the command holds in memory at once, whatever the backlog. */
const PAGE_SIZE = PAGE_LIMIT_MAX;
/**
 * The longest wait between two tries while the service cannot be reached: a
 * mock restarted by hand is back within seconds, and is seen within this.
 */
const MAX_RECONNECT_DELAY_MS = 10_000;

export const LISTEN_HELP = `Usage: medrecords listen --forward-to <url> [options]

Follows the event log of a Medical Record Retrieval API v2 service (the real
one, or a reference server started with \`medrecords mock\`) and delivers each
event to <url> exactly as the service delivers webhooks: POST, the same
headers and body, signed (V1) with a local secret, a ${WEBHOOK_DELIVERY_TIMEOUT_MS / 1000}-second timeout, no
redirects followed, failed attempts retried. For a webhook receiver on your
machine, which the service cannot reach. It only reads the event log: it
never creates a webhook. Ctrl-C (SIGINT) or SIGTERM stops it cleanly
(checkpoint saved, exit status 0).

Options:
  --forward-to <url>      where to POST each event (required), such as
                          http://localhost:3000/webhooks
  --events <types>        comma-separated event types to forward
                          [default: ${SUBSCRIBABLE_EVENT_TYPES.join(", ")}]
  --since <when>          also forward the events since then: a duration back
                          from the service's time (30m, 2h, 1d) or an ISO 8601
                          date-time. Default: only events written after start.
  --secret-file <file>    sign with the secret in <file> (keep one across
                          runs); default: $MEDRECORDS_WEBHOOK_SECRET, else a
                          new secret, printed on start
  --secret <whsec_...>    the secret itself; visible in the process list and
                          shell history (a warning says so): prefer the
                          environment variable or --secret-file
  --checkpoint <file>     keep the position in <file> and resume from it on
                          the next run, without forwarding an event again
  --retry-schedule <s>    "dev": the service's retry delays divided by ${LISTEN_RETRY_SPEEDUP}
                          (1s, 5s, 30s, 2min); "spec": the service's own
                          (1min, 5min, 30min, 2h)            [default: dev]
  --interval <duration>   time between polls of the log      [default: 1s]
  --base-url <url>        address of the service (default: $MEDRECORDS_BASE_URL)
  -h, --help              show this help

Environment:
  MEDRECORDS_API_KEY      the API key (required; never taken as a flag). It
                          needs webhooks:read and retrievals:read.
  MEDRECORDS_BASE_URL     address of the service when --base-url is not given
  MEDRECORDS_WEBHOOK_SECRET  the secret to sign with, when neither --secret
                          nor --secret-file is given

Output: one line when ready (with the secret), then one line per attempt:
  <time>  <type>  <event id>  <retrieval request>  <what>  <status>  <ms>ms
<time> is the event's, on the service's clock (a mock's, however advanced or
sped up: what the receiver sees), not this machine's; <event id> is cut short
(rr- and 8 characters); <what> is the new status/stage, the action request,
or the documents released. <status> is the receiver's HTTP status,
"timeout", or error(<code>); a failed attempt adds when it is retried.
Retries pending when the command stops are listed on stderr (start again
with --since to send them again).

When the service cannot be reached (a mock restarted, a network gone), it
says so once on stderr and tries again with backoff (from --interval,
doubling, up to every ${MAX_RECONNECT_DELAY_MS / 1000}s) until the service answers, then resumes
from its checkpoint. A restarted mock holds a new event log: without
--checkpoint, its events are forwarded from its start.

Example, against a mock that accepts your own key (and keeps it across its
restarts):
  export MEDRECORDS_API_KEY=medrecords_sk_live_$(openssl rand -hex 16)
  medrecords mock --autopilot --speed 60 &
  export MEDRECORDS_BASE_URL=http://127.0.0.1:4010
  medrecords listen --forward-to http://localhost:3000/webhooks
`;

export async function listenCommand(
  argv: string[],
  io: CommandIo,
  deps: { fetch?: typeof fetch } = {},
): Promise<number> {
  const options = await parseListenOptions(argv, io);
  if (options === "help") {
    io.stdout(LISTEN_HELP);
    return 0;
  }
  return new ListenRun(options, io, deps.fetch).run();
}

/** No answer from the service: refused, unreachable, timed out, or a gateway in front of it. */
function unreachable(error: unknown): boolean {
  if (error instanceof ConnectionError) return true;
  return error instanceof APIError && [502, 503, 504].includes(error.status);
}

/** Why the service did not answer, in a word or two (the system's code: ECONNREFUSED). */
function unreachableWhy(error: unknown): string {
  if (error instanceof TimeoutError) return "no answer in time";
  if (error instanceof APIError) return `HTTP ${error.status}`;
  return causeCode(error) ?? messageOf(error);
}

/** One run of `medrecords listen`: the poller over the log, the forwarder to the receiver. */
class ListenRun {
  readonly #options: ListenOptions;
  readonly #io: CommandIo;
  /** Ends everything: Ctrl-C, or a retry's line that met a closed output. */
  readonly #fatal = new AbortController();
  #fatalError: unknown;
  readonly #signal: AbortSignal;
  readonly #mr: MedRecords;
  readonly #redact: (text: string) => string;
  readonly #secret: string;
  readonly #forwarder: Forwarder;
  #store: CheckpointStore;
  #poller: CatchUpPoller | undefined;

  constructor(options: ListenOptions, io: CommandIo, fetch: typeof globalThis.fetch | undefined) {
    this.#options = options;
    this.#io = io;
    this.#signal = AbortSignal.any([io.signal, this.#fatal.signal]);
    ({ mr: this.#mr, redact: this.#redact } = commandClient(io, {
      baseUrl: options.baseUrl,
      signal: this.#signal,
      seeHelp: LISTEN_SEE_HELP,
      fetch,
      // An unreachable service is said once, by this command, not once per attempt.
      logger: commandLogger(io, { unreachable: false }),
    }));
    // The poller judges the checkpoint by the service's clock (its Date header): a fast mock needs nothing more.
    this.#store = commandCheckpoint(options.checkpointPath);
    this.#secret = options.given?.secret ?? newSecret();
    this.#forwarder = createForwarder({
      url: options.forwardTo,
      secret: this.#secret,
      retryDelaysMs: retryDelaysMs(options.schedule),
      // Awaited by the poller: an event counts as handled once its line went out.
      print: async (line) => {
        await io.stdout(line);
      },
      signal: this.#signal,
      onFatal: (error) => {
        this.#fatalError = error;
        this.#fatal.abort(error);
      },
    });
  }

  async run(): Promise<number> {
    try {
      if (this.#signal.aborted) return 0;
      await this.#start();
      await this.#follow();
      if (this.#fatalError !== undefined) throw this.#fatalError;
      return 0;
    } catch (error) {
      if (error instanceof OutputClosedError) throw error;
      if (this.#fatalError instanceof OutputClosedError) throw this.#fatalError;
      // An attempt or a request cut short by Ctrl-C: the checkpoint holds what was delivered.
      if (this.#signal.aborted && !(error instanceof CommandError)) return 0;
      throw failure(error, this.#mr.baseUrl, this.#redact, "listen");
    } finally {
      this.#reportPending();
    }
  }

  /** The start position (unless a checkpoint was saved), then the ready line. */
  async #start(): Promise<void> {
    const { since, types, checkpointPath, given, forwardTo } = this.#options;
    const saved = await this.#store.load();
    if (saved === null) {
      const start =
        since === undefined
          ? await positionAfterNewest(this.#mr, types)
          : await positionSince(this.#mr, since);
      if (start !== null) await this.#store.save(start);
    } else if (since !== undefined) {
      this.#io.stderr(
        `medrecords listen: resuming from the checkpoint in ${checkpointPath} (${saved.created_at}); --since is ignored.\n`,
      );
    }
    const what =
      types.length === SUBSCRIBABLE_EVENT_TYPES.length ? "every event" : types.join(", ");
    const signed =
      given === undefined ? `the webhook secret ${this.#secret}` : `the secret from ${given.from}`;
    await this.#io.stdout(
      `Ready: forwarding ${what} of ${this.#mr.baseUrl} to ${forwardTo}, signed with ${signed} (Ctrl-C to stop)\n`,
    );
  }

  async #follow(): Promise<void> {
    this.#poller = this.#newPoller();
    const stop = () => void this.#poller?.stop();
    this.#signal.addEventListener("abort", stop, { once: true });
    try {
      while (!this.#signal.aborted) {
        await this.#runOnce(this.#poller);
        await sleepUnlessAborted(this.#options.intervalMs, this.#signal);
      }
    } finally {
      this.#signal.removeEventListener("abort", stop);
    }
  }

  #newPoller(): CatchUpPoller {
    return this.#mr.events.catchUp({
      checkpoint: this.#store,
      // Checked against the SDK's event types when the flags were parsed.
      types: this.#options.types as EventType[],
      pageSize: PAGE_SIZE,
      onEvent: (event) => this.#forwarder.deliver(event),
      onGap: (gap) => this.#warnGap(gap),
    });
  }

  async #runOnce(poller: CatchUpPoller): Promise<void> {
    try {
      await poller.runOnce();
    } catch (error) {
      if (this.#signal.aborted || !unreachable(error)) throw error;
      await this.#waitForService(error);
    }
  }

  /** Says once that the service cannot be reached, then tries again with backoff until it answers. */
  async #waitForService(error: unknown): Promise<void> {
    this.#io.stderr(
      `medrecords listen: cannot reach the service at ${this.#mr.baseUrl} (${terminalSafe(oneLine(this.#redact(unreachableWhy(error))))}); trying again with backoff, up to every ${MAX_RECONNECT_DELAY_MS / 1000}s, until it answers (Ctrl-C to stop).\n`,
    );
    let delayMs = this.#options.intervalMs;
    while (!this.#signal.aborted) {
      await sleepUnlessAborted(delayMs, this.#signal);
      if (this.#signal.aborted) return;
      const log = await this.#probe();
      if (log !== undefined) return this.#resume(log);
      delayMs = Math.min(delayMs * 2, MAX_RECONNECT_DELAY_MS);
    }
  }

  /**
   * Whether the service answers, and with the log the checkpoint was taken
   * on ("same": its last event is there, at its instant) or another one
   * ("other": a restarted mock, whose log starts afresh). Undefined: still
   * unreachable.
   */
  async #probe(): Promise<"same" | "other" | undefined> {
    const saved = await this.#store.load();
    const last = saved?.ids_at_created_at.at(-1);
    try {
      if (saved === null || last === undefined) {
        await this.#mr.events.list({ limit: 1 });
        return "same";
      }
      const event = await this.#mr.events.retrieve(last);
      return compareInstants(event.created_at, saved.created_at) === 0 ? "same" : "other";
    } catch (error) {
      if (error instanceof NotFoundError) return "other";
      if (unreachable(error)) return undefined;
      throw error;
    }
  }

  async #resume(log: "same" | "other"): Promise<void> {
    const back = `medrecords listen: the service at ${this.#mr.baseUrl} answers again`;
    const path = this.#options.checkpointPath;
    if (log === "other" && path === undefined) {
      // Its events are all new to this run: from the start of its log.
      this.#store = memoryCheckpoint();
      this.#poller = this.#newPoller();
      this.#io.stderr(
        `${back}, with a new event log (a restarted mock): forwarding its events from its start.\n`,
      );
      return;
    }
    const saved = await this.#store.load();
    const from = saved === null ? "" : ` (${terminalSafe(saved.created_at)})`;
    this.#io.stderr(
      log === "other"
        ? `${back}, with another event log (a restarted mock?); resuming from the checkpoint in ${path}${from}: its events before that instant are not forwarded.\n`
        : `${back}; resuming from the checkpoint${from}.\n`,
    );
  }

  #warnGap(gap: EventLogGap): void {
    this.#io.stderr(
      `medrecords listen: warning: the position to continue from (${terminalSafe(gap.checkpoint.created_at)}) is older than the event log's ${EVENT_RETENTION_DAYS}-day retention; continuing from ${terminalSafe(gap.oldestAvailable)}.\n`,
    );
  }

  /** Retries pending when the command stops, which a later run does not send again. */
  #reportPending(): void {
    const pending = this.#forwarder.pending();
    if (pending.length > 0 && !(this.#fatalError instanceof OutputClosedError)) {
      this.#io.stderr(
        `medrecords listen: stopped with ${pending.length} event(s) waiting for a retry, not sent again: ${pending.map(terminalSafe).join(", ")}\n`,
      );
    }
  }
}
