/**
 * A checkpoint that cannot be true fails the run with a MedRecordsError
 * naming the store and the value, whichever store it came from: without a
 * time zone, before any request; ahead of the service's clock by more than
 * the timestamp tolerance, after the first response, whose Date header is
 * that clock (this machine's clock only when the response has none).
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  type CheckpointStore,
  fileCheckpoint,
  MedRecords,
  MedRecordsError,
  memoryCheckpoint,
  WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS,
} from "../../src/index.js";
import { API_KEY, BASE_URL, json, scriptedFetch } from "../helpers/scripted-fetch.js";
import { tempDir } from "./helpers.js";

/** This machine's clock, pinned: the judge when a response carries no Date header. */
const NOW = "2026-01-01T12:00:00.000Z";

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date(NOW));
});
afterEach(() => {
  vi.useRealTimers();
});

/** `seconds` after NOW, as the service writes a `created_at`. */
const ahead = (seconds: number) => new Date(Date.parse(NOW) + seconds * 1000).toISOString();

/** A store of the user's own, which the poller is the only one to check. */
const userStore = (created_at: unknown): CheckpointStore => ({
  load: async () => ({ created_at, ids_at_created_at: [] }) as never,
  save: async () => {},
});

async function runOnce(checkpoint: CheckpointStore, serviceDate?: string) {
  const { fetch, seen } = scriptedFetch([], () =>
    json(
      200,
      { results: [], next: null, previous: null },
      serviceDate === undefined ? {} : { date: new Date(serviceDate).toUTCString() },
    ),
  );
  const mr = new MedRecords({ apiKey: API_KEY, baseUrl: BASE_URL, fetch, maxRetries: 0 });
  const error = await mr.events
    .catchUp({ checkpoint, onEvent: () => {} })
    .runOnce()
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  return { error: error as Error | undefined, requests: seen.length };
}

describe("a checkpoint ahead of this machine's clock, the service sending no Date", () => {
  it("is accepted up to the tolerance ahead", async () => {
    for (const seconds of [
      WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS - 1,
      WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS,
    ]) {
      const { error, requests } = await runOnce(userStore(ahead(seconds)));
      expect(error).toBeUndefined();
      expect(requests).toBe(1);
    }
  });

  it("fails beyond the tolerance, naming the store, the value and the clock, after the first response", async () => {
    for (const created_at of [
      ahead(WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS + 1),
      "2099-01-01T00:00:00Z",
    ]) {
      const { error, requests } = await runOnce(userStore(created_at));
      expect(error).toBeInstanceOf(MedRecordsError);
      expect(error?.message).toContain("`checkpoint` store of events.catchUp");
      expect(error?.message).toContain(created_at);
      expect(error?.message).toContain("this machine's clock");
      expect(requests).toBe(1);
    }
  });

  it("fails from memoryCheckpoint and fileCheckpoint too, each named", async () => {
    const future = ahead(WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS + 1);
    const memory = await runOnce(memoryCheckpoint({ created_at: future, ids_at_created_at: [] }));
    expect(memory.error).toBeInstanceOf(MedRecordsError);
    expect(memory.error?.message).toContain("memoryCheckpoint()");
    expect(memory.requests).toBe(1);

    const dir = await tempDir();
    try {
      const path = join(dir.path, "checkpoint.json");
      await writeFile(path, JSON.stringify({ created_at: future, ids_at_created_at: [] }));
      const file = await runOnce(fileCheckpoint(path));
      expect(file.error).toBeInstanceOf(MedRecordsError);
      expect(file.error?.message).toContain(path);
      expect(file.error?.message).toContain(future);
      expect(file.requests).toBe(1);
    } finally {
      await dir.remove();
    }
  });
});

describe("a checkpoint judged by the service's clock (its Date header)", () => {
  const DAYS_LATER = new Date(Date.parse(NOW) + 3 * 86_400_000).toISOString();
  const daysLater = (seconds: number) =>
    new Date(Date.parse(DAYS_LATER) + seconds * 1000).toISOString();

  it("is accepted when the service's clock is days ahead of this machine's (a mock advanced by tests)", async () => {
    const { error, requests } = await runOnce(userStore(daysLater(-60)), DAYS_LATER);
    expect(error).toBeUndefined();
    expect(requests).toBe(1);
    // At the tolerance too: the boundary is the service's time, not this machine's.
    const edge = await runOnce(
      userStore(daysLater(WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS)),
      DAYS_LATER,
    );
    expect(edge.error).toBeUndefined();
  });

  it("fails beyond the tolerance of the service's clock, naming it, even when this machine's clock would accept", async () => {
    const behind = new Date(Date.parse(NOW) - 3600_000).toISOString();
    const checkpoint = new Date(
      Date.parse(behind) + (WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS + 2) * 1000,
    ).toISOString();
    const { error, requests } = await runOnce(userStore(checkpoint), behind);
    expect(error).toBeInstanceOf(MedRecordsError);
    expect(error?.message).toContain("the service's clock");
    expect(error?.message).toContain(checkpoint);
    expect(requests).toBe(1);
  });
});

describe("a checkpoint's time zone", () => {
  it("is required: a created_at without one fails before any request", async () => {
    const { error, requests } = await runOnce(userStore("2026-01-01T00:00:00"));
    expect(error).toBeInstanceOf(MedRecordsError);
    expect(error?.message).toContain('"2026-01-01T00:00:00"');
    expect(error?.message).toContain("time zone");
    expect(requests).toBe(0);
  });

  it("may be Z or an offset", async () => {
    for (const created_at of ["2026-01-01T00:00:00Z", "2026-01-01T00:00:00+02:00"]) {
      const { error, requests } = await runOnce(userStore(created_at));
      expect(error).toBeUndefined();
      expect(requests).toBe(1);
    }
  });

  it("is checked by memoryCheckpoint and fileCheckpoint when they read one", async () => {
    const zoneless = { created_at: "2026-01-01T00:00:00", ids_at_created_at: [] };
    expect(() => memoryCheckpoint(zoneless)).toThrow(/memoryCheckpoint\(initial\).*time zone/);
    const dir = await tempDir();
    try {
      const path = join(dir.path, "checkpoint.json");
      await writeFile(path, JSON.stringify(zoneless));
      const file = await runOnce(fileCheckpoint(path));
      expect(file.error).toBeInstanceOf(MedRecordsError);
      expect(file.error?.message).toContain(path);
      expect(file.requests).toBe(0);
    } finally {
      await dir.remove();
    }
  });
});

it("a user's store holding no checkpoint at all fails with a MedRecordsError before any request", async () => {
  const { error, requests } = await runOnce(userStore("yesterday"));
  expect(error).toBeInstanceOf(MedRecordsError);
  expect(error?.message).toContain("is not a checkpoint");
  expect(requests).toBe(0);
});
