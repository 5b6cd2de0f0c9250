/** The checkpoint stores and the instant comparison behind equal timestamps. */

import { readFileSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type Checkpoint,
  fileCheckpoint,
  MedRecordsError,
  memoryCheckpoint,
} from "../../src/index.js";
import { CheckpointCursor } from "../../src/poller/checkpoint.js";
import { compareInstants } from "../../src/shared/checkpoint-store.js";
import { tempDir, withoutLease } from "./helpers.js";

const CHECKPOINT: Checkpoint = {
  created_at: "2026-03-01T10:00:00.000Z",
  ids_at_created_at: ["rr-a", "rr-b"],
};

describe("memoryCheckpoint", () => {
  it("starts empty or at the given checkpoint and keeps copies", async () => {
    expect(await memoryCheckpoint().load()).toBeNull();
    const store = memoryCheckpoint(CHECKPOINT);
    const loaded = (await store.load()) as Checkpoint;
    expect(loaded).toEqual(CHECKPOINT);
    loaded.ids_at_created_at.push("rr-mutated");
    expect(await store.load()).toEqual(CHECKPOINT);
    const next = { created_at: "2026-03-02T00:00:00Z", ids_at_created_at: ["rr-c"] };
    await store.save(next);
    next.ids_at_created_at.push("rr-mutated");
    expect(await store.load()).toEqual({
      created_at: "2026-03-02T00:00:00Z",
      ids_at_created_at: ["rr-c"],
    });
  });

  it("refuses what is not a checkpoint", async () => {
    await expect(memoryCheckpoint().save({ created_at: "soon" } as never)).rejects.toBeInstanceOf(
      MedRecordsError,
    );
    expect(() => memoryCheckpoint({ created_at: 1 } as never)).toThrow(MedRecordsError);
  });
});

describe("fileCheckpoint", () => {
  let dir: { path: string; remove: () => Promise<void> };
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(() => dir.remove());

  it("loads null when the file does not exist, and creates its directory on save", async () => {
    const path = join(dir.path, "a", "b", "checkpoint.json");
    const store = fileCheckpoint(path);
    expect(await store.load()).toBeNull();
    await store.save(CHECKPOINT);
    expect(JSON.parse(await readFile(path, "utf8"))).toEqual(CHECKPOINT);
    expect(await fileCheckpoint(path).load()).toEqual(CHECKPOINT);
    await store.save({ created_at: "2026-03-02T00:00:00.000Z", ids_at_created_at: [] });
    expect(await store.load()).toEqual({
      created_at: "2026-03-02T00:00:00.000Z",
      ids_at_created_at: [],
    });
    expect(await readdir(dirname(path))).toEqual(["checkpoint.json"]);
    // A store used by a poller keeps its lease beside the checkpoint, and nothing else.
    await store.acquire("owner");
    await store.release("owner");
    expect(withoutLease(await readdir(dirname(path)))).toEqual(["checkpoint.json"]);
  });

  it("fails loudly on a corrupt file instead of starting over", async () => {
    const path = join(dir.path, "checkpoint.json");
    await writeFile(path, "{ not json");
    await expect(fileCheckpoint(path).load()).rejects.toThrow(/is not JSON/);
    await writeFile(path, JSON.stringify({ created_at: "2026-03-01T10:00:00Z" }));
    await expect(fileCheckpoint(path).load()).rejects.toThrow(/is not a checkpoint/);
  });

  it("writes atomically: readers racing many writes always see a whole checkpoint", async () => {
    const path = join(dir.path, "checkpoint.json");
    const store = fileCheckpoint(path);
    await store.save(CHECKPOINT);
    // Large enough that a write in place would be seen half done.
    const big = (n: number): Checkpoint => ({
      created_at: new Date(Date.UTC(2026, 2, 2) + n).toISOString(),
      ids_at_created_at: Array.from({ length: 5_000 }, (_, i) => `rr-${n}-${i}`),
    });
    let writing = true;
    const writes = (async () => {
      for (let n = 0; n < 30; n++) await store.save(big(n));
      writing = false;
    })();
    let reads = 0;
    while (writing) {
      const loaded = await store.load();
      expect(loaded?.ids_at_created_at.length).toBeOneOf([2, 5_000]);
      reads++;
    }
    await writes;
    expect(reads).toBeGreaterThan(0);
    expect((await store.load())?.created_at).toBe(big(29).created_at);
    expect(await readdir(dir.path)).toEqual(["checkpoint.json"]);
  });

  it("leaves no temporary file behind when the rename fails, and keeps the old content", async () => {
    const path = join(dir.path, "taken");
    await mkdir(path); // a directory where the file should be
    await expect(fileCheckpoint(path).save(CHECKPOINT)).rejects.toThrow();
    expect(await readdir(dir.path)).toEqual(["taken"]);
  });

  it("refuses an empty path", () => {
    expect(() => fileCheckpoint("")).toThrow(TypeError);
  });
});

