/**
 * Three catch-up pollers in three child processes (lease-worker.ts, bundled
 * with tsup) calling `start()` on one shared checkpoint, with no dedupe
 * store, against the reference server over real HTTP: a file, a PostgreSQL
 * row, a Redis hash. One holds the lease and polls; every event is processed
 * exactly once. Then the leader is SIGKILLed between runs: another process
 * takes over once the lease lapsed and processes the new events, again once.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type MockServer, startMockServer } from "../../src/mock/index.js";
import { bundledScript } from "../helpers/bundle.js";
import { statusChanged } from "../helpers/events.js";
import { eventLogForTesting } from "../helpers/mock-internals.js";
import { connectRedis, describeWithServers, postgresPool, uniqueName } from "../stores/servers.js";
import type { LeaseWorkerConfig } from "./lease-worker.js";

const INSTANCES = 3;
const FIRST_BATCH = 600;
const SECOND_BATCH = 150;
const PAGE = 50;
const LEASE_SECONDS = 2;
const INTERVAL_MS = 100;
/** A takeover is due when the lease lapsed and a sibling's next run started; this much more is the machine being slow. */
const SLACK_MS = 4_000;

interface Instance {
  child: ChildProcess;
  pid: number;
  /** Processed event ids with when the parent saw them. */
  effects: { id: string; at: number }[];
  errors: string[];
  stderr: string;
}

let server: MockServer;
let apiKey: string;
let worker: string;
let dir: string;
const running: Instance[] = [];

beforeAll(async () => {
  [server, worker] = await Promise.all([
    startMockServer(),
    bundledScript("test/reliability/lease-worker.ts", ["ky", "zod", "pg", "redis"]),
  ]);
  apiKey = server.apiKeys.create();
  dir = await mkdtemp(join(tmpdir(), "medrecords-shared-checkpoint-"));
});
afterEach(() => {
  for (const instance of running.splice(0)) instance.child.kill("SIGKILL");
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

function emit(count: number): string[] {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    ids.push(statusChanged(server, `rr_${ids.length}_${Math.random()}`).id);
    // Runs of equal created_at, straddling pages.
    if (i % 3 === 2) server.clock.advance(1);
  }
  return ids;
}

function startInstance(config: LeaseWorkerConfig): Instance {
  const child = spawn(process.execPath, [worker, JSON.stringify(config)], {
    env: { ...process.env, MEDRECORDS_API_KEY: apiKey },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const instance: Instance = { child, pid: child.pid ?? -1, effects: [], errors: [], stderr: "" };
  let pending = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    pending += chunk;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      if (line.startsWith("e ")) instance.effects.push({ id: line.slice(2), at: Date.now() });
      else instance.errors.push(line);
    }
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    instance.stderr += chunk;
  });
  running.push(instance);
  return instance;
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });

async function sharedCheckpoint(store: LeaseWorkerConfig["store"]): Promise<void> {
  const config: LeaseWorkerConfig = {
    baseUrl: server.url,
    store,
    leaseSeconds: LEASE_SECONDS,
    intervalMs: INTERVAL_MS,
    pageSize: PAGE,
  };
  const before = new Set(eventLogForTesting(server).map((e) => e.id));
  const first = emit(FIRST_BATCH);
  const instances = Array.from({ length: INSTANCES }, () => startInstance(config));
  const all = () =>
    instances.flatMap((i) => i.effects.map((e) => e.id)).filter((id) => !before.has(id));
  const report = () =>
    instances
      .map((i) => `${i.pid}: ${i.effects.length} ${i.errors.join(" | ")} ${i.stderr}`)
      .join("\n");

  await vi.waitFor(() => expect(all().length, report()).toBeGreaterThanOrEqual(FIRST_BATCH), {
    timeout: 30_000,
    interval: 50,
  });
  // A few more intervals, in which a second processing of anything would show.
  await new Promise((resolve) => setTimeout(resolve, 10 * INTERVAL_MS));
  expect(all().sort(), report()).toEqual([...first].sort());
  const leaders = instances.filter((i) => i.effects.length > 0);
  expect(leaders, report()).toHaveLength(1);
  const leader = leaders[0]!;

  // SIGKILL the leader between runs (everything processed and saved): the lease lapses unreleased.
  leader.child.kill("SIGKILL");
  await exited(leader.child);
  const killedAt = Date.now();
  const second = emit(SECOND_BATCH);
  const survivors = instances.filter((i) => i !== leader);
  await vi.waitFor(
    () => expect(all().length, report()).toBeGreaterThanOrEqual(FIRST_BATCH + SECOND_BATCH),
    { timeout: 30_000, interval: 50 },
  );
  await new Promise((resolve) => setTimeout(resolve, 10 * INTERVAL_MS));
  // Every event exactly once, across the kill.
  expect(all().sort(), report()).toEqual([...first, ...second].sort());
  const successors = survivors.filter((i) => i.effects.length > 0);
  expect(successors, report()).toHaveLength(1);
  const takeoverMs = successors[0]!.effects[0]!.at - killedAt;
  expect(takeoverMs, report()).toBeLessThan(LEASE_SECONDS * 1000 + INTERVAL_MS + SLACK_MS);
  // No failed run anywhere: a run that found the lease held resolved, it did not fail.
  for (const instance of instances) expect(instance.errors, report()).toEqual([]);
}

const TITLE =
  "three pollers in three processes calling start() on one shared checkpoint, no dedupe store";
const BEHAVIOUR =
  "each event processed once; the leader SIGKILLed, another takes over within the lease";

describe(TITLE, () => {
  it(`fileCheckpoint: ${BEHAVIOUR}`, async () => {
    await sharedCheckpoint({ kind: "file", path: join(dir, "state", "checkpoint.json") });
  });
});

describeWithServers(["postgres"], `${TITLE}, on PostgreSQL`, ({ postgres }) => {
  it(`postgresCheckpointStore: ${BEHAVIOUR}`, async () => {
    const table = uniqueName("shared_checkpoint");
    const pool = postgresPool(postgres, 1);
    try {
      await sharedCheckpoint({ kind: "postgres", table });
    } finally {
      await pool.query(`DROP TABLE IF EXISTS "${table}"`);
      await pool.end();
    }
  });
});

describeWithServers(["redis"], `${TITLE}, on Redis`, ({ redis }) => {
  it(`redisCheckpointStore: ${BEHAVIOUR}`, async () => {
    const prefix = `${uniqueName("medrecords-test:shared-checkpoint")}:`;
    const client = await connectRedis(redis);
    try {
      await sharedCheckpoint({ kind: "redis", prefix });
    } finally {
      await client.del(`${prefix}default`);
      await client.quit();
    }
  });
});
