/**
 * The client's log: one concise line per call, built only from the method,
 * the path template, the status, the elapsed time, the request id and the
 * attempt, so that no body, query value, identifier or key can reach it.
 */
import { readEnv } from "../internal/env.js";
import type { Logger, RequestInfo, ResponseInfo } from "./options.js";

/** How much the client logs, from nothing to a line per attempt. */
export type LogLevel = "off" | "error" | "warn" | "info" | "debug";

/** Every level, quietest first. */
export const LOG_LEVELS: readonly LogLevel[] = ["off", "error", "warn", "info", "debug"];

/** The level when neither `logLevel` nor `MEDRECORDS_LOG` says. */
export const DEFAULT_LOG_LEVEL: LogLevel = "warn";

const isLogLevel = (value: unknown): value is LogLevel =>
  typeof value === "string" && (LOG_LEVELS as readonly string[]).includes(value);

/**
 * The level of a client: the `logLevel` option (an invalid one is a
 * `TypeError`: a mistake in code), else `MEDRECORDS_LOG` read where `process`
 * exists, case-insensitively (an invalid one is a warning and the default:
 * a typo in a deployment's environment must not stop the application), else
 * `"warn"`.
 */
export function resolveLogLevel(option: unknown, warn: (message: string) => void): LogLevel {
  if (option !== undefined) {
    if (isLogLevel(option)) return option;
    throw new TypeError(`\`logLevel\` must be one of ${LOG_LEVELS.join(", ")}.`);
  }
  const env = readEnv("MEDRECORDS_LOG");
  if (env === undefined) return DEFAULT_LOG_LEVEL;
  const level = env.toLowerCase();
  if (isLogLevel(level)) return level;
  // The value itself is left out: whatever was put there by mistake stays out of the log.
  warn(
    `medrecords: MEDRECORDS_LOG is not one of ${LOG_LEVELS.join(", ")}; logging at "${DEFAULT_LOG_LEVEL}".`,
  );
  return DEFAULT_LOG_LEVEL;
}

/** `GET /v2/cases/{case_id} 200 in 42 ms (request req_..., attempt 1)`: one attempt or call, in one line. */
export function describeOutcome(fields: ResponseInfo, elapsedMs = fields.elapsedMs): string {
  const outcome =
    fields.status === undefined
      ? `${fields.error ?? "Error"} after ${elapsedMs} ms`
      : `${fields.status} in ${elapsedMs} ms`;
  const request = fields.requestId === undefined ? "" : `request ${fields.requestId}, `;
  return `medrecords: ${fields.method} ${fields.path} ${outcome} (${request}attempt ${fields.attempt})`;
}

/** The log of one client: each method writes only when the level allows it. */
export class RequestLog {
  readonly level: LogLevel;
  readonly #logger: Logger;
  readonly #rank: number;

  /** Resolves the level (see {@link resolveLogLevel}); a bad `MEDRECORDS_LOG` is told to `logger.warn`. */
  constructor(logger: Logger | undefined, level: unknown) {
    this.#logger = logger ?? console;
    this.level = resolveLogLevel(level, (message) => this.#logger.warn?.(message));
    this.#rank = LOG_LEVELS.indexOf(this.level);
  }

  /** Whether lines of `level` are written: checked before a line is built, on every attempt. */
  #allows(level: Exclude<LogLevel, "off">): boolean {
    return LOG_LEVELS.indexOf(level) <= this.#rank;
  }

  #write(level: Exclude<LogLevel, "off">, line: string, fields: RequestInfo | ResponseInfo): void {
    const method = this.#logger[level] as
      | ((m: string, f?: RequestInfo | ResponseInfo) => void)
      | undefined;
    if (typeof method !== "function") return;
    // The console prints an object over several lines: it gets the line alone.
    if (this.#logger === console) method.call(this.#logger, line);
    else method.call(this.#logger, line, fields);
  }

  /** An attempt is about to be sent. */
  sending(info: RequestInfo): void {
    if (!this.#allows("debug")) return;
    this.#write(
      "debug",
      `medrecords: ${info.method} ${info.path} sending (attempt ${info.attempt})`,
      info,
    );
  }

  /** An attempt failed and another follows. */
  retrying(fields: ResponseInfo): void {
    if (!this.#allows("warn")) return;
    this.#write("warn", `${describeOutcome(fields)}; retrying`, fields);
  }

  /**
   * The call ended: `fields` are its last attempt's, `elapsedMs` the whole
   * call's. A failure without an answer or a 5xx is an error; a 429 that
   * outlasted the retries a warning; any other answer, 4xx included (the
   * caller gets it as an error and decides), one info line.
   */
  ended(fields: ResponseInfo, elapsedMs: number): void {
    const { status } = fields;
    const level =
      status === undefined || status >= 500 ? "error" : status === 429 ? "warn" : "info";
    if (!this.#allows(level)) return;
    this.#write(level, describeOutcome(fields, elapsedMs), { ...fields, elapsedMs });
  }
}
