import { type ParseArgsOptionsConfig, parseArgs } from "node:util";
import { UsageError } from "./usage-error.js";

/**
 * Strict flag parsing for one command: unknown flags, missing values and
 * stray arguments become one-line UsageErrors that say where help is.
 */
export function parseFlags<O extends ParseArgsOptionsConfig>(
  argv: string[],
  options: O,
  command: string,
) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    const detail = error instanceof Error ? error.message.split(". ")[0] : String(error);
    throw new UsageError(`${detail}; see medrecords ${command} --help`);
  }
}

/** A TCP port from a flag: an integer from 0 to 65535. */
export function portFlag(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) {
    throw new UsageError(`${flag} must be a port number from 0 to 65535, not "${value}"`);
  }
  return port;
}
