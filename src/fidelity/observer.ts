/**
 * What core loads when `onDrift` or `record` is set: checks each ended
 * exchange against its operation and hands the drifts to `onDrift`, and
 * appends the exchange to the cassette. The writer (Node's file system and
 * crypto) loads only when recording, so `onDrift` alone runs anywhere.
 */
import type {
  ExchangeObserver,
  ObservedExchange,
  ObserverContext,
} from "../core/exchange-observer.js";
import { type CassetteRecorder, TRACK_WRITE } from "./recorder.js";
import { responseDrifts } from "./response-drift.js";

export function createObserver(context: ObserverContext): ExchangeObserver {
  const { onDrift, record, warn } = context;
  const writer =
    record === undefined
      ? undefined
      : import("./cassette-writer.js").then((module) =>
          module.CassetteWriter.open(record.path, context.redact),
        );
  return {
    async observe(exchange: ObservedExchange) {
      if (onDrift !== undefined) report(onDrift, exchange, warn);
      if (writer === undefined || record === undefined) return;
      const failed = (error: unknown) =>
        warn(
          `medrecords: an exchange of ${exchange.operation.operationId} was not recorded (${error instanceof Error ? error.name : "Error"}).`,
        );
      try {
        // Posted as it ended; scrubbed and written on the cassette's thread (recorder.flush() waits for it).
        const written = (await writer).write(exchange);
        // Only cassette() makes a Recorder (the client's options say so); its writes are tracked for flush().
        (record as CassetteRecorder)[TRACK_WRITE]?.(written);
        written.catch(failed);
      } catch (error) {
        failed(error);
      }
    },
  };
}

function report(
  onDrift: NonNullable<ObserverContext["onDrift"]>,
  exchange: ObservedExchange,
  warn: (message: string) => void,
): void {
  const drifts = responseDrifts(exchange.operation, {
    status: exchange.status,
    body: exchange.responseBody,
    requestId: exchange.requestId,
  });
  for (const drift of drifts) {
    // A tolerant reader: a failing callback never fails the call it reports on.
    try {
      onDrift(drift);
    } catch (error) {
      warn(
        `medrecords: onDrift threw (${error instanceof Error ? error.name : "Error"}) for ${drift.operation}.`,
      );
    }
  }
}
