/**
 * Guards of the shared stores against a store that goes away (issue 30,
 * docs/stores.md "When a store fails"), for the clients users pass as
 * documented:
 *
 * - node-redis queues commands while it is disconnected (unless created
 *   with `disableOfflineQueue: true`), so a command against a Redis that is
 *   down or restarting would wait for it instead of failing: each command
 *   of the Redis stores has a deadline, and a late one is a
 *   `StoreUnavailableError` (a webhook handler answers 503, a poller's run
 *   stops with its checkpoint where it was).
 * - a `pg.Pool` emits `error` when an idle connection dies (PostgreSQL
 *   restarting), and an `error` event without a listener ends the process:
 *   the PostgreSQL stores give a pool without one a listener that ignores it
 *   (the next query fails, and that failure is reported as the store's).
 */

/** How long a Redis store waits for one command by default, in ms. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 5_000;

/** Checks the `commandTimeoutMs` option: a number of ms above 0. */
export function commandTimeoutOption(value: unknown, fn: string): number {
  if (value === undefined) return DEFAULT_COMMAND_TIMEOUT_MS;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${fn}: \`commandTimeoutMs\` must be a number of ms above 0.`);
  }
  return value;
}

/** `command`'s answer, or a rejection once `ms` passed without one. */
export function withDeadline<T>(command: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `no answer within ${ms} ms (the server unreachable, or the client queuing commands while disconnected: create node-redis clients with disableOfflineQueue: true)`,
          ),
        ),
      ms,
    );
  });
  // A command answering after its deadline must not be an unhandled rejection.
  command.catch(() => undefined);
  return Promise.race([command, late]).finally(() => clearTimeout(timer));
}

interface ErrorEmitter {
  on(event: "error", listener: (error: unknown) => void): unknown;
  listenerCount(event: "error"): number;
}

/** Gives a pool without an `error` listener one, so that a connection dying while idle does not end the process. */
export function guardPoolErrors(pool: unknown): void {
  const emitter = pool as Partial<ErrorEmitter> | null;
  if (typeof emitter?.on !== "function" || typeof emitter.listenerCount !== "function") return;
  if (emitter.listenerCount("error") > 0) return;
  emitter.on("error", () => {
    // The connection is gone from the pool already; the next query reports the outage.
  });
}
