/** The lease contract on the in-process stores: memoryCheckpoint and fileCheckpoint. */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileCheckpoint, memoryCheckpoint, StoreUnavailableError } from "../../src/index.js";
import { checkpointLeaseContract } from "../stores/checkpoint-lease-contract.js";
import { tempDir } from "./helpers.js";

describe("memoryCheckpoint leases", () => {
  checkpointLeaseContract(() => {
    let clock = Date.parse("2026-03-01T10:00:00Z");
    let shared: ReturnType<typeof memoryCheckpoint> | undefined;
    return {
      marginMs: 1,
      // One store in one process: every "instance" is handed the same one.
      async stores(count, leaseSeconds) {
        shared = memoryCheckpoint(null, { leaseSeconds, now: () => clock });
        return Array.from({ length: count }, () => shared!);
      },
      async elapse(ms) {
        clock += ms;
      },
    };
  });
});

describe("fileCheckpoint leases", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let n = 0;
  beforeAll(async () => {
    dir = await tempDir();
  });
  afterAll(() => dir?.remove());

  checkpointLeaseContract(() => {
    let clock = Date.parse("2026-03-01T10:00:00Z");
    const path = join(dir.path, `contract-${++n}`, "checkpoint.json");
    return {
      marginMs: 1,
      // A store per "process", all on one file and one clock.
      async stores(count, leaseSeconds) {
        return Array.from({ length: count }, () =>
          fileCheckpoint(path, { leaseSeconds, now: () => clock }),
        );
      },
      async elapse(ms) {
        clock += ms;
      },
    };
  });

  it("of many stores taking over one expired lease at once, exactly one gets it", async () => {
    let clock = 0;
    const path = join(dir.path, "race", "checkpoint.json");
    const old = fileCheckpoint(path, { now: () => clock });
    await old.acquire("owner-old");
    clock += 30_000;
    for (let round = 0; round < 5; round++) {
      const stores = Array.from({ length: 8 }, () => fileCheckpoint(path, { now: () => clock }));
      const fences = await Promise.all(
        stores.map((store, i) => store.acquire(`owner-${round}-${i}`)),
      );
      const winners = fences.filter((fence) => fence !== null);
      expect(winners).toHaveLength(1);
      expect(winners[0]).toBe(round + 2);
      clock += 30_000;
    }
    // Old versions are removed as new ones are made.
    const versions = (await readdir(join(dir.path, "race"))).filter((f) => f.includes(".lease-"));
    expect(versions.length).toBeLessThanOrEqual(2);
  });

  it("a file system failure is a StoreUnavailableError naming the file", async () => {
    // A directory where the checkpoint file should be.
    const path = dir.path;
    const error = await fileCheckpoint(path)
      .load()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as StoreUnavailableError).store).toBe(`fileCheckpoint (${JSON.stringify(path)})`);
  });
});
