/**
 * A mistake in how the command was called (unknown flag, bad value). The CLI
 * prints its message as one line and exits 2, like other Unix tools.
 */
export class UsageError extends Error {
  override name = "UsageError";
}

/**
 * A failure of the command itself (occupied port, unreadable file, refused
 * key). The CLI prints its message as one line and exits 1.
 */
export class CommandError extends Error {
  override name = "CommandError";
}

/** What a command writes to, so tests can run it in-process. */
export interface CommandIo {
  /**
   * Writes to standard output. A promise, when there is one, settles once the
   * text went out: rejected with `OutputClosedError` when the reader closed the
   * output. Await it where what was printed matters; it is safe to ignore.
   */
  stdout: (text: string) => void | Promise<void>;
  stderr: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
  /** Aborted on SIGINT/SIGTERM: a long-running command stops cleanly and resolves. */
  signal: AbortSignal;
}
