/**
 * Makes a rename inside `dir` durable: the file's own content is synced before
 * the rename, but the directory entry that names it lives in the directory.
 * Best effort, since directories cannot be opened for this on Windows; the
 * caller passes node:fs/promises, which it loads on use.
 */
export async function syncDirectory(
  fs: Pick<typeof import("node:fs/promises"), "open">,
  dir: string,
): Promise<void> {
  try {
    const handle = await fs.open(dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Best effort: the file's own content was already synced.
  }
}
