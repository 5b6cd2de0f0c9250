import type { FileHandle } from "node:fs/promises";
import { withOwnMethods } from "../internal/own-methods.js";
import { ChainVerifier } from "./chain.js";
import {
  CheckpointKeeper,
  type CheckpointOptions,
  type CustodyCheckpoint,
  checkCheckpointOptions,
} from "./checkpoint.js";
import { type CustodyEntry, type CustodyRecord, chainEntry, entryLine } from "./entry.js";
import { custodyFailures } from "./failures.js";
import { FileCheckpoints } from "./file-checkpoints.js";
import { fileLines } from "./file-lines.js";
import { FileLock } from "./file-lock.js";
import type { WitnessedCustodyLog } from "./log.js";
import { openNoFollow, tightenMode } from "./no-follow.js";
import { serial } from "./serial.js";

/** Options of `fileCustodyLog(path, options)`. */
export interface FileCustodyLogOptions extends CheckpointOptions {
  /**
   * How long an append waits for another appender (the lock file
   * `<path>.lock`) before it fails, in milliseconds.
   * @default 10_000
   */
  lockTimeoutMs?: number;
  /**
   * How long a lock stands without its holder renewing it, in milliseconds:
   * the holder renews it every third of this while it holds it, and a lock
   * whose lease lapsed (its holder died or hung) is taken over.
   * @default 30_000
   */
  lockLeaseMs?: number;
  /**
   * Receives a warning, such as a log file found readable by others (it is
   * tightened to 0600).
   * @default console.warn
   */
  onWarning?: (message: string) => void;
}

/** What this process has verified of the file: everything up to `end`, the last line from `lastStart`. */
interface Verified {
  end: number;
  lastStart: number;
  lastLine: string;
  seq: number;
  hash: string;
  canonicalSince: number;
}

const NOTHING: Verified = {
  end: 0,
  lastStart: 0,
  lastLine: "",
  seq: 0,
  hash: new ChainVerifier().hash,
  canonicalSince: 0,
};

const nonNegative = (value: number) => Number.isFinite(value) && value >= 0;

/**
 * A custody log in a file of JSON lines, one entry per line, created with
 * permissions 0600 (its directory too, 0700, if missing). Only ever appended
 * to, each entry fsynced before the append resolves.
 *
 * Safe for the processes of one machine, or of containers sharing a volume,
 * appending at once: an append takes the lock file `<path>.lock` (an
 * exclusive create naming a random holder id, renewed while held; a lock
 * whose lease lapsed is taken over), reads what others appended since this
 * process last looked and checks that it continues the chain, then writes its
 * line and lets go. The first append of a process verifies the whole file. A
 * file that does not verify is never appended to: the append fails with a
 * `CustodyLogError` naming the first bad entry. It never follows a symbolic
 * link at the log, lock or checkpoints path, and tightens a log readable by
 * others to 0600. Not for a network file system: use `postgresCustodyLog`
 * across machines. Node, Bun and Deno.
 *
 * @example new MedRecords({ custodyLog: fileCustodyLog("/var/lib/firm/custody.jsonl") })
 */
export function fileCustodyLog(
  path: string,
  options: FileCustodyLogOptions = {},
): WitnessedCustodyLog {
  return withOwnMethods(new FileCustodyLog(path, options));
}

class FileCustodyLog implements WitnessedCustodyLog {
  readonly description: string;
  readonly #path: string;
  readonly #lock: FileLock;
  readonly #queue = serial();
  readonly #failures: ReturnType<typeof custodyFailures>;
  readonly #warn: (message: string) => void;
  readonly #checkpoints: FileCheckpoints;
  readonly #keeper: CheckpointKeeper;
  #verified: Verified | undefined;

