/**
 * The client of a command that reads the API with the user's key (`listen`,
 * `events tail`): the key from MEDRECORDS_API_KEY only, the address from a
 * flag or MEDRECORDS_BASE_URL, every request cut short by the command's signal.
 */
import { MedRecords } from "../client.js";
import type { Logger } from "../core/options.js";
import { commandLogger } from "./client-logger.js";
import { abortableFetch, commandFetch } from "./command-fetch.js";
import { messageOf } from "./error-text.js";
import { isHttpUrl } from "./http-url.js";
import { CommandError, type CommandIo, UsageError } from "./usage-error.js";

export interface CommandClientOptions {
  /** The `--base-url` flag's value, if given. */
  baseUrl: string | undefined;
  /** Ends every request in flight (Ctrl-C never waits for a hung one). */
  signal: AbortSignal;
  /** "see medrecords <command> --help", ending a usage mistake. */
  seeHelp: string;
  /** A test's own fetch; default: the client's transport. */
  fetch?: typeof fetch | undefined;
  /** Where the client's log lines go. @default commandLogger(io) */
  logger?: Logger;
}

export interface CommandClient {
  mr: MedRecords;
  /** Removes the key from a text before it reaches the terminal. */
  redact: (text: string) => string;
}

export function commandClient(io: CommandIo, options: CommandClientOptions): CommandClient {
  const apiKey = io.env.MEDRECORDS_API_KEY;
  if (apiKey === undefined || apiKey.trim() === "") {
    throw new CommandError(
      "MEDRECORDS_API_KEY is not set: export the API key in the environment (it is never taken as a flag).",
    );
  }
  const redact = redactor(apiKey);
  const baseUrl = options.baseUrl ?? io.env.MEDRECORDS_BASE_URL;
  if (baseUrl === undefined || baseUrl.trim() === "") {
    throw new UsageError(
      `no service address: pass --base-url or set MEDRECORDS_BASE_URL; ${options.seeHelp}`,
    );
  }
  if (!isHttpUrl(baseUrl)) {
    const from = options.baseUrl !== undefined ? "--base-url" : "MEDRECORDS_BASE_URL";
    const message = `${from} must be an http or https address such as https://api.example.com`;
    throw options.baseUrl !== undefined
      ? new UsageError(`${message}; ${options.seeHelp}`)
      : new CommandError(`${message}.`);
  }
  const fetch = abortableFetch(commandFetch(options.fetch, baseUrl), options.signal);
  try {
    return {
      mr: new MedRecords({ apiKey, baseUrl, fetch, logger: options.logger ?? commandLogger(io) }),
      redact,
    };
  } catch (error) {
    // A key of the wrong shape, for example; messages of the client never hold the key.
    throw new CommandError(redact(`MEDRECORDS_API_KEY: ${messageOf(error)}`));
  }
}

export function redactor(apiKey: string): (text: string) => string {
  return (text) => (apiKey.length < 4 ? text : text.split(apiKey).join("[redacted]"));
}
