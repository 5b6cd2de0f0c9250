/**
 * One measurement per child process, so that one measurement's heap, GC debt
 * and JIT state never pollute the next, and so that the process measured
 * (the client) does not share its event loop with the server it talks to.
 *
 * Parent side: `runChild(script, input)` forks `process.execPath` (the
 * pinned Node, which runs the .ts script by type stripping) with a clean
 * `execArgv` and resolves to what the child sent. Child side: the script
 * calls `childMain(async (input) => ...)`, which receives the input over IPC
 * and sends back the resolved value; `measureMemory(fn)` inside it reports
 * the RSS growth of `fn`.
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";

export interface RunChildOptions {
  /** Extra Node flags for the child, e.g. `["--expose-gc"]`. */
  execArgv?: string[];
  /** Kill the child and fail after this long. @default 120_000 */
  timeoutMs?: number;
}

/** Runs `script` (a file URL, e.g. `new URL("./x.child.ts", import.meta.url)`) in a fresh Node. */
export function runChild<O>(
  script: URL,
  input: unknown,
  options: RunChildOptions = {},
): Promise<O> {
  const { execArgv = [], timeoutMs = 120_000 } = options;
  return new Promise<O>((resolve, reject) => {
    const child = fork(fileURLToPath(script), [], {
      execPath: process.execPath,
      // Not the parent's flags: a profiler or inspector flag of the harness must not follow.
      execArgv: ["--disable-warning=ExperimentalWarning", ...execArgv],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      serialization: "advanced",
    });
    let reply: { ok: true; value: O } | { ok: false; error: string } | undefined;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${script.pathname}: no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on("message", (message) => {
      reply = message as typeof reply;
    });
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (reply?.ok) resolve(reply.value);
      else if (reply) reject(new Error(`${script.pathname}: ${reply.error}`));
      else reject(new Error(`${script.pathname} exited (${signal ?? code}) without an answer`));
    });
    child.send(input as object);
  });
}

/** The child's side: runs `work` on the input the parent sent and sends back its result. */
export function childMain<I, O>(work: (input: I) => Promise<O>): void {
  process.once("message", (input) => {
    work(input as I).then(
      (value) => process.send?.({ ok: true, value }, () => process.disconnect()),
      (error: unknown) =>
        process.send?.(
          {
            ok: false,
            error: error instanceof Error ? (error.stack ?? error.message) : String(error),
          },
          () => process.disconnect(),
        ),
    );
  });
}

export interface MemoryReport {
  /** RSS when `fn` started, bytes. */
  rssBefore: number;
  /**
   * Peak RSS growth while `fn` ran, bytes: the process's high-water mark
   * (`resourceUsage().maxRSS`, kept by the kernel, so no spike is missed
   * between samples) minus `rssBefore`. If setup before `fn` peaked higher,
   * this overstates the growth, never understates it.
   */
  peakGrowth: number;
  /** The same from sampling `rss()` every 5 ms, for comparison (without sampling: the RSS at the end). */
  sampledGrowth: number;
}

export interface MeasureMemoryOptions {
  /**
   * Sample `rss()` every 5 ms for `sampledGrowth`. Off where the child's CPU
   * time is itself measured: the sampler's cost grows with the wall time, so
   * it would charge the slower side more.
   * @default true
   */
  sample?: boolean;
}

/** Runs `fn` and reports the RSS growth it caused (see `MemoryReport`). */
export async function measureMemory<T>(
  fn: () => Promise<T>,
  { sample = true }: MeasureMemoryOptions = {},
): Promise<{ value: T } & MemoryReport> {
  (globalThis as { gc?: () => void }).gc?.();
  const rssBefore = process.memoryUsage.rss();
  let sampledPeak = rssBefore;
  const sampler = sample
    ? setInterval(() => {
        sampledPeak = Math.max(sampledPeak, process.memoryUsage.rss());
      }, 5)
    : undefined;
  try {
    const value = await fn();
    sampledPeak = Math.max(sampledPeak, process.memoryUsage.rss());
    const maxRss = process.resourceUsage().maxRSS * 1024;
    return {
      value,
      rssBefore,
      peakGrowth: Math.max(0, maxRss - rssBefore),
      sampledGrowth: sampledPeak - rssBefore,
    };
  } finally {
    clearInterval(sampler);
  }
}

export const MiB = 1024 * 1024;
