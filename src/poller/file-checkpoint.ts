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
  if (typeof path !== "string" || path === "") {
    throw new TypeError("fileCheckpoint: `path` must be a non-empty file path.");
  }
  const fn = "fileCheckpoint";
  const leaseSeconds = leaseSecondsOption(options.leaseSeconds, fn);
  const leaseMs = leaseSeconds * 1000;
  const now = options.now ?? Date.now;
  if (typeof now !== "function") throw new TypeError(`${fn}: \`now\` must be a function.`);
  const description = `The checkpoint file ${path}`;
  const storeName = `${fn} (${JSON.stringify(path)})`;
  const fsModules = async () => {
    const [fs, p] = await Promise.all([import("node:fs/promises"), import("node:path")]);
    const dir = p.dirname(path);
    return { fs, dir, join: p.join, base: p.basename(path) };
  };
  const codeOf = (error: unknown) => (error as { code?: unknown } | null)?.code;
  /** File system failures (not refusals, not a corrupt checkpoint) name the store. */
  const io = async <T>(operation: string, body: () => Promise<T>): Promise<T> => {
    try {
      return await body();
    } catch (error) {
      if (error instanceof MedRecordsError) throw error;
      throw new StoreUnavailableError(storeName, operation, error);
    }
  };

  /** The newest lease version and its number; the versions below it are history. */
  const readHead = async (): Promise<{ seq: number; lease: LeaseFile }> => {
    const { fs, dir, join, base } = await fsModules();
    const prefix = `${base}.lease-`;
    for (;;) {
      let names: string[];
      try {
        names = await fs.readdir(dir);
      } catch (error) {
        if (codeOf(error) === "ENOENT") return { seq: 0, lease: NO_LEASE };
        throw error;
      }
      let seq = 0;
      for (const name of names) {
        if (!name.startsWith(prefix)) continue;
        const n = Number(name.slice(prefix.length));
        if (Number.isSafeInteger(n) && n > seq) seq = n;
      }
      if (seq === 0) return { seq, lease: NO_LEASE };
      try {
        return { seq, lease: JSON.parse(await fs.readFile(join(dir, `${prefix}${seq}`), "utf8")) };
      } catch (error) {
        // Removed since the listing: a newer version exists; list again.
        if (codeOf(error) !== "ENOENT") throw error;
      }
    }
  };

  /**
   * Makes the next lease version from the newest one with `decide` (null:
   * no change), by exclusive create. Resolves the new lease, or null when
   * `decide` declined, or when the change cannot be shown to have taken
   * effect (the caller then assumes it did not hold the lease: safe).
   */
  const change = async (
    decide: (lease: LeaseFile, nowMs: number) => LeaseState | null,
  ): Promise<LeaseState | null> => {
    const { fs, dir, join, base } = await fsModules();
    const prefix = `${base}.lease-`;
    await fs.mkdir(dir, { recursive: true });
    for (;;) {
      const head = await readHead();
      const next = decide(head.lease, now());
      if (next === null) return null;
      const target = head.seq + 1;
      const mine: LeaseFile = {
        owner: next.owner,
        fence: next.fence,
        expiresAt: next.expiresAt,
        id: crypto.randomUUID(),
        prev: head.lease.id || null,
      };
      const temp = join(dir, `.${base}.${mine.id}.tmp`);
      try {
        await fs.writeFile(temp, JSON.stringify(mine), { flag: "wx", mode: 0o600 });
        // link() creates the name only if it does not exist, with the whole content at once.
        await fs.link(temp, join(dir, `${prefix}${target}`));
      } catch (error) {
        if (codeOf(error) === "EEXIST") continue; // another process changed this version first
        throw error;
      } finally {
        await fs.rm(temp, { force: true });
      }
      // Our version is the newest, or the next one was made from it. Otherwise our number
      // was one freed by cleanup while this process was stalled: it never took effect.
      const after = await readHead();
      let took = after.seq === target;
      if (!took) {
        const successor = await fs
          .readFile(join(dir, `${prefix}${target + 1}`), "utf8")
          .then((text) => JSON.parse(text) as LeaseFile)
          .catch(() => undefined);
        took = successor?.prev === mine.id;
        if (!took && after.seq > target + 1) return null;
      }
      if (!took) continue;
      // History below the version before ours goes; the newest two stay for the check above.
      const names = await fs.readdir(dir);
      await Promise.all(
        names
          .filter(
            (name) => name.startsWith(prefix) && Number(name.slice(prefix.length)) < target - 1,
          )
          .map((name) => fs.rm(join(dir, name), { force: true })),
      );
      return next;
    }
  };

  const readCheckpoint = async (): Promise<Checkpoint | null> => {
    const fs = await import("node:fs/promises");
    let text: string;
    try {
      text = await fs.readFile(path, "utf8");
    } catch (error) {
      if (codeOf(error) === "ENOENT") return null;
      throw error;
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw new MedRecordsError(`The checkpoint file ${path} is not JSON.`);
    }
    return parseCheckpoint(data, `The checkpoint file ${path}`);
  };

  const writeCheckpoint = async (text: string) => {
    const { fs, dir, join, base } = await fsModules();
    await fs.mkdir(dir, { recursive: true });
    const temp = join(dir, `.${base}.${crypto.randomUUID()}.tmp`);
    try {
      const handle = await fs.open(temp, "wx", 0o600);
      try {
        await handle.writeFile(text, "utf8");
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fs.rename(temp, path);
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
    await syncDirectory(fs, dir);
  };

  return {
    description,
    leaseSeconds,
    load: () => io("load", readCheckpoint),

    async save(checkpoint, fence) {
      const valid = parseCheckpoint(checkpoint, "The checkpoint to save");
      const token = fenceArgument(fence, fn);
      await io("save", async () => {
        if (token === undefined) {
          const { lease } = await readHead();
          const refused = refusedSave(lease, undefined, now());
          if (refused !== undefined) throw new CheckpointLeaseLostError(description, refused);
        } else {
          // The save renews the lease first (a change like any other): the write below then
          // has a whole lease of time before anyone could take over.
          let refused: ReturnType<typeof refusedSave>;
          const renewed = await change((lease, nowMs) => {
            refused = refusedSave(lease, token, nowMs);
            return refused === undefined ? { ...lease, expiresAt: nowMs + leaseMs } : null;
          });
          if (renewed === null) {
            throw new CheckpointLeaseLostError(description, refused ?? "taken_over");
          }
        }
        const current = await readCheckpoint();
        if (current !== null && compareInstants(valid.created_at, current.created_at) < 0) {
          throw new CheckpointLeaseLostError(
            description,
            "backwards",
            `${valid.created_at} is before the saved ${current.created_at}`,
          );
        }
        await writeCheckpoint(`${JSON.stringify(valid)}\n`);
      });
    },

    async acquire(owner) {
      const who = ownerArgument(owner, fn);
      const lease = await io("acquire", () =>
        change((current, nowMs) => acquiredLease(current, who, nowMs, leaseMs)),
      );
      return lease === null ? null : lease.fence;
    },

    async release(owner) {
      const who = ownerArgument(owner, fn);
      await io("release", () =>
        change((current) => (current.owner === who ? { ...current, owner: null } : null)),
      );
    },
  };
}
