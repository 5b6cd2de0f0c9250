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
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
  /** Aborted on SIGINT/SIGTERM: a long-running command stops cleanly and resolves. */
  signal: AbortSignal;
}
