/** A reference server and a client over its `fetch` (no MSW), for the poller tests. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CatchUpPoller, MedRecords } from "../../src/index.js";
import { createMockService, type MockService } from "../../src/mock/index.js";
import type { EventLogEntry } from "../../src/mock/model/event-log.js";
import { type CatchUpDiagnostics, diagnostics } from "../../src/poller/catch-up.js";
import type { AnyEvent } from "../../src/schemas/event-list.js";
import { statusChanged } from "../helpers/events.js";
import { eventLogForTesting } from "../helpers/mock-internals.js";

export const START = "2026-03-01T10:00:00.000Z";
export const DAY = 86_400_000;

export interface Setup {
  mock: MockService;
  mr: MedRecords;
  /** How many requests reached the mock. */
  requests: () => number;
  /** The address of every request, in order. */
  urls: string[];
  /** Makes the next matching request fail like a dropped connection. */
  failRequest: (n: number) => void;
}

export function setup(options: { now?: string } = {}): Setup {
  const mock = createMockService({ now: options.now ?? START, delivery: "inbox" });
  let count = 0;
  let failAt = -1;
  const urls: string[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    count += 1;
    urls.push(input instanceof Request ? input.url : String(input));
    if (count === failAt) throw new TypeError("fetch failed", { cause: { code: "ECONNRESET" } });
    return mock.fetch(input, init);
  };
  const mr = new MedRecords({
    apiKey: mock.apiKeys.create(),
    baseUrl: mock.baseUrl,
    fetch,
    validateResponses: true,
    maxRetries: 0,
  });
  return {
    mock,
    mr,
    requests: () => count,
    urls,
    failRequest: (n) => {
      failAt = count + n;
    },
  };
}

/**
 * Emits `count` status_changed events, moving the clock 1 ms after every
 * `perInstant` events so that runs of equal `created_at` straddle pages.
 */
export function emitMany(mock: MockService, count: number, perInstant = 1): void {
  for (let i = 0; i < count; i++) {
    statusChanged(mock, `rr_${i}`);
    if ((i + 1) % perInstant === 0) mock.clock.advance(1);
  }
}

/** The log oldest first: `created_at`, then the order written. */
export function logOldestFirst(mock: MockService): EventLogEntry[] {
  return eventLogForTesting(mock).sort(
    (a, b) => Date.parse(a.created_at) - Date.parse(b.created_at),
  );
}

export const idsOf = (events: readonly (AnyEvent | EventLogEntry)[]): string[] =>
  events.map((e) => e.id);

export async function tempDir(): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), "medrecords-poller-"));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** What a poller holds in memory and how many pages it fetched. */
export const statsOf = (poller: CatchUpPoller): CatchUpDiagnostics =>
  (poller as unknown as { [diagnostics]: CatchUpDiagnostics })[diagnostics];

/** A directory listing without the lease versions a `fileCheckpoint` keeps beside its file. */
export const withoutLease = (names: readonly string[]): string[] =>
  names.filter((name) => !/\.lease-\d+$/.test(name));
