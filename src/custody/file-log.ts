import type { FileHandle } from "node:fs/promises";
import { ChainVerifier } from "./chain.js";
import { type CustodyRecord, chainEntry, entryLine } from "./entry.js";
import { custodyFailures } from "./failures.js";
import { fileLines } from "./file-lines.js";
import type { CustodyLog } from "./log.js";
import { serial } from "./serial.js";

/** Options of `fileCustodyLog(path, options)`. */
export interface FileCustodyLogOptions {
  /**
   * How long an append waits for another process's append (the lock file
   * `<path>.lock`) before it fails, in milliseconds. A lock left by a process
   * that died is taken over at once.
   * @default 10_000
   */
  lockTimeoutMs?: number;
}

/** What this process has verified of the file: everything up to `end`, the last line from `lastStart`. */
interface Verified {
  end: number;
  lastStart: number;
  lastLine: string;
  seq: number;
  hash: string;
}

const codeOf = (error: unknown) => (error as { code?: unknown } | null)?.code;

/**
 * A custody log in a file of JSON lines, one entry per line, created with
 * permissions 0600 (its directory too, 0700, if missing). Only ever appended
 * to, each entry fsynced before the append resolves.
 *
 * Safe for the processes of one machine appending at once: an append takes
 * the lock file `<path>.lock` (an exclusive create; a lock whose process has
 * died is taken over), reads what other processes appended since this one
 * last looked and checks that it continues the chain, then writes its line
 * and lets go. The first append of a process verifies the whole file. A file
 * that does not verify is never appended to: the append fails with a
 * `CustodyLogError` naming the first bad entry. Not for a network file
 * system, whose exclusive create is not to be trusted: use
 * `postgresCustodyLog` across machines. Node, Bun and Deno.
 *
 * @example new MedRecords({ custodyLog: fileCustodyLog("/var/lib/firm/custody.jsonl") })
 */
