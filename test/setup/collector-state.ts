/**
 * The leak collector's state, kept on `globalThis` under a registered symbol
 * so that the setup file and a test importing this module share it whether
 * or not the runner gives them the same module instance.
 */

/** One secret seen where it must not be. The excerpt has every secret redacted. */
export interface LeakFinding {
  /** `file > describe > test`, or the file alone for hooks and module code. */
  where: string;
  /** What carried it, e.g. `console.error`, `process.stderr.write`, `ValidationError#message`. */
  source: string;
  kind: string;
  excerpt: string;
}

export interface LeakCollectorState {
  /** Errors of the patched classes constructed since the last check, in order. */
  pendingErrors: Error[];
  /**
   * Name, message and JSON of errors already inspected in this file: an error
   * rendering the same is not inspected again (fuzz tests make 100 000s).
   */
  inspected: Set<string>;
  /** Findings of this test file so far. */
  findings: LeakFinding[];
  /** Every error checked in this test file, and every log line. */
  counts: { errors: number; lines: number };
  /** Classes whose construction is recorded (one entry per module instance). */
  readonly patchedClasses: WeakSet<object>;
  readonly patchedConsoles: WeakSet<object>;
  streamsPatched: boolean;
  /** Set while a console method runs, so its own writes are not counted twice. */
  inConsole: number;
  /** Partial last line of each stream, scanned when completed or at the next check. */
  partial: Record<"stdout" | "stderr", string>;
  /** The real `write` of process.stdout and process.stderr, which the patched ones call. */
  realWrite: Record<"stdout" | "stderr", (...args: unknown[]) => boolean>;
  /** Scans pending errors and partial lines now, attributing findings to `where`. */
  check(where: string): void;
  /** Records every line `target` prints (done for `globalThis.console` by the setup file). */
  patchConsole(target: Console): void;
}

const KEY = Symbol.for("medrecords.test.leakCollector");

/** The collector's state, or undefined when the setup file did not run. */
export function leakCollector(): LeakCollectorState | undefined {
  return (globalThis as { [KEY]?: LeakCollectorState })[KEY];
}

export function installLeakCollectorState(create: () => LeakCollectorState): LeakCollectorState {
  const g = globalThis as { [KEY]?: LeakCollectorState };
  g[KEY] ??= create();
  return g[KEY];
}
