import type { FileHandle } from "node:fs/promises";

type Fs = typeof import("node:fs/promises");

const codeOf = (error: unknown) => (error as { code?: unknown } | null)?.code;

/** Open flags for a custody file: read only, or read and append (created 0600 if missing). */
export type NoFollowMode = "read" | "append";

/**
 * Opens `path` without following a symbolic link at it (O_NOFOLLOW): on a
 * shared machine, a link planted at a log's path would have the log written
 * into, or read from, a file of the planter's choosing. Resolves undefined
 * when the file does not exist and `mode` is "read". Throws `refuse(reason)`
 * for a link or anything but a regular file.
 */
export async function openNoFollow(
  fs: Fs,
  path: string,
  mode: NoFollowMode,
  refuse: (reason: string) => Error,
): Promise<FileHandle | undefined> {
  const { constants } = await import("node:fs");
  const noFollow = constants.O_NOFOLLOW ?? 0;
  const flags =
    mode === "read"
      ? constants.O_RDONLY | noFollow
      : constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | noFollow;
  let handle: FileHandle;
  try {
    handle = await fs.open(path, flags, 0o600);
  } catch (error) {
    if (codeOf(error) === "ENOENT" && mode === "read") return undefined;
    if (codeOf(error) === "ELOOP" || codeOf(error) === "EMLINK") throw refuse(symlinkReason(path));
    throw error;
  }
  // Where O_NOFOLLOW is missing (Windows), the link is found after the fact, before any write.
  if (noFollow === 0 && (await fs.lstat(path)).isSymbolicLink()) {
    await handle.close();
    throw refuse(symlinkReason(path));
  }
  if (!(await handle.stat()).isFile()) {
    await handle.close();
    throw refuse(`${path} is not a regular file`);
  }
  return handle;
}

/** Whether `path` is a symbolic link (false when there is nothing there). */
export async function isSymlink(fs: Fs, path: string): Promise<boolean> {
  try {
    return (await fs.lstat(path)).isSymbolicLink();
  } catch (error) {
    if (codeOf(error) === "ENOENT") return false;
    throw error;
  }
}

export const symlinkReason = (path: string) =>
  `${path} is a symbolic link: refusing to follow it (a custody file is only ever opened as itself)`;

/**
 * Narrows an open custody file readable or writable by others to 0600 (file
 * names are often patients' names), calling `warn` when it did. Not where
 * the platform has no Unix modes (Windows).
 */
export async function tightenMode(
  handle: FileHandle,
  path: string,
  warn: (message: string) => void,
): Promise<void> {
  const { mode } = await handle.stat();
  if ((mode & 0o077) === 0 || globalThis.process?.platform === "win32") return;
  await handle.chmod(0o600);
  warn(
    `medrecords: ${path} was readable or writable by others (mode ${(mode & 0o777).toString(8).padStart(4, "0")}); ` +
      "tightened to 0600",
  );
}