export function fileCustodyLog(path: string, options: FileCustodyLogOptions = {}): CustodyLog {
  if (typeof path !== "string" || path === "") {
    throw new TypeError("fileCustodyLog: `path` must be a non-empty file path.");
  }
  const lockTimeoutMs = options.lockTimeoutMs ?? 10_000;
  if (!Number.isFinite(lockTimeoutMs) || lockTimeoutMs < 0) {
    throw new TypeError("fileCustodyLog: `lockTimeoutMs` must be a non-negative number.");
  }
  const description = `fileCustodyLog (${JSON.stringify(path)})`;
  const lockPath = `${path}.lock`;
  const queue = serial();
  let verified: Verified | undefined;

  const { fail, refuse, appendFailure } = custodyFailures(description);

  /** Continues `chain` over the lines of `handle` from `from` to `to`; throws at the first fault. */
  const verifyLines = async (
    handle: FileHandle,
    chain: ChainVerifier,
    from: number,
    to: number,
    state: Verified,
  ): Promise<Verified> => {
    let current = state;
    for await (const line of fileLines(handle, from, to)) {
      if (!line.complete) {
        throw refuse({
          seq: chain.seq + 1,
          reason: `its last line (byte ${line.start}) has no newline: an append cut short by a crash; see docs/custody.md`,
        });
      }
      const fault = await chain.next(parseLine(line.text, chain.seq + 1));
      if (fault) throw refuse(fault);
      current = {
        end: line.end,
        lastStart: line.start,
        lastLine: line.text,
        seq: chain.seq,
        hash: chain.hash,
      };
    }
    return current;
  };

  const parseLine = (text: string, seq: number): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      // Fails the chain check as malformed, naming the seq.
      return { unparseable: `entry ${seq}` };
    }
  };

  /** The first time: the whole file, outside the lock (what others append meanwhile is read under it). */
  const verifyAll = async (): Promise<Verified> => {
    const fs = await import("node:fs/promises");
    let handle: FileHandle;
    try {
      handle = await fs.open(path, "r");
    } catch (error) {
      if (codeOf(error) === "ENOENT") {
        return { end: 0, lastStart: 0, lastLine: "", seq: 0, hash: new ChainVerifier().hash };
      }
      throw error;
    }
    try {
      const { size } = await handle.stat();
      const chain = new ChainVerifier();
      return await verifyLines(handle, chain, 0, size, {
        end: 0,
        lastStart: 0,
        lastLine: "",
        seq: 0,
        hash: chain.hash,
      });
    } finally {
      await handle.close();
    }
  };

  const lock = async (): Promise<() => Promise<void>> => {
    const fs = await import("node:fs/promises");
    const mine = JSON.stringify({ pid: processId(), token: crypto.randomUUID() });
    const deadline = Date.now() + lockTimeoutMs;
    for (let wait = 1; ; wait = Math.min(wait * 2, 25)) {
      const temp = `${lockPath}.${crypto.randomUUID()}.tmp`;
      try {
        await fs.writeFile(temp, mine, { flag: "wx", mode: 0o600 });
        // link() creates the lock only if there is none, with its whole content at once.
        await fs.link(temp, lockPath);
        return async () => {
          // Only our own lock is removed (a takeover may have replaced it).
          const held = await fs.readFile(lockPath, "utf8").catch(() => undefined);
          if (held === mine) await fs.rm(lockPath, { force: true });
        };
      } catch (error) {
        if (codeOf(error) !== "EEXIST") throw error;
      } finally {
        await fs.rm(temp, { force: true });
      }
      const held = await fs.readFile(lockPath, "utf8").catch(() => undefined);
      const holder = held === undefined ? undefined : holderPid(held);
      if (held !== undefined && holder !== undefined && !alive(holder)) {
        await takeOver(fs, held);
        continue;
      }
      if (Date.now() >= deadline) {
        throw fail(
          `another append holds the lock file ${lockPath}${holder === undefined ? "" : ` (process ${holder})`} ` +
            `for longer than ${lockTimeoutMs} ms; if no process is appending, remove that file`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  };

  /** Removes the lock `held` left by a dead process, unless another process replaced it meanwhile. */
  const takeOver = async (fs: typeof import("node:fs/promises"), held: string) => {
    const aside = `${lockPath}.${crypto.randomUUID()}.stale`;
    try {
      await fs.rename(lockPath, aside);
    } catch (error) {
      if (codeOf(error) === "ENOENT") return;
      throw error;
    }
    const moved = await fs.readFile(aside, "utf8").catch(() => undefined);
    // A live lock taken since we read it goes back where it was.
    if (moved !== held) await fs.link(aside, lockPath).catch(() => undefined);
    await fs.rm(aside, { force: true });
  };

  const appendLocked = async (record: CustodyRecord) => {
    const fs = await import("node:fs/promises");
    const known = verified as Verified;
    const handle = await fs.open(path, "a+", 0o600);
    try {
      const { size } = await handle.stat();
      if (size < known.end) {
        throw refuse({
          seq: known.seq,
          reason: `the file is ${size} bytes, shorter than the ${known.end} this process verified: entries were removed`,
        });
      }
      if (known.end > 0) {
        // The last entry this process saw is still there, unchanged.
        let seen = "";
        for await (const line of fileLines(handle, known.lastStart, known.end)) seen = line.text;
        if (seen !== known.lastLine) {
          throw refuse({
            seq: known.seq,
            reason: `entry ${known.seq} changed since this process verified it: the entry was edited`,
          });
        }
      }
      const chain = new ChainVerifier(known.seq, known.hash);
      await verifyLines(handle, chain, known.end, size, known);
      const entry = await chainEntry(record, chain.seq, chain.hash);
      const line = entryLine(entry);
      // One write of the whole line, at the end of the file (append mode).
      await handle.write(line);
      await handle.sync();
      const bytes = new TextEncoder().encode(line).byteLength;
      verified = {
        end: size + bytes,
        lastStart: size,
        lastLine: line.slice(0, -1),
        seq: entry.seq,
        hash: entry.hash,
      };
      return entry;
    } finally {
      await handle.close();
    }
  };

  return {
    description,
    append: (record) =>
      queue(async () => {
        try {
          const fs = await import("node:fs/promises");
          const { dirname } = await import("node:path");
          await fs.mkdir(dirname(path), { recursive: true, mode: 0o700 });
          verified ??= await verifyAll();
          const release = await lock();
          try {
            return await appendLocked(record);
          } finally {
            await release();
          }
        } catch (error) {
          throw appendFailure(error, () => {
            verified = undefined;
          });
        }
      }),
    async *entries() {
      const fs = await import("node:fs/promises");
      let handle: FileHandle;
      try {
        handle = await fs.open(path, "r");
      } catch (error) {
        if (codeOf(error) === "ENOENT") return;
        throw fail(`cannot read: ${(error as Error).message}`, { cause: error });
      }
      try {
        const { size } = await handle.stat();
        for await (const line of fileLines(handle, 0, size)) {
          if (!line.complete) {
            throw fail(
              `line ${line.number} (the last) has no newline: an append cut short by a crash; see docs/custody.md`,
              { firstBadSeq: line.number },
            );
          }
          try {
            yield JSON.parse(line.text) as unknown;
          } catch {
            throw fail(`line ${line.number} is not JSON`, { firstBadSeq: line.number });
          }
        }
      } finally {
        await handle.close();
      }
    },
  };
}

const processId = (): number => (globalThis as { process?: { pid?: number } }).process?.pid ?? 0;

function holderPid(text: string): number | undefined {
  try {
    const pid = (JSON.parse(text) as { pid?: unknown }).pid;
    return typeof pid === "number" && Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Whether process `pid` of this machine is running (EPERM: it is, under another user). */
function alive(pid: number): boolean {
  const kill = (globalThis as { process?: { kill?: (pid: number, signal: number) => void } })
    .process?.kill;
  if (kill === undefined) return true;
  try {
    kill(pid, 0);
    return true;
  } catch (error) {
    return codeOf(error) === "EPERM";
  }
}
