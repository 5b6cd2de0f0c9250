import type { Logger } from "../core/options.js";
import type { CommandIo } from "./usage-error.js";

/**
 * The client's log lines (retries, failed calls) on the command's stderr,
 * beside its own warnings, rather than on the process console: the command
 * owns its streams (a test captures them, a closed pipe ends the command
 * cleanly), and stdout stays the command's output alone.
 */
export function commandLogger(io: Pick<CommandIo, "stderr">): Logger {
  const write = (message: string) => io.stderr(`${message}\n`);
  return { error: write, warn: write, info: write, debug: write };
}
