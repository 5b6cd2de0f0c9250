import {
  APIError,
  AuthenticationError,
  ConnectionError,
  MedRecordsError,
  PermissionError,
  TimeoutError,
} from "../core/errors.js";
import { messageOf, oneLine } from "./error-text.js";
import { terminalSafe } from "./terminal-text.js";
import { CommandError, UsageError } from "./usage-error.js";

/**
 * What ended a command that reads the API (`listen`, `events tail`), as one
 * terminal-safe line without the key: which service refused what, or could
 * not be reached.
 */
export function failure(
  error: unknown,
  baseUrl: string,
  redact: (text: string) => string,
  command: string,
): Error {
  if (error instanceof CommandError || error instanceof UsageError) {
    return new CommandError(redact(terminalSafe(oneLine(error.message))));
  }
  const message = messageOf(error);
  let line: string;
  if (error instanceof AuthenticationError) {
    line = `the service at ${baseUrl} refused the API key in MEDRECORDS_API_KEY: ${message}`;
  } else if (error instanceof PermissionError) {
    line = `the API key may not read the event log (it needs webhooks:read, and retrievals:read for retrieval events): ${message}`;
  } else if (error instanceof ConnectionError || error instanceof TimeoutError) {
    line = `cannot reach the service at ${baseUrl}: ${message}`;
  } else if (error instanceof APIError) {
    line = `the service at ${baseUrl} refused the request: ${message}`;
  } else if (error instanceof MedRecordsError) {
    line = message;
  } else {
    line = `${command} failed: ${message}`;
  }
  // The message may quote the service's own words: nothing in it reaches the terminal raw.
  return new CommandError(redact(terminalSafe(oneLine(line))));
}
