import { withOwnMethods } from "../internal/own-methods.js";
import { syncDirectory } from "../internal/sync-directory.js";
import {
  acquiredLease,
  CheckpointLeaseLostError,
  type CheckpointLeaseStore,
  fenceArgument,
  type LeaseState,
  leaseSecondsOption,
  ownerArgument,
  refusedSave,
} from "../shared/checkpoint-lease.js";
import { type Checkpoint, compareInstants } from "../shared/checkpoint-store.js";
import { MedRecordsError } from "../shared/errors.js";
import { StoreUnavailableError } from "../shared/store-error.js";
import { parseCheckpoint } from "../stores/parse-checkpoint.js";

/** Options of `fileCheckpoint(path, options)`. */
export interface FileCheckpointOptions {
  /**
   * Seconds a poller's lease lasts without renewal: the longest another
   * process waits to take over after the holder died.
   * @default DEFAULT_CHECKPOINT_LEASE_SECONDS
   */
  leaseSeconds?: number;
  /**
   * The clock leases are measured on, in epoch ms: for tests that move time.
   * Every process sharing the file must use the same clock.
   * @default Date.now
   */
  now?: () => number;
}

/** One version of the lease, as a file `<checkpoint>.lease-<seq>` holds it. */
interface LeaseFile extends LeaseState {
  /** This version's own id, and that of the version it was made from. */
  id: string;
  prev: string | null;
}

const NO_LEASE: LeaseFile = { owner: null, fence: 0, expiresAt: 0, id: "", prev: null };

/**
 * A checkpoint in a JSON file, written atomically: a temporary file in the
 * same directory is written and fsynced, then renamed over `path` (and the
 * directory fsynced where the platform allows), so a crash leaves either the
 * old checkpoint or the new one, never a torn file. The directory is created
 * on the first save. Node, Bun and Deno; `node:fs` is loaded on first use, so
 * importing `medrecords` elsewhere never pulls it in.
 *
 * It is also a lease for the processes of one machine sharing the file
 * (`start()` in each: one polls at a time, another takes over within
 * `leaseSeconds` after it died). The lease lives beside the checkpoint, in
 * files `<path>.lease-<n>`: every change (take, renew, release, and the
 * renewal each save makes) creates version n + 1 of the one it read, with an
 * exclusive create, so of two processes changing the same version (two
 * taking over an expired lease at once) exactly one succeeds. Older versions
 * are removed as new ones are made. Not for a network file system, whose
 * exclusive create and clocks are not to be trusted: use
 * `postgresCheckpointStore` or `redisCheckpointStore` across machines.
 *
 * @example mr.events.catchUp({ checkpoint: fileCheckpoint(".medrecords/checkpoint.json"), onEvent })
 */
export function fileCheckpoint(
  path: string,
  options: FileCheckpointOptions = {},
): CheckpointLeaseStore {
  return withOwnMethods(new FileCheckpoint(path, options));
}

const FN = "fileCheckpoint";

const codeOf = (error: unknown) => (error as { code?: unknown } | null)?.code;

/** `node:fs/promises` and `node:path`, loaded on first use. */
async function fsModules() {
  const [fs, p] = await Promise.all([import("node:fs/promises"), import("node:path")]);
  return { fs, p };
}

type Fs = Awaited<ReturnType<typeof fsModules>>["fs"];

/** The store `fileCheckpoint` returns: the checkpoint file and its lease versions beside it. */
class FileCheckpoint implements CheckpointLeaseStore {
  readonly description: string;
  readonly leaseSeconds: number;
  readonly #path: string;
  readonly #leaseMs: number;
  readonly #now: () => number;
  readonly #storeName: string;

  constructor(path: string, options: FileCheckpointOptions) {
    if (typeof path !== "string" || path === "") {
      throw new TypeError(`${FN}: \`path\` must be a non-empty file path.`);
    }
    this.leaseSeconds = leaseSecondsOption(options.leaseSeconds, FN);
    const now = options.now ?? Date.now;
    if (typeof now !== "function") throw new TypeError(`${FN}: \`now\` must be a function.`);
    this.#path = path;
    this.#leaseMs = this.leaseSeconds * 1000;
    this.#now = now;
    this.description = `The checkpoint file ${path}`;
    this.#storeName = `${FN} (${JSON.stringify(path)})`;
  }

