/**
 * The factories that became classes with #private fields still return objects
 * a user can compose as they could the object literals they replaced: spread
 * into a wrapper, delegated to with Object.create, or a method passed alone.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  fileCheckpoint,
  fileCustodyLog,
  postgresCheckpointStore,
  postgresCustodyLog,
} from "../../src/index.js";
import { withOwnMethods } from "../../src/internal/own-methods.js";
import { createMockClock } from "../../src/mock/runtime/clock.js";
import { postgresDedupeStore } from "../../src/webhooks/index.js";

const dir = mkdtempSync(join(tmpdir(), "own-methods-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A pool that answers every statement with no rows: enough to reach the class's private state. */
const pool = {
  query: async () => ({ rowCount: 0, rows: [] }),
  connect: async () => ({ query: pool.query, release: () => {} }),
};

/** Calls `method` of `target` three ways a user composes a store; none may hit a private-field TypeError. */
async function composes(target: object, method: string, ...args: unknown[]): Promise<void> {
  const spread = { ...target } as Record<string, (...a: unknown[]) => unknown>;
  const delegate = Object.create(target) as Record<string, (...a: unknown[]) => unknown>;
  const alone = (target as Record<string, (...a: unknown[]) => unknown>)[method];
  for (const call of [
    () => spread[method]!(...args),
    () => delegate[method]!(...args),
    () => alone!(...args),
  ]) {
    const outcome = await Promise.resolve()
      .then(call)
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    if (outcome instanceof TypeError) expect(outcome.message).not.toMatch(/Receiver|private/i);
  }
}

describe("withOwnMethods", () => {
  class Counter {
    #count = 0;
    add(by: number): number {
      this.#count += by;
      return this.#count;
    }
    get count(): number {
      return this.#count;
    }
  }

  it("makes a class's methods and getters work spread, delegated and detached", () => {
    const counter = withOwnMethods(new Counter());
    const { add } = counter;
    expect(add(1)).toBe(1);
    expect(({ ...counter } as Counter).add(2)).toBe(3);
    const delegate = Object.create(counter) as Counter;
    expect(delegate.add(3)).toBe(6);
    expect(delegate.count).toBe(6);
  });

  it("is what makes them work: a bare instance refuses a delegated call", () => {
    const delegate = Object.create(new Counter()) as Counter;
    expect(() => delegate.add(1)).toThrow(TypeError);
  });
});

describe("the factories written as classes compose as object literals did", () => {
  it("fileCheckpoint", async () => {
    await composes(fileCheckpoint(join(dir, "checkpoint.json")), "load");
  });

  it("postgresCheckpointStore and postgresDedupeStore", async () => {
    await composes(postgresCheckpointStore({ pool }), "load");
    await composes(postgresDedupeStore({ pool }), "claim", "evt_1", 30);
  });

  it("fileCustodyLog and postgresCustodyLog", async () => {
    const drain = async (log: { entries(): AsyncIterable<unknown> }) => {
      for await (const _ of log.entries()) break;
    };
    for (const log of [fileCustodyLog(join(dir, "custody.jsonl")), postgresCustodyLog({ pool })]) {
      await drain({ ...log });
      await drain(Object.create(log));
    }
    await composes(fileCustodyLog(join(dir, "custody.jsonl")), "entries");
  });

  it("the mock's clock: const { advance, now } = mock.clock", async () => {
    const clock = createMockClock("2026-01-01T00:00:00Z");
    const { advance, now } = clock;
    await advance("1h");
    expect(now().toISOString()).toBe("2026-01-01T01:00:00.000Z");
    expect(Object.create(clock).now().toISOString()).toBe("2026-01-01T01:00:00.000Z");
  });
});
