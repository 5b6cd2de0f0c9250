import type { CustodyCheckpoint } from "../core/custody-log.js";
import type { CustodyLogError } from "../core/errors.js";

/** The time-stamping authority a log's checkpoints are witnessed by. */
export interface TsaOptions {
  /**
   * The TSA's RFC 3161 address (HTTP POST of `application/timestamp-query`),
   * one the firm names and whose certificate it can show.
   * @example "https://freetsa.org/tsr"
   */
  url: string;
  /**
   * How long one request may take, in milliseconds.
   * @default 10_000
   */
  timeoutMs?: number;
}

/** Options every durable log takes for its witnessed checkpoints. */
export interface CheckpointOptions {
  /** The TSA that witnesses checkpoints; without it, `checkpoint()` fails and none are taken. */
  tsa?: TsaOptions;
  /**
   * Take a checkpoint after every this many entries (needs `tsa`), in the
   * background: the append that completes the count resolves without waiting
   * for the TSA. Without it, checkpoints are taken only by `checkpoint()`.
   * @example 100
   */
  checkpointEvery?: number;
  /**
   * Receives a background checkpoint that failed (the TSA down, say); it is
   * tried again after the next append. A download never fails because of it.
   * @default console.error
   */
  onError?: (error: unknown) => void;
}

export type { CustodyCheckpoint } from "../core/custody-log.js";

/** A checkpoint as stored: one JSON line of `<path>.checkpoints`, or a row of `<table>_checkpoints`. */
export interface StoredCheckpoint {
  seq: number;
  hash: string;
  /** ISO 8601. */
  time: string;
  /** The token, base64. */
  token: string;
}

export const storedCheckpoint = (checkpoint: CustodyCheckpoint): StoredCheckpoint => ({
  seq: checkpoint.seq,
  hash: checkpoint.hash,
  time: checkpoint.time.toISOString(),
  token: bytesToBase64(checkpoint.token),
});

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export function base64ToBytes(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

/** Refuses checkpoint options that could only fail later. */
export function checkCheckpointOptions(fn: string, options: CheckpointOptions): void {
  const { tsa, checkpointEvery, onError } = options;
  if (tsa !== undefined && (typeof tsa?.url !== "string" || !/^https?:\/\//.test(tsa.url))) {
    throw new TypeError(`${fn}: \`tsa.url\` must be the TSA's http(s) address.`);
  }
  if (checkpointEvery !== undefined) {
    if (!Number.isSafeInteger(checkpointEvery) || checkpointEvery < 1) {
      throw new TypeError(`${fn}: \`checkpointEvery\` must be a positive whole number of entries.`);
    }
    if (tsa === undefined) throw new TypeError(`${fn}: \`checkpointEvery\` needs \`tsa\`.`);
  }
  if (onError !== undefined && typeof onError !== "function") {
    throw new TypeError(`${fn}: \`onError\` must be a function.`);
  }
}

/** Where a log keeps its checkpoints. */
export interface CheckpointStore {
  /** Every checkpoint as stored, in the order stored. */
  read(): AsyncIterable<unknown>;
  write(checkpoint: StoredCheckpoint): Promise<void>;
}

/**
 * Takes a log's checkpoints: on demand, and in the background after every
 * `checkpointEvery` entries, one at a time. A background one that fails is
 * reported to `onError` and tried again after the next append.
 */
export class CheckpointKeeper {
  readonly #options: CheckpointOptions;
  readonly #store: CheckpointStore;
  readonly #fail: (reason: string, extra?: { cause?: unknown }) => CustodyLogError;
  /** The highest seq witnessed, once read from the store. */
  #last: number | undefined;
  #running: Promise<unknown> = Promise.resolve();

  constructor(
    options: CheckpointOptions,
    store: CheckpointStore,
    fail: (reason: string, extra?: { cause?: unknown }) => CustodyLogError,
  ) {
    this.#options = options;
    this.#store = store;
    this.#fail = fail;
  }

  /** Called after each append: starts a checkpoint of `head` when one is due, without waiting for it. */
  after(head: { seq: number; hash: string }): void {
    const every = this.#options.checkpointEvery;
    if (every === undefined) return;
    this.#running = this.#running.then(async () => {
      try {
        this.#last ??= await this.#lastStored();
        if (head.seq - this.#last < every) return;
        await this.take(head);
      } catch (error) {
        report(this.#options.onError, error);
      }
    });
  }

  /** Background checkpoints started so far, settled. */
  settled(): Promise<void> {
    return this.#running.then(() => undefined);
  }

  /**
   * `log.checkpoint()`: the head as `readHead` finds it now (an empty log
   * refused), once the background checkpoints under way are done, witnessed.
   */
  async takeHead(
    readHead: () => Promise<{ seq: number; hash: string }>,
  ): Promise<CustodyCheckpoint> {
    const head = await readHead();
    if (head.seq === 0) throw this.#fail("cannot checkpoint an empty log");
    await this.settled();
    return this.take(head);
  }

  /** Obtains a token for `head` and stores it. */
  async take(head: { seq: number; hash: string }): Promise<CustodyCheckpoint> {
    const tsa = this.#options.tsa;
    if (tsa === undefined) {
      throw this.#fail("no time-stamping authority is configured (the `tsa` option)");
    }
    const { requestTimestamp } = await import("./tsa.js");
    let checkpoint: CustodyCheckpoint;
    try {
      const { token, time } = await requestTimestamp(tsa, head.hash);
      checkpoint = { seq: head.seq, hash: head.hash, time, token };
    } catch (error) {
      throw this.#fail(`cannot checkpoint seq ${head.seq}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    await this.#store.write(storedCheckpoint(checkpoint));
    this.#last = Math.max(this.#last ?? 0, head.seq);
    return checkpoint;
  }

  async #lastStored(): Promise<number> {
    let last = 0;
    for await (const value of this.#store.read()) {
      const seq = (value as { seq?: unknown } | null)?.seq;
      if (typeof seq === "number" && seq > last) last = seq;
    }
    return last;
  }
}

function report(onError: ((error: unknown) => void) | undefined, error: unknown): void {
  try {
    (
      onError ??
      ((e: unknown) =>
        console.error("medrecords: a custody checkpoint failed; retried after the next append.", e))
    )(error);
  } catch {
    // A failing reporter must not break the next checkpoint.
  }
}
