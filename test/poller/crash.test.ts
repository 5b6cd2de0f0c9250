/**
 * At-least-once across failures: a run that dies at any point (onEvent
 * throwing, a request failing, a checkpoint write failing) is followed by a
 * fresh poller on the same checkpoint file, and together they lose nothing.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type CheckpointStore,
  ConnectionError,
  fileCheckpoint,
  memoryCheckpoint,
} from "../../src/index.js";
import { emitMany, idsOf, logOldestFirst, setup, tempDir, withoutLease } from "./helpers.js";

const COUNT = 25;
const PAGE = 10;

let dir: { path: string; remove: () => Promise<void> };
let file: string;
beforeEach(async () => {
  dir = await tempDir();
  file = join(dir.path, "state", "checkpoint.json");
});
afterEach(() => dir.remove());

function scenario() {
  const env = setup();
  emitMany(env.mock, COUNT, 4); // instants of 4 events straddle the page boundaries
  return { ...env, all: idsOf(logOldestFirst(env.mock)) };
}

/**
 * Where an undisturbed run saves: the number of events processed at each
 * save, in order (the page boundaries of its walk; the last is COUNT).
 */
async function saveBoundaries(): Promise<number[]> {
  const env = scenario();
  const inner = memoryCheckpoint();
  let processed = 0;
  const boundaries: number[] = [];
  const recording: CheckpointStore = {
    load: () => inner.load(),
    save: async (c) => {
      boundaries.push(processed);
      await inner.save(c);
    },
  };
  await env.mr.events
    .catchUp({ checkpoint: recording, pageSize: PAGE, onEvent: () => void processed++ })
    .runOnce();
  return boundaries;
}

// Pages are walked from the oldest, each saved: several boundaries inside the log.
const BOUNDARIES = (await saveBoundaries()).slice(0, -1);

async function resume(
  env: ReturnType<typeof setup>,
  checkpoint: CheckpointStore = fileCheckpoint(file),
) {
  const seen: string[] = [];
  const result = await env.mr.events
    .catchUp({ checkpoint, pageSize: PAGE, onEvent: (e) => void seen.push(e.id) })
    .runOnce();
  return { seen, result };
}

describe("onEvent throwing at event k, then a fresh poller on the same file", () => {
  for (const k of [0, 1, ...BOUNDARIES, ...BOUNDARIES.map((b) => b - 1), COUNT - 1]) {
    it(`k = ${k}: loses nothing and repeats nothing`, async () => {
      const env = scenario();
      const first: string[] = [];
      let index = 0;
      const failing = env.mr.events.catchUp({
        checkpoint: fileCheckpoint(file),
        pageSize: PAGE,
        onEvent: (event) => {
          if (index++ === k) throw new Error(`processing failed at ${k}`);
          first.push(event.id);
        },
      });
      await expect(failing.runOnce()).rejects.toThrow(`processing failed at ${k}`);
      expect(first).toEqual(env.all.slice(0, k));

      const { seen, result } = await resume(env);
      expect([...first, ...seen]).toEqual(env.all);
      expect(result.processed).toBe(COUNT - k);
      // Only the checkpoint (and its lease, beside it) is left: temporary files were renamed.
      expect(withoutLease(await readdir(join(dir.path, "state")))).toEqual(["checkpoint.json"]);
    });
  }
});

describe("a request failing mid-run", () => {
  it("at every request: the next run picks up exactly where the saved checkpoint stands", async () => {
    // Every request of an undisturbed run, each made to fail once.
    const clean = scenario();
    await resume(clean, memoryCheckpoint());
    const total = clean.requests();
    expect(total).toBeGreaterThanOrEqual(3);
    for (let n = 1; n <= total; n++) {
      await dir.remove();
      dir = await tempDir();
      file = join(dir.path, "checkpoint.json");
      const env = scenario();
      const first: string[] = [];
      env.failRequest(n);
      const failing = env.mr.events.catchUp({
        checkpoint: fileCheckpoint(file),
        pageSize: PAGE,
        onEvent: (e) => void first.push(e.id),
      });
      await expect(failing.runOnce()).rejects.toBeInstanceOf(ConnectionError);
      const { seen } = await resume(env);
      expect([...first, ...seen], `request ${n} failed`).toEqual(env.all);
    }
  });
});

describe("a checkpoint write failing (the process dying before it is durable)", () => {
  it("at every save: events of the unsaved page come again, none is lost", async () => {
    expect(BOUNDARIES.length).toBeGreaterThanOrEqual(2);
    for (let failAt = 1; failAt <= BOUNDARIES.length + 1; failAt++) {
      await dir.remove();
      dir = await tempDir();
      file = join(dir.path, "checkpoint.json");
      const env = scenario();
      const real = fileCheckpoint(file);
      let saves = 0;
      const dying: CheckpointStore = {
        load: () => real.load(),
        save: async (c) => {
          if (++saves >= failAt) throw new Error("killed");
          await real.save(c);
        },
      };
      const first: string[] = [];
      const failing = env.mr.events.catchUp({
        checkpoint: dying,
        pageSize: PAGE,
        onEvent: (e) => void first.push(e.id),
      });
      await expect(failing.runOnce()).rejects.toThrow("killed");
      const { seen } = await resume(env);
      // Everything at least once; the replay is exactly the page whose save failed.
      expect(new Set([...first, ...seen])).toEqual(new Set(env.all));
      expect(seen).toEqual(env.all.slice(env.all.length - seen.length));
      const savedPages = [0, ...BOUNDARIES, COUNT].slice(0, failAt);
      expect(seen).toEqual(env.all.slice(savedPages.at(-1)));
      const saved = JSON.parse(await readFile(file, "utf8").catch(() => "null"));
      expect(saved?.created_at).toBe(logOldestFirst(env.mock).at(-1)?.created_at);
    }
  });
});