  load(): Promise<Checkpoint | null> {
    return this.#io("load", () => this.#readCheckpoint());
  }

  async save(checkpoint: Checkpoint, fence?: number): Promise<void> {
    const valid = parseCheckpoint(checkpoint, "The checkpoint to save");
    const token = fenceArgument(fence, FN);
    await this.#io("save", async () => {
      await (token === undefined ? this.#checkUnleased() : this.#renewFor(token));
      const current = await this.#readCheckpoint();
      if (current !== null && compareInstants(valid.created_at, current.created_at) < 0) {
        throw new CheckpointLeaseLostError(
          this.description,
          "backwards",
          `${valid.created_at} is before the saved ${current.created_at}`,
        );
      }
      await this.#writeCheckpoint(`${JSON.stringify(valid)}\n`);
    });
  }

  async acquire(owner: string): Promise<number | null> {
    const who = ownerArgument(owner, FN);
    const lease = await this.#io("acquire", () =>
      this.#change((current, nowMs) => acquiredLease(current, who, nowMs, this.#leaseMs)),
    );
    return lease === null ? null : lease.fence;
  }

  async release(owner: string): Promise<void> {
    const who = ownerArgument(owner, FN);
    await this.#io("release", () =>
      this.#change((current) => (current.owner === who ? { ...current, owner: null } : null)),
    );
  }

  /** File system failures (not refusals, not a corrupt checkpoint) name the store. */
  async #io<T>(operation: string, body: () => Promise<T>): Promise<T> {
    try {
      return await body();
    } catch (error) {
      if (error instanceof MedRecordsError) throw error;
      throw new StoreUnavailableError(this.#storeName, operation, error);
    }
  }

  /** A save without a fence: refused only while another process holds the lease. */
  async #checkUnleased(): Promise<void> {
    const { lease } = await this.#readHead();
    const refused = refusedSave(lease, undefined, this.#now());
    if (refused !== undefined) throw new CheckpointLeaseLostError(this.description, refused);
  }

  /**
   * A fenced save renews the lease first (a change like any other): the
   * write then has a whole lease of time before anyone could take over.
   */
  async #renewFor(token: number): Promise<void> {
    let refused: ReturnType<typeof refusedSave>;
    const renewed = await this.#change((lease, nowMs) => {
      refused = refusedSave(lease, token, nowMs);
      return refused === undefined ? { ...lease, expiresAt: nowMs + this.#leaseMs } : null;
    });
    if (renewed === null) {
      throw new CheckpointLeaseLostError(this.description, refused ?? "taken_over");
    }
  }

  /** Where the lease versions live: the checkpoint's directory, and their common prefix. */
  async #place() {
    const { fs, p } = await fsModules();
    const base = p.basename(this.#path);
    return { fs, dir: p.dirname(this.#path), join: p.join, base, prefix: `${base}.lease-` };
  }

  /** The newest lease version and its number; the versions below it are history. */
  async #readHead(): Promise<{ seq: number; lease: LeaseFile }> {
    const { fs, dir, join, prefix } = await this.#place();
    for (;;) {
      let names: string[];
      try {
        names = await fs.readdir(dir);
      } catch (error) {
        if (codeOf(error) === "ENOENT") return { seq: 0, lease: NO_LEASE };
        throw error;
      }
      const seq = newestVersion(names, prefix);
      if (seq === 0) return { seq, lease: NO_LEASE };
      try {
        return { seq, lease: JSON.parse(await fs.readFile(join(dir, `${prefix}${seq}`), "utf8")) };
      } catch (error) {
        // Removed since the listing: a newer version exists; list again.
        if (codeOf(error) !== "ENOENT") throw error;
      }
    }
  }

  /**
   * Makes the next lease version from the newest one with `decide` (null:
   * no change), by exclusive create. Resolves the new lease, or null when
   * `decide` declined, or when the change cannot be shown to have taken
   * effect (the caller then assumes it did not hold the lease: safe).
   */
  async #change(
    decide: (lease: LeaseFile, nowMs: number) => LeaseState | null,
  ): Promise<LeaseState | null> {
    const { fs, dir } = await this.#place();
    await fs.mkdir(dir, { recursive: true });
    for (;;) {
      const head = await this.#readHead();
      const next = decide(head.lease, this.#now());
      if (next === null) return null;
      const target = head.seq + 1;
      const mine: LeaseFile = {
        owner: next.owner,
        fence: next.fence,
        expiresAt: next.expiresAt,
        id: crypto.randomUUID(),
        prev: head.lease.id || null,
      };
      if (!(await this.#create(mine, target))) continue; // another process changed this version first
      const took = await this.#took(mine, target);
      if (took === "lost") return null;
      if (took === "retry") continue;
      await this.#pruneBelow(target - 1);
      return next;
    }
  }

  /** Writes `lease` as version `target`, unless that version exists already (false). */
  async #create(lease: LeaseFile, target: number): Promise<boolean> {
    const { fs, dir, join, base, prefix } = await this.#place();
    const temp = join(dir, `.${base}.${lease.id}.tmp`);
    try {
      await fs.writeFile(temp, JSON.stringify(lease), { flag: "wx", mode: 0o600 });
      // link() creates the name only if it does not exist, with the whole content at once.
      await fs.link(temp, join(dir, `${prefix}${target}`));
      return true;
    } catch (error) {
      if (codeOf(error) === "EEXIST") return false;
      throw error;
    } finally {
      await fs.rm(temp, { force: true });
    }
  }

  /**
   * Whether version `target` (ours) took effect: it is the newest, or the next
   * one was made from it. Otherwise our number was one freed by cleanup while
   * this process was stalled: it never took effect ("retry" while that can
   * still be redone on the newest version, "lost" once others moved past).
   */
  async #took(mine: LeaseFile, target: number): Promise<"took" | "retry" | "lost"> {
    const after = await this.#readHead();
    if (after.seq === target) return "took";
    const { fs, dir, join, prefix } = await this.#place();
    const successor = await fs
      .readFile(join(dir, `${prefix}${target + 1}`), "utf8")
      .then((text) => JSON.parse(text) as LeaseFile)
      .catch(() => undefined);
    if (successor?.prev === mine.id) return "took";
    return after.seq > target + 1 ? "lost" : "retry";
  }

  /** History below `keep` goes; the newest two stay for the check of `#took`. */
  async #pruneBelow(keep: number): Promise<void> {
    const { fs, dir, join, prefix } = await this.#place();
    const names = await fs.readdir(dir);
    await Promise.all(
      names
        .filter((name) => name.startsWith(prefix) && Number(name.slice(prefix.length)) < keep)
        .map((name) => fs.rm(join(dir, name), { force: true })),
    );
  }

  async #readCheckpoint(): Promise<Checkpoint | null> {
    const fs = await import("node:fs/promises");
    let text: string;
    try {
      text = await fs.readFile(this.#path, "utf8");
    } catch (error) {
      if (codeOf(error) === "ENOENT") return null;
      throw error;
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw new MedRecordsError(`The checkpoint file ${this.#path} is not JSON.`);
    }
    return parseCheckpoint(data, `The checkpoint file ${this.#path}`);
  }

  async #writeCheckpoint(text: string): Promise<void> {
    const { fs, dir, join, base } = await this.#place();
    await fs.mkdir(dir, { recursive: true });
    const temp = join(dir, `.${base}.${crypto.randomUUID()}.tmp`);
    try {
      await writeSynced(fs, temp, text);
      await fs.rename(temp, this.#path);
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
    await syncDirectory(fs, dir);
  }
}

/** The highest version number among `names` (0 when there is none). */
function newestVersion(names: readonly string[], prefix: string): number {
  let seq = 0;
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const n = Number(name.slice(prefix.length));
    if (Number.isSafeInteger(n) && n > seq) seq = n;
  }
  return seq;
}

/** `text` in a new file (0600), fsynced before it is closed. */
async function writeSynced(fs: Fs, file: string, text: string): Promise<void> {
  const handle = await fs.open(file, "wx", 0o600);
  try {
    await handle.writeFile(text, "utf8");
    await handle.sync();
  } finally {
    await handle.close();
  }
}