  constructor(path: string, options: FileCustodyLogOptions) {
    const fn = "fileCustodyLog";
    if (typeof path !== "string" || path === "") {
      throw new TypeError(`${fn}: \`path\` must be a non-empty file path.`);
    }
    const { lockTimeoutMs = 10_000, lockLeaseMs = 30_000, onWarning } = options ?? {};
    if (!nonNegative(lockTimeoutMs)) {
      throw new TypeError(`${fn}: \`lockTimeoutMs\` must be a non-negative number.`);
    }
    if (!nonNegative(lockLeaseMs) || lockLeaseMs === 0) {
      throw new TypeError(`${fn}: \`lockLeaseMs\` must be a positive number.`);
    }
    checkCheckpointOptions(fn, options ?? {});
    this.description = `${fn} (${JSON.stringify(path)})`;
    this.#path = path;
    this.#failures = custodyFailures(this.description);
    const fail = (reason: string) => this.#failures.fail(reason);
    this.#lock = new FileLock(`${path}.lock`, {
      timeoutMs: lockTimeoutMs,
      leaseMs: lockLeaseMs,
      fail,
    });
    this.#warn = onWarning ?? ((message) => console.warn(message));
    this.#checkpoints = new FileCheckpoints(`${path}.checkpoints`, this.#failures.fail);
    this.#keeper = new CheckpointKeeper(options ?? {}, this.#checkpoints, this.#failures.fail);
  }

  append(record: CustodyRecord): Promise<CustodyEntry> {
    return this.#queue(async () => {
      try {
        const entry = await this.#locked((handle) => this.#appendLocked(handle, record));
        this.#keeper.after(entry);
        return entry;
      } catch (error) {
        throw this.#failures.appendFailure(error, () => {
          this.#verified = undefined;
        });
      }
    });
  }

  /** A checkpoint of the head as it is now, witnessed by the TSA (`tsa`). */
  checkpoint(): Promise<CustodyCheckpoint> {
    return this.#queue(() =>
      this.#keeper.takeHead(() =>
        this.#locked(async (handle) => this.#catchUp(handle, (await handle.stat()).size)).catch(
          (error: unknown) => {
            throw this.#failures.appendFailure(error, () => {
              this.#verified = undefined;
            });
          },
        ),
      ),
    );
  }

  checkpoints(): AsyncIterable<unknown> {
    return this.#checkpoints.read();
  }

  /** Background checkpoints started so far, settled (for tests and an orderly exit). */
  settled(): Promise<void> {
    return this.#keeper.settled();
  }

  async *entries(): AsyncIterable<unknown> {
    const fs = await import("node:fs/promises");
    const handle = await this.#open(fs, "read").catch((error: unknown) => {
      throw this.#failures.fail(`cannot read: ${(error as Error).message}`, { cause: error });
    });
    if (handle === undefined) return;
    try {
      const { size } = await handle.stat();
      for await (const line of fileLines(handle, 0, size)) {
        if (!line.complete) {
          throw this.#failures.fail(
            `line ${line.number} (the last) has no newline: an append cut short by a crash; see docs/custody.md`,
            { firstBadSeq: line.number },
          );
        }
        // The stored text, as it is: verification holds it to the canonical form.
        yield line.text;
      }
    } finally {
      await handle.close();
    }
  }

  /** Runs `task` on the log file (created if missing) under the lock, the file verified first. */
  async #locked<T>(task: (handle: FileHandle) => Promise<T>): Promise<T> {
    const fs = await import("node:fs/promises");
    const { dirname } = await import("node:path");
    await fs.mkdir(dirname(this.#path), { recursive: true, mode: 0o700 });
    this.#verified ??= await this.#verifyAll(fs);
    const release = await this.#lock.acquire();
    try {
      const handle = (await this.#open(fs, "append")) as FileHandle;
      try {
        return await task(handle);
      } finally {
        await handle.close();
      }
    } finally {
      await release();
    }
  }

  /** The log file, never through a link, tightened to 0600 if others could read it. */
  async #open(fs: typeof import("node:fs/promises"), mode: "read" | "append") {
    const handle = await openNoFollow(fs, this.#path, mode, this.#failures.fail);
    if (handle !== undefined && mode === "append") {
      await tightenMode(handle, this.#path, this.#warn).catch(async (error: unknown) => {
        await handle.close();
        throw error;
      });
    }
    return handle;
  }

  /** The first time: the whole file, outside the lock (what others append meanwhile is read under it). */
  async #verifyAll(fs: typeof import("node:fs/promises")): Promise<Verified> {
    const handle = await this.#open(fs, "read");
    if (handle === undefined) return NOTHING;
    try {
      const { size } = await handle.stat();
      return await this.#verifyLines(handle, new ChainVerifier(), 0, size, NOTHING);
    } finally {
      await handle.close();
    }
  }

  /** Continues `chain` over the lines of `handle` from `from` to `to`; throws at the first fault. */
  async #verifyLines(
    handle: FileHandle,
    chain: ChainVerifier,
    from: number,
    to: number,
    state: Verified,
  ): Promise<Verified> {
    let current = state;
    for await (const line of fileLines(handle, from, to)) {
      if (!line.complete) {
        throw this.#failures.refuse({
          seq: chain.seq + 1,
          reason: `its last line (byte ${line.start}) has no newline: an append cut short by a crash; see docs/custody.md`,
        });
      }
      const fault = await chain.next(line.text);
      if (fault) throw this.#failures.refuse(fault);
      current = {
        end: line.end,
        lastStart: line.start,
        lastLine: line.text,
        seq: chain.seq,
        hash: chain.hash,
        canonicalSince: chain.canonicalSince,
      };
    }
    return current;
  }

  /** Checks what this process verified is still there and what others appended continues it. */
  async #catchUp(handle: FileHandle, size: number): Promise<Verified> {
    const known = this.#verified as Verified;
    if (size < known.end) {
      throw this.#failures.refuse({
        seq: known.seq,
        reason: `the file is ${size} bytes, shorter than the ${known.end} this process verified: entries were removed`,
      });
    }
    if (known.end > 0) {
      let seen = "";
      for await (const line of fileLines(handle, known.lastStart, known.end)) seen = line.text;
      if (seen !== known.lastLine) {
        throw this.#failures.refuse({
          seq: known.seq,
          reason: `entry ${known.seq} changed since this process verified it: the entry was edited`,
        });
      }
    }
    const chain = new ChainVerifier(known.seq, known.hash, known.canonicalSince);
    this.#verified = await this.#verifyLines(handle, chain, known.end, size, known);
    return this.#verified;
  }

  async #appendLocked(handle: FileHandle, record: CustodyRecord): Promise<CustodyEntry> {
    const { size } = await handle.stat();
    const head = await this.#catchUp(handle, size);
    const entry = await chainEntry(record, head.seq, head.hash);
    const line = entryLine(entry);
    // One write of the whole line, at the end of the file (append mode).
    await handle.write(line);
    await handle.sync();
    this.#verified = {
      end: size + new TextEncoder().encode(line).byteLength,
      lastStart: size,
      lastLine: line.slice(0, -1),
      seq: entry.seq,
      hash: entry.hash,
      canonicalSince: head.canonicalSince || entry.seq,
    };
    return entry;
  }
}