describe("instants and the checkpoint cursor", () => {
  it("compares date-times by instant, across offsets and below the millisecond", () => {
    expect(compareInstants("2026-03-01T10:00:00Z", "2026-03-01T10:00:00.000Z")).toBe(0);
    expect(compareInstants("2026-03-01T12:00:00+02:00", "2026-03-01T10:00:00Z")).toBe(0);
    expect(compareInstants("2026-03-01T10:00:00.001Z", "2026-03-01T10:00:00Z")).toBe(1);
    expect(compareInstants("2026-03-01T10:00:00.0005Z", "2026-03-01T10:00:00.000Z")).toBe(1);
    expect(compareInstants("2026-03-01T10:00:00.00045Z", "2026-03-01T10:00:00.0005Z")).toBe(-1);
    expect(compareInstants("2026-03-01T10:00:00.000500Z", "2026-03-01T10:00:00.0005Z")).toBe(0);
  });

  it("covers events before the checkpoint and the processed ones at its instant", () => {
    const cursor = new CheckpointCursor(CHECKPOINT);
    const at = (id: string, created_at = CHECKPOINT.created_at) => ({ id, created_at });
    expect(cursor.covers(at("rr-a"))).toBe(true);
    expect(cursor.covers(at("rr-c"))).toBe(false);
    expect(cursor.covers(at("rr-z", "2026-03-01T09:59:59.999Z"))).toBe(true);
    expect(cursor.covers(at("rr-a", "2026-03-01T10:00:00.001Z"))).toBe(false);
    cursor.advance(at("rr-c"));
    expect(cursor.snapshot()).toEqual({
      ...CHECKPOINT,
      ids_at_created_at: ["rr-a", "rr-b", "rr-c"],
    });
    cursor.advance(at("rr-d", "2026-03-01T10:00:01Z"));
    expect(cursor.snapshot()).toEqual({
      created_at: "2026-03-01T10:00:01Z",
      ids_at_created_at: ["rr-d"],
    });
    expect(new CheckpointCursor(null).snapshot()).toBeNull();
  });

  it("keeps every id at an instant whether one, then several, then one again", () => {
    const cursor = new CheckpointCursor(null);
    const at = (id: string, created_at: string) => ({ id, created_at });
    cursor.advance(at("rr-1", "2026-03-01T10:00:00.001Z"));
    expect(cursor.covers(at("rr-1", "2026-03-01T10:00:00.001Z"))).toBe(true);
    expect(cursor.covers(at("rr-2", "2026-03-01T10:00:00.001Z"))).toBe(false);
    cursor.advance(at("rr-2", "2026-03-01T10:00:00.001Z"));
    // The same instant written another way is the same instant.
    cursor.advance(at("rr-3", "2026-03-01T10:00:00.0010Z"));
    expect(cursor.snapshot()).toEqual({
      created_at: "2026-03-01T10:00:00.001Z",
      ids_at_created_at: ["rr-1", "rr-2", "rr-3"],
    });
    expect(cursor.covers(at("rr-2", "2026-03-01T10:00:00.001Z"))).toBe(true);
    cursor.advance(at("rr-4", "2026-03-01T10:00:00.002Z"));
    expect(cursor.snapshot()).toEqual({
      created_at: "2026-03-01T10:00:00.002Z",
      ids_at_created_at: ["rr-4"],
    });
    expect(cursor.covers(at("rr-1", "2026-03-01T10:00:00.002Z"))).toBe(false);
    cursor.reset("2026-03-02T00:00:00.000Z");
    expect(cursor.snapshot()).toEqual({
      created_at: "2026-03-02T00:00:00.000Z",
      ids_at_created_at: [],
    });
    expect(cursor.covers(at("rr-4", "2026-03-02T00:00:00.000Z"))).toBe(false);
  });
});

describe("medrecords entry", () => {
  it("loads no node: module at import time (fileCheckpoint imports node:fs on use)", () => {
    const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
    const IMPORT = /^\s*(?:import|export)\s+(?!type\b)(?:[^"';]*?\s+from\s+)?["']([^"']+)["']/gm;
    const files = new Set<string>();
    const packages = new Set<string>();
    const visit = (file: string) => {
      if (files.has(file)) return;
      files.add(file);
      for (const [, specifier = ""] of readFileSync(file, "utf8").matchAll(IMPORT)) {
        if (specifier.startsWith(".")) {
          visit(resolve(dirname(file), specifier).replace(/\.js$/, ".ts"));
        } else packages.add(specifier);
      }
    };
    visit(resolve(root, "src/index.ts"));
    expect([...files].map((f) => f.slice(root.length + 1))).toContain(
      "src/poller/file-checkpoint.ts",
    );
    expect([...packages].filter((p) => p.startsWith("node:") || p === "msw")).toEqual([]);
  });
});
