/**
 * The process's stdout and stderr as commands write to them, for the one
 * case every command must survive: the reader went away (`medrecords openapi
 * | head -c 10`, `medrecords events tail | head -1`). Node reports that as an
 * `EPIPE` 'error' event on the stream, which, unheard, kills the process with
 * a stack trace and exit code 1. Here it becomes an `OutputClosedError` from
 * the write, which `main` turns into exit code 0 without a message, as Unix
 * tools do when their reader has had enough.
 */

/**
 * The output's reader is gone (a closed pipe): nothing more can be written.
 * Not a failure of the command: `main` ends it with exit code 0.
 */
export class OutputClosedError extends Error {
  override name = "OutputClosedError";
}

/** Writes text to an output stream. */
export type OutputWrite = (text: string) => Promise<void>;

/**
 * `write(text)` for `stream`. Its promise resolves once the stream handed
 * the text to the operating system (for a pipe: into the pipe), and rejects
 * with `OutputClosedError` when the reader has closed it, or with the
 * stream's own error for any other failure (a full disk). The promise is
 * already handled, so a caller that does not care may ignore it without an
 * unhandled rejection; a caller that must know the text went out (a
 * checkpoint that counts printed events) awaits it.
 */
export function processOutput(stream: NodeJS.WritableStream): OutputWrite {
  let closed: OutputClosedError | undefined;
  const failure = (error: unknown): Error => {
    if (closed !== undefined) return closed;
    if (isClosedPipe(error)) {
      closed = new OutputClosedError("The output was closed by its reader.", { cause: error });
      return closed;
    }
    return error instanceof Error ? error : new Error(String(error));
  };
  // Without a listener the failed write's 'error' event would crash the process; the write's callback reports it.
  stream.on("error", failure);
  return (text) => {
    const written = new Promise<void>((resolve, reject) => {
      if (closed !== undefined) {
        reject(closed);
        return;
      }
      stream.write(text, (error) => (error ? reject(failure(error)) : resolve()));
    });
    written.catch(() => undefined);
    return written;
  };
}

/** EPIPE: the reader closed the pipe; ERR_STREAM_DESTROYED: a write after that. */
function isClosedPipe(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "EPIPE" || code === "ERR_STREAM_DESTROYED";
}
