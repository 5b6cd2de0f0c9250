/**
 * `captureLeaks()`: records what the application under test lets out while
 * it runs (console lines, requests made with `fetch` to other origins than the
 * API, errors handed to `recordError`) so that `assertNoLeaks()` can look for
 * canaries in them. Patches `console` and `globalThis.fetch` until `stop()`.
 * Not seen: `node:http` requests made without `fetch`, and writes straight
 * to `process.stdout`/`process.stderr`; pass those to `assertNoCanaryLeak`.
 */
import { assertNoCanaryLeak, type CapturedRequest, type LeakSources } from "./canary-scan.js";
import { type Canary, PHI_CANARIES } from "./fictional-clients.js";

const CONSOLE_METHODS = ["log", "info", "warn", "error", "debug", "trace"] as const;

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

function formatArg(arg: unknown): string {
  if (typeof arg === "string") return arg;
  if (arg instanceof Error) return `${arg.stack ?? String(arg)}`;
  try {
    const json = JSON.stringify(arg, (_, v) => (typeof v === "bigint" ? `${v}n` : v));
    return json ?? String(arg);
  } catch {
    return String(arg);
  }
}

/** Starts recording; call `stop()` when done (e.g. in `afterAll`). */
export function captureLeaks(options: CaptureLeaksOptions = {}): LeakCapture {
  const apiOrigins = new Set((options.apiOrigins ?? []).map((o) => new URL(o).origin));
  const canaries = options.canaries ?? PHI_CANARIES;
  const logs: string[] = [];
  const errors: unknown[] = [];
  const requests: CapturedRequest[] = [];

  const target = globalThis.console;
  const originals = CONSOLE_METHODS.map((name) => [name, target[name]] as const);
  const wrappers = new Map<string, (...args: unknown[]) => void>();
  for (const [name, original] of originals) {
    const wrapper = (...args: unknown[]) => {
      logs.push(args.map(formatArg).join(" "));
      for (const arg of args) if (arg instanceof Error) errors.push(arg);
      if (!options.quiet) original.apply(target, args);
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
      body: request.body === null ? "" : await request.clone().text(),
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
