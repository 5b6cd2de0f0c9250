import type { Logger } from "../core/options.js";
import type { CommandIo } from "./usage-error.js";

/**
 * The client's log lines (retries, failed calls) on the command's stderr,
 * beside its own warnings, rather than on the process console: the command
 * owns its streams (a test captures them, a closed pipe ends the command
 * cleanly), and stdout stays the command's output alone. With
 * `unanswered: false`, the lines of attempts that got no answer (connection
 * refused, timeout) are left out.
 */
export function commandLogger(
  io: Pick<CommandIo, "stderr">,
  options: { unanswered?: boolean } = {},
): Logger {
  const write = (message: string, fields?: object) => {
    // A command that says itself, once, that the service cannot be reached leaves these out.
    const noAnswer = fields !== undefined && "status" in fields && fields.status === undefined;
    if (options.unanswered === false && noAnswer) return;
    io.stderr(`${message}\n`);
  };
  return { error: write, warn: write, info: write, debug: write };
}
