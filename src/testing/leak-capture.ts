/**
 * `captureLeaks()`: records what the application under test lets out while
 * it runs (console output of every method, requests made with `fetch` to
 * other origins than the API, errors handed to `recordError`) so that
 * `assertNoLeaks()` can look for canaries in them. Patches `console` and
 * `globalThis.fetch` until `stop()`. Not seen: `node:http` requests made
 * without `fetch`, and writes straight to `process.stdout`/`process.stderr`;
 * pass those to `assertNoCanaryLeak`.
 */
import { assertNoCanaryLeak, type CapturedRequest, type LeakSources } from "./canary-scan.js";
import { bytesText } from "./canary-views.js";
import { type Canary, PHI_CANARIES } from "./fictional-clients.js";
import { formatLogLine } from "./inspect.js";

/** Console methods whose arguments are printed as a line (`console.log` and its like). */
const LINE_METHODS = [
  "log",
  "info",
  "warn",
  "error",
  "debug",
  "trace",
  "dir",
  "dirxml",
  "table",
  "group",
  "groupCollapsed",
] as const;

/** Console methods that print a label (and, for `timeLog`, data after it). */
const LABEL_METHODS = ["count", "countReset", "time", "timeEnd", "timeLog"] as const;

type ConsoleMethod = (typeof LINE_METHODS)[number] | (typeof LABEL_METHODS)[number] | "assert";

/** What one console call prints, as text to search; undefined when it prints nothing. */
function printed(method: ConsoleMethod, args: readonly unknown[]): string | undefined {
  if (method === "assert") {
    // console.assert prints its data only when the assertion fails.
    return args[0] ? undefined : formatLogLine(["Assertion failed", ...args.slice(1)]);
  }
  if (method === "dir") return formatLogLine(args.slice(0, 1));
  if ((LABEL_METHODS as readonly string[]).includes(method)) {
    return formatLogLine([String(args[0] ?? "default"), ...args.slice(1)]);
  }
  return formatLogLine(args);
}

/** Options of `captureLeaks(options)`. */
export interface CaptureLeaksOptions {
  /**
   * Origins whose requests are the API's, not leaks (PHI is meant to go
   * there), e.g. `mock.baseUrl`. Requests to every other origin are recorded.
   * @default [] (every request is recorded)
   */
  apiOrigins?: readonly string[];
  /** Record console lines without printing them. @default false */
  quiet?: boolean;
  /** The values to look for. @default PHI_CANARIES */
  canaries?: readonly Canary[];
}

/** What `captureLeaks()` records; pass it to `assertNoCanaryLeak` or call `assertNoLeaks()`. */
export interface LeakCapture extends Required<LeakSources> {
  readonly logs: string[];
  readonly errors: unknown[];
  readonly requests: CapturedRequest[];
  /** Adds an error the application reported (e.g. to its error tracker) or returned. */
  recordError(error: unknown): void;
  /** Throws a PhiLeakError when a canary appears in anything recorded so far. */
  assertNoLeaks(): void;
  /** Forgets what was recorded (between tests). */
  clear(): void;
  /** Puts `console` and `fetch` back. */
  stop(): void;
}

/** Starts recording; call `stop()` when done (e.g. in `afterAll`). */
export function captureLeaks(options: CaptureLeaksOptions = {}): LeakCapture {
  const apiOrigins = new Set((options.apiOrigins ?? []).map((o) => new URL(o).origin));
  const canaries = options.canaries ?? PHI_CANARIES;
  const logs: string[] = [];
  const errors: unknown[] = [];
  const requests: CapturedRequest[] = [];

  const target = globalThis.console as unknown as Record<
    ConsoleMethod,
    (...args: unknown[]) => void
  >;
  const methods: ConsoleMethod[] = [...LINE_METHODS, ...LABEL_METHODS, "assert"];
  const originals = methods
    .filter((name) => typeof target[name] === "function")
    .map((name) => [name, target[name]] as const);
  const wrappers = new Map<string, (...args: unknown[]) => void>();
  // Node's console.table, group, count and assert print through console.log or warn: recorded once.
  let printing = false;
  for (const [name, original] of originals) {
    const wrapper = (...args: unknown[]) => {
      if (printing) {
        original.apply(target, args);
        return;
      }
      const line = printed(name, args);
      if (line !== undefined) logs.push(line);
      for (const arg of args) if (arg instanceof Error) errors.push(arg);
      if (options.quiet) return;
      printing = true;
      try {
        original.apply(target, args);
      } finally {
        printing = false;
      }
    };
    wrappers.set(name, wrapper);
    target[name] = wrapper;
  }

  const originalFetch = globalThis.fetch;
  const capturingFetch = async (
    input: RequestInfo | URL,
    init?: RequestInit,
  ): Promise<Response> => {
    const request = new Request(input, init);
    if (apiOrigins.has(new URL(request.url).origin)) return originalFetch(request);
    requests.push({
      method: request.method,
      url: request.url,
      headers: Object.fromEntries(request.headers),
      // Bytes first: a gzip body is read decompressed.
      body:
        request.body === null
          ? ""
          : bytesText(new Uint8Array(await request.clone().arrayBuffer())).text,
    });
    return originalFetch(request);
  };
  globalThis.fetch = capturingFetch as typeof fetch;

  const sources = { logs, errors, requests };
  return {
    logs,
    errors,
    requests,
    recordError: (error) => {
      errors.push(error);
    },
    assertNoLeaks: () => assertNoCanaryLeak(sources, canaries),
    clear() {
      logs.length = 0;
      errors.length = 0;
      requests.length = 0;
    },
    stop() {
      for (const [name, original] of originals) {
        if (target[name] === wrappers.get(name)) target[name] = original;
      }
      if (globalThis.fetch === capturingFetch) globalThis.fetch = originalFetch;
    },
  };
}
