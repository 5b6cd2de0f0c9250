/**
 * Appends scrubbed exchanges to a cassette file, one line each, from a
 * worker thread (cassette-worker.ts): the calling thread only makes the
 * headers safe and posts the texts of the exchange as it ended, and the
 * scrubbing, serializing and writing (the cost of a 100-case page is about
 * that of the call) run on another core. Lines keep the order exchanges ended
 * in; each write resolves once its line is written. The thread keeps the
 * process alive only while lines are waiting to be written.
 */
import type { Worker } from "node:worker_threads";
import type { ObservedExchange } from "../core/exchange-observer.js";
import { recordedOf, type WriteMessage, type WrittenMessage } from "./recorded-exchange.js";

interface Waiting {
  resolve(): void;
  reject(error: Error): void;
}

export class CassetteWriter {
  readonly #redact: (text: string) => string;
  readonly #worker: Worker;
  readonly #waiting = new Map<number, Waiting>();
  #next = 0;
  /** Why the thread stopped, once it has: every later write fails with it. */
  #stopped: Error | undefined;

  /**
   * Node's built-ins are imported here, not at the top: this module is a lazy
   * chunk of the client, and a browser's or a Worker's bundler that inlines it
   * would otherwise hoist `import "node:worker_threads"` into code that runs everywhere.
   */
  static async open(path: string, redact: (text: string) => string): Promise<CassetteWriter> {
    const threads = await import("node:worker_threads");
    const { url, evalCode } = cassetteWorkerSource();
    // No flags of the caller's process: the thread needs none, and some (`--input-type`) fail a file's thread.
    const options = { workerData: { path }, execArgv: [] };
    const worker =
      evalCode === undefined
        ? new threads.Worker(url, options)
        : new threads.Worker(evalCode, { ...options, eval: true });
    return new CassetteWriter(worker, redact);
  }

  private constructor(worker: Worker, redact: (text: string) => string) {
    this.#worker = worker;
    this.#redact = redact;
    worker.unref();
    worker.on("message", (message: WrittenMessage) => this.#written(message));
    worker.on("error", (error) => this.#stop(error));
    worker.on("exit", (code) => this.#stop(new Error(`the cassette's thread exited (${code})`)));
  }

  /** Posts the exchange as it is now; resolves once its line is written. */
  write(exchange: ObservedExchange): Promise<void> {
    if (this.#stopped !== undefined) return Promise.reject(this.#stopped);
    const message: WriteMessage = {
      id: this.#next++,
      exchange: recordedOf(exchange, this.#redact),
    };
    return new Promise<void>((resolve, reject) => {
      // Kept alive while a line waits, so a process does not end with lines unwritten.
      if (this.#waiting.size === 0) this.#worker.ref();
      this.#waiting.set(message.id, { resolve, reject });
      this.#post(message);
    });
  }

  /** The body's bytes moved to the thread; copied instead should the buffer not be transferable. */
  #post(message: WriteMessage): void {
    const { response } = message.exchange;
    if (response instanceof ArrayBuffer) {
      try {
        this.#worker.postMessage(message, [response]);
        return;
      } catch {
        // A buffer that cannot be detached (a custom fetch's): copied below.
      }
    }
    this.#worker.postMessage(message);
  }

  #written({ written }: WrittenMessage): void {
    for (const [id, failed] of written) {
      const waiting = this.#waiting.get(id);
      this.#waiting.delete(id);
      if (failed === undefined) waiting?.resolve();
      else waiting?.reject(Object.assign(new Error("the line was not written"), { name: failed }));
    }
    if (this.#waiting.size === 0) this.#worker.unref();
  }

  #stop(error: Error): void {
    this.#stopped ??= error;
    for (const waiting of this.#waiting.values()) waiting.reject(error);
    this.#waiting.clear();
  }
}

/**
 * Where the thread's code is: beside this module in the built package
 * (`cassette-worker.js`, or `.cjs` in the CommonJS build), or, when the
 * TypeScript sources run (the package's own tests), the `.ts` file, loaded
 * through a resolve hook that maps the sources' `.js` specifiers to `.ts`.
 */
function cassetteWorkerSource(): { url: URL; evalCode?: string } {
  // tsup's CommonJS build turns import.meta.url into the module's file address.
  const here = import.meta.url;
  const extension = /\.(c?js|ts)$/.exec(here)?.[1] ?? "js";
  const url = new URL(`./cassette-worker.${extension}`, here);
  if (extension !== "ts") return { url };
  const evalCode = `
const { registerHooks } = require("node:module");
registerHooks({
  resolve(specifier, context, next) {
    try {
      return next(specifier, context);
    } catch (error) {
      if (!/^\\.\\.?\\//.test(specifier) || !specifier.endsWith(".js")) throw error;
      return next(specifier.slice(0, -3) + ".ts", context);
    }
  },
});
import(${JSON.stringify(url.href)});
`;
  return { url, evalCode };
}
