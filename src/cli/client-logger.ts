import type { Logger } from "../core/options.js";
import type { CommandIo } from "./usage-error.js";

/** Statuses a gateway answers for a service behind it that is down or restarting. */
const GATEWAY_DOWN = [502, 503, 504];

/**
 * The client's log lines (retries, failed calls) on the command's stderr,
 * beside its own warnings, rather than on the process console: the command
 * owns its streams (a test captures them, a closed pipe ends the command
 * cleanly), and stdout stays the command's output alone. With
 * `unreachable: false`, the lines of attempts that found the service
 * unreachable (no answer, or a gateway's 502, 503 or 504) are left out: the
 * command says that itself, once.
 */
export function commandLogger(
  io: Pick<CommandIo, "stderr">,
  options: { unreachable?: boolean } = {},
): Logger {
  const write = (message: string, fields?: object) => {
    const status = fields !== undefined && "status" in fields ? fields.status : null;
    const down = status === undefined || GATEWAY_DOWN.includes(status as number);
    if (options.unreachable === false && down) return;
    io.stderr(`${message}\n`);
  };
  return { error: write, warn: write, info: write, debug: write };
}
