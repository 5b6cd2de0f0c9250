import { parseDurationText } from "../internal/duration.js";
import { shown } from "./args.js";
import { type CommandIo, UsageError } from "./usage-error.js";

const MAX_INTERVAL_MS = 24 * 60 * 60 * 1000;

/**
 * `--interval` of `listen` and `events tail`: `500ms`, `5s`, `1.5m`, `1h` →
 * milliseconds, in the one duration grammar (src/internal/duration.ts).
 */
export function parseInterval(value: string, env: CommandIo["env"], seeHelp: string): number {
  const ms = parseDurationText(value) ?? 0;
  if (ms < 1 || ms > MAX_INTERVAL_MS) {
    throw new UsageError(
      `--interval needs a duration from 1ms to 24h with a unit, such as 500ms, 5s or 1m, not ${shown(value, env)}; ${seeHelp}`,
    );
  }
  return ms;
}
