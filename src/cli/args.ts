import { type ParseArgsOptionsConfig, parseArgs } from "node:util";
import { type CommandIo, UsageError } from "./usage-error.js";

/**
 * Strict flag parsing for one command: unknown flags, missing values and
 * stray arguments become one-line UsageErrors that say where help is, and
 * never echo what could be an API key.
 */
export function parseFlags<O extends ParseArgsOptionsConfig>(
  argv: string[],
  options: O,
  command: string,
  env: CommandIo["env"] = {},
) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw usageErrorOf(error, `see medrecords ${command} --help`, env);
  }
}

function usageErrorOf(error: unknown, seeHelp: string, env: CommandIo["env"]): UsageError {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && /'--api-key'|'--key'|'--token'/.test(message)) {
    return new UsageError(
      `the API key is not taken as a flag (arguments show up in ps and shell history): set MEDRECORDS_API_KEY instead; ${seeHelp}`,
    );
  }
  if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL") {
    const argument = /'([^']*)'/.exec(message)?.[1] ?? "";
    return new UsageError(
      `unexpected argument ${shown(argument, env)}: this command takes no arguments, only options; ${seeHelp}`,
    );
  }
  const first = message.split(". ")[0]?.trim() ?? message;
  return new UsageError(`${first}; ${seeHelp}`);
}

/** A value quoted for an error message, unless it could be an API key. */
export function shown(value: string, env: CommandIo["env"]): string {
  const key = env.MEDRECORDS_API_KEY?.trim();
  const secret =
    /medrecords_sk_/i.test(value) || (key !== undefined && key.length >= 4 && value.includes(key));
  return secret ? "[redacted]" : JSON.stringify(value);
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
