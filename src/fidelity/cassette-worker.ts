/**
 * The cassette's thread (started by cassette-writer.ts): scrubs, serializes
 * and appends each exchange posted to it, in the order posted, and reports
 * the lines written. It holds the cassette's scrubber and so its HMAC key,
 * drawn here at random and never written or posted. Built as its own file
 * (tsup.config.ts), never imported by the client.
 */
import type { MessagePort } from "node:worker_threads";
import { entryOf, scrubEntry } from "./cassette-entry.js";
import { cassetteLine } from "./cassette-format.js";
import { operationOf } from "./cassette-scrub.js";
import type { WriteMessage, WrittenMessage } from "./recorded-exchange.js";
import { Scrubber, type ScrubberCrypto } from "./scrubber.js";

/** What the writer passes at start (`workerData`). */
export interface CassetteWorkerData {
  readonly path: string;
}

/** What the thread writes through: the cassette's file, opened for appending, or why it could not be. */
type Sink = { readonly write: (line: string) => void } | Error;

/** Appends lines and gathers the reports of those written, posted together once per turn. */
class CassetteThread {
  readonly #port: MessagePort;
  readonly #scrubber: Scrubber;
  readonly #sink: Sink;
  #written: Array<readonly [number, string | undefined]> = [];

  constructor(port: MessagePort, scrubber: Scrubber, sink: Sink) {
    this.#port = port;
    this.#scrubber = scrubber;
    this.#sink = sink;
  }

  /**
   * Scrubs, serializes and appends one exchange. The write is synchronous:
   * this thread does nothing else, and lines then reach the file in the
   * order they were posted without a stream's bookkeeping.
   */
  write({ id, exchange }: WriteMessage): void {
    try {
      if (this.#sink instanceof Error) throw this.#sink;
      const op = operationOf(exchange.operationId);
      this.#sink.write(cassetteLine(scrubEntry(entryOf(exchange, op), op, this.#scrubber)));
      this.#report(id, undefined);
    } catch (error) {
      this.#report(id, error);
    }
  }

  #report(id: number, error: unknown): void {
    if (this.#written.length === 0) setImmediate(() => this.#post());
    this.#written.push([id, error === undefined ? undefined : errorName(error)]);
  }

  #post(): void {
    const message: WrittenMessage = { written: this.#written };
    this.#written = [];
    this.#port.postMessage(message);
  }
}

const errorName = (error: unknown) => (error instanceof Error ? error.name : "Error");

/**
 * Recording is background work: on Linux a thread has its own nice value
 * (`setpriority` with pid 0 names the calling thread), so this thread yields
 * a core to the caller's own threads (its HTTP server, say) instead of
 * delaying them; elsewhere, or where it is not allowed, it runs as it is.
 */
function lowerPriority(os: typeof import("node:os")): void {
  try {
    if (process.platform === "linux")
      os.setPriority(0, os.constants.priority.PRIORITY_BELOW_NORMAL);
  } catch {
    // Not allowed here: the thread keeps the process's priority.
  }
}

/** Node's built-ins by dynamic import, as everywhere in the package's chunks. */
async function main(): Promise<void> {
  const [{ parentPort, workerData }, crypto, fs, nodePath, os] = await Promise.all([
    import("node:worker_threads"),
    import("node:crypto"),
    import("node:fs"),
    import("node:path"),
    import("node:os"),
  ]);
  lowerPriority(os);
  if (parentPort === null) throw new Error("cassette-worker: not started as a worker thread.");
  const { path } = workerData as CassetteWorkerData;
  let sink: Sink;
  try {
    fs.mkdirSync(nodePath.dirname(path), { recursive: true });
    const fd = fs.openSync(path, "a", 0o600);
    sink = { write: (line) => fs.writeSync(fd, line) };
  } catch (error) {
    // A directory that cannot be made fails each write (reported there), not the thread.
    sink = error instanceof Error ? error : new Error(String(error));
  }
  const thread = new CassetteThread(parentPort, new Scrubber(crypto as ScrubberCrypto), sink);
  parentPort.on("message", (message: WriteMessage) => thread.write(message));
}

void main();
