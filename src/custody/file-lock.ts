import type { FileHandle } from "node:fs/promises";
import { openNoFollow } from "./no-follow.js";

type Fs = typeof import("node:fs/promises");

const codeOf = (error: unknown) => (error as { code?: unknown } | null)?.code;

/** Who holds a lock: a random id (pids repeat across containers), with host and pid for people. */
interface Holder {
  id: string;
  host: string;
  pid: number;
  lease_ms: number;
}

/** Options of a `FileLock`. */
export interface FileLockOptions {
  /** How long `acquire` waits for a live holder before failing. */
  timeoutMs: number;
  /** How long a holder's lock stands without renewal (the lock file's mtime is its last renewal). */
  leaseMs: number;
  /** Makes the errors, named after the log. */
  fail: (reason: string) => Error;
}

/**
 * The lock file `<path>.lock` of a file custody log, for appenders of one
 * machine or of several containers sharing a volume. Created whole by
 * link() (which never replaces anything), it names a random holder id, its
 * host and pid, and its lease; the holder renews the lease (the file's mtime)
 * while it holds it. A lock whose lease lapsed is taken over, whatever
 * process it names: a pid says nothing across PID namespaces (pid 1 in every
 * container) or after a restart.
 */
export class FileLock {
  readonly #path: string;
  readonly #options: FileLockOptions;

  constructor(path: string, options: FileLockOptions) {
    this.#path = path;
    this.#options = options;
  }

  /** Waits for the lock; resolves with its release. */
  async acquire(): Promise<() => Promise<void>> {
    const fs = await import("node:fs/promises");
    const mine = JSON.stringify(await this.#holder());
    const deadline = Date.now() + this.#options.timeoutMs;
    for (let wait = 1; ; wait = Math.min(wait * 2, 25)) {
      const handle = await this.#tryCreate(fs, mine);
      if (handle !== undefined) return this.#held(fs, handle, mine);
      const seen = await this.#read(fs);
      if (seen !== undefined && Date.now() - seen.renewedAt > leaseOf(seen.text, this.#options)) {
        await this.#takeOver(fs, seen.text);
        continue;
      }
      if (Date.now() >= deadline) throw this.#timeout(seen?.text);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  async #holder(): Promise<Holder> {
    const { hostname } = await import("node:os").catch(() => ({ hostname: () => "unknown" }));
    const pid = (globalThis as { process?: { pid?: number } }).process?.pid ?? 0;
    return { id: crypto.randomUUID(), host: hostname(), pid, lease_ms: this.#options.leaseMs };
  }

  /** The lock, opened, if this call created it; undefined if another holds it. */
  async #tryCreate(fs: Fs, mine: string): Promise<FileHandle | undefined> {
    const temp = `${this.#path}.${crypto.randomUUID()}.tmp`;
    try {
      await fs.writeFile(temp, mine, { flag: "wx", mode: 0o600 });
      // link() creates the lock only if there is none (nor a link there), with its whole content at once.
      await fs.link(temp, this.#path);
    } catch (error) {
      if (codeOf(error) !== "EEXIST") throw error;
      return undefined;
    } finally {
      await fs.rm(temp, { force: true });
    }
    return (await openNoFollow(fs, this.#path, "read", this.#options.fail)) as FileHandle;
  }

  /** Renews the lease while held; the release removes the lock only if it is still this holder's. */
  #held(fs: Fs, handle: FileHandle, mine: string): () => Promise<void> {
    const renew = setInterval(
      () => {
        const now = new Date();
        handle.utimes(now, now).catch(() => undefined);
      },
      Math.max(1, Math.floor(this.#options.leaseMs / 3)),
    );
    (renew as { unref?: () => void }).unref?.();
    return async () => {
      clearInterval(renew);
      await handle.close().catch(() => undefined);
      const seen = await this.#read(fs);
      if (seen?.text === mine) await fs.rm(this.#path, { force: true });
    };
  }

  /** The lock's text and last renewal, undefined when there is none. */
  async #read(fs: Fs): Promise<{ text: string; renewedAt: number } | undefined> {
    const handle = await openNoFollow(fs, this.#path, "read", this.#options.fail);
    if (handle === undefined) return undefined;
    try {
      const [text, stat] = await Promise.all([handle.readFile("utf8"), handle.stat()]);
      return { text, renewedAt: stat.mtimeMs };
    } finally {
      await handle.close();
    }
  }

  /** Removes the lapsed lock `held`, unless another holder replaced it meanwhile. */
  async #takeOver(fs: Fs, held: string): Promise<void> {
    const aside = `${this.#path}.${crypto.randomUUID()}.stale`;
    try {
      await fs.rename(this.#path, aside);
    } catch (error) {
      if (codeOf(error) === "ENOENT") return;
      throw error;
    }
    const moved = await fs.readFile(aside, "utf8").catch(() => undefined);
    // A live lock taken since we read it goes back where it was.
    if (moved !== held) await fs.link(aside, this.#path).catch(() => undefined);
    await fs.rm(aside, { force: true });
  }

  #timeout(held: string | undefined): Error {
    const holder = held === undefined ? undefined : parseHolder(held);
    const who =
      holder?.pid === undefined
        ? ""
        : ` (process ${holder.pid}${holder.host === undefined ? "" : ` on ${holder.host}`})`;
    return this.#options.fail(
      `another append holds the lock file ${this.#path}${who} for longer than ${this.#options.timeoutMs} ms ` +
        "and keeps renewing its lease; if no process is appending, remove that file",
    );
  }
}

function parseHolder(text: string): Partial<Holder> | undefined {
  try {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === "object" && parsed !== null ? (parsed as Partial<Holder>) : undefined;
  } catch {
    return undefined;
  }
}

/** The lease the holder stated (a lock from an older version states none: this process's). */
function leaseOf(text: string, options: FileLockOptions): number {
  const lease = parseHolder(text)?.lease_ms;
  return typeof lease === "number" && Number.isFinite(lease) && lease > 0 ? lease : options.leaseMs;
}
