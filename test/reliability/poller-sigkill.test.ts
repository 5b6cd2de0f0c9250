/**
 * The catch-up poller in a child process (poller-worker.ts, bundled with
 * tsup), against the reference server over real HTTP under `mock.faults`
 * (5xx at a rate of 0.3, a 429 burst at each start, 15 % dropped
 * connections), SIGKILLed twenty times at seeded points and started again on
 * the same `fileCheckpoint`, over a log of 2 000 events; the run after the
 * twentieth kill must catch up.
 *
 * A kill lands at one of these points, drawn from the seed:
 * - `timed`: some milliseconds after the start, wherever the child is then
 *   (loading, reading the checkpoint, walking to the oldest page, processing);
 * - `progress`: as soon as the parent has seen the child's n-th effect
 *   (the child runs on meanwhile: into the next effects, a checkpoint save, a
 *   page fetch);
 * - `pinned`: the child blocks at its n-th effect and is killed there, either
 *   right after the effect's write (in Postgres: before COMMIT) or once the
 *   effect is durable (after COMMIT), before the checkpoint moves past the
 *   event. These make the outcome exact whatever the timing.
 * A `timed` or `progress` round also pins a backstop, so that a child faster
 * than its kill blocks before it could finish: every round is a kill.
 *
 * Without a dedupe store, every event is processed at least once, and every
 * kill of a blocked child costs at least one event processed twice. With
 * `postgresDedupeStore().withClaim`, which commits the claim and the effect
 * together, every event is processed exactly once.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomInt, seededRandom } from "../../src/internal/seeded-random.js";
import { type MockServer, startMockServer } from "../../src/mock/index.js";
import { bundledScript } from "../helpers/bundle.js";
import { statusChanged } from "../helpers/events.js";
import { eventLogForTesting } from "../helpers/mock-internals.js";
import { describeWithServers, postgresPool, uniqueName } from "../stores/servers.js";
import type { WorkerConfig } from "./poller-worker.js";

const EVENTS = 2_000;
/** Events sharing one `created_at`, so that instants straddle page boundaries. */
const PER_INSTANT = 3;
const ROUNDS = 20;
const PAGE = 50;
const SEED = 7_341;
/** The faults of every round; errorTiming alternates, seed is SEED + round. */
const FAULTS = { errorRate: 0.3, rateLimitBurst: 3, retryAfterSeconds: 0, dropRate: 0.15 };
/** The most effects a round is let do before its kill: 20 rounds leave a backlog for the last run. */
const MAX_EFFECTS_PER_ROUND = 90;
/** Startup and the walk to the oldest page take some 300 ms (more on a busy machine); then processing. */
const MAX_KILL_DELAY_MS = 800;
/**
 * Twenty-one rounds on a busy 2-core machine take some 30 to 40 s, each round
 * also waiting for its SIGKILLed predecessor's checkpoint lease to lapse.
 */
const TEST_TIMEOUT_MS = 120_000;
/** A round that neither ends nor reaches its kill by then is a hang. */
const ROUND_TIMEOUT_MS = 20_000;

type PinnedAt = "in-effect" | "after-effect";
type Kill =
  | { kind: "timed"; ms: number }
  | { kind: "progress"; effects: number }
  | { kind: "pinned"; effect: number; where: PinnedAt };
/** Where the child blocks: the pinned point, or a backstop at the most effects a round may do. */
type PauseAt = NonNullable<WorkerConfig["pauseAt"]>;

interface Round {
  kill: Kill | undefined;
  pid: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Ids the child reported durable effects for (`e` lines), in order. */
  effects: string[];
  /** Ids the dedupe store had already claimed (`d` lines). */
  skipped: string[];
  pauseAt: PauseAt | undefined;
  /** The event the child blocked at (its pinned point or backstop), when it got there. */
  pausedAt: string | undefined;
  done: { processed: number; effects: number } | undefined;
  /** Failed runs the child retried at once (`error` lines). */
  errors: string[];
  stderr: string;
}

let server: MockServer;
let apiKey: string;
let worker: string;
/** Every event id of the log. */
let allIds: string[];

beforeAll(async () => {
  [server, worker] = await Promise.all([
    startMockServer(),
    bundledScript("test/reliability/poller-worker.ts", ["ky", "zod", "pg"]),
  ]);
  apiKey = server.apiKeys.create();
  for (let i = 0; i < EVENTS; i++) {
    statusChanged(server, `rr_${i}`);
    if ((i + 1) % PER_INSTANT === 0) server.clock.advance(1);
  }
  allIds = eventLogForTesting(server).map((e) => e.id);
  expect(new Set(allIds).size).toBe(EVENTS);
});
afterAll(() => server?.close());

const KINDS: readonly Kill["kind"][] = ["timed", "progress", "pinned"];

function drawKill(random: () => number, remaining: number): { kill: Kill; pauseAt: PauseAt } {
  // Every remaining event costs an effect: a child blocked at `most` has not finished.
  const most = Math.max(1, Math.min(MAX_EFFECTS_PER_ROUND, remaining - 2 * PAGE));
  const backstop: PauseAt = { effect: most, where: "after-effect" };
  const kind = KINDS[randomInt(random, 0, KINDS.length - 1)]!;
  if (kind === "timed") {
    return { kill: { kind, ms: randomInt(random, 0, MAX_KILL_DELAY_MS) }, pauseAt: backstop };
  }
  if (kind === "progress") {
    return { kill: { kind, effects: randomInt(random, 1, most) }, pauseAt: backstop };
  }
  const where: PinnedAt = random() < 0.5 ? "in-effect" : "after-effect";
  const effect = randomInt(random, 1, most);
  return { kill: { kind, effect, where }, pauseAt: { effect, where } };
}

function runRound(config: WorkerConfig, kill: Kill | undefined): Promise<Round> {
  const child: ChildProcess = spawn(process.execPath, [worker, JSON.stringify(config)], {
    env: { ...process.env, MEDRECORDS_API_KEY: apiKey },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const round: Round = {
    kill,
    pauseAt: config.pauseAt,
    pid: child.pid ?? -1,
    code: null,
    signal: null,
    effects: [],
    skipped: [],
    pausedAt: undefined,
    done: undefined,
    errors: [],
    stderr: "",
  };
  const killNow = () => void child.kill("SIGKILL");
  const timers = [
    setTimeout(() => {
      round.errors.push(`hung: no end and no kill within ${ROUND_TIMEOUT_MS} ms`);
      killNow();
    }, ROUND_TIMEOUT_MS),
  ];
  if (kill?.kind === "timed") timers.push(setTimeout(killNow, kill.ms));

  let pending = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    pending += chunk;
    let end = pending.indexOf("\n");
    while (end !== -1) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      end = pending.indexOf("\n");
      const space = line.indexOf(" ");
      const [tag, rest] = space === -1 ? [line, ""] : [line.slice(0, space), line.slice(space + 1)];
      if (tag === "e") {
        round.effects.push(rest);
        if (kill?.kind === "progress" && round.effects.length === kill.effects) killNow();
      } else if (tag === "d") {
        round.skipped.push(rest);
      } else if (tag === "paused") {
        round.pausedAt = rest;
        killNow();
      } else if (tag === "done") {
        round.done = JSON.parse(rest);
      } else {
        round.errors.push(line);
      }
    }
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    round.stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => {
      for (const timer of timers) clearTimeout(timer);
      Object.assign(round, { code, signal });
      resolve(round);
    });
  });
}

/**
 * Twenty rounds, each killed at a seeded point, then one left to finish, all
 * on the same checkpoint file. Returns every round.
 */
async function catchUpUnderKills(mode: WorkerConfig["mode"], dir: string): Promise<Round[]> {
  const random = seededRandom(SEED);
  const config: WorkerConfig = {
    baseUrl: server.url,
    checkpointFile: join(dir, "state", "checkpoint.json"),
    pageSize: PAGE,
    mode,
  };
  const processed = new Set<string>();
  const rounds: Round[] = [];
  for (let i = 0; i <= ROUNDS; i++) {
    server.faults.set({ ...FAULTS, errorTiming: i % 2 === 0 ? "before" : "after", seed: SEED + i });
    const drawn = i < ROUNDS ? drawKill(random, EVENTS - processed.size) : undefined;
    const kill = drawn?.kill;
    const round = await runRound({ ...config, ...(drawn && { pauseAt: drawn.pauseAt }) }, kill);
    rounds.push(round);
    for (const id of round.effects) processed.add(id);
    const what = `round ${i} (${JSON.stringify(kill)}): ${round.errors.join(" | ")} ${round.stderr}`;
    if (kill !== undefined) {
      expect(round.signal, what).toBe("SIGKILL");
      expect(round.done, what).toBeUndefined();
      if (kill.kind === "pinned") expect(round.pausedAt, what).toBeDefined();
    } else {
      expect(round.code, what).toBe(0);
      expect(round.done, what).toBeDefined();
    }
    expect(
      round.errors.filter((e) => !e.startsWith("error ")),
      what,
    ).toEqual([]);
  }
  server.faults.clear();
  return rounds;
}

/** The checkpoint after the last run: at the newest event's instant, holding the newest ids. */
async function expectCheckpointAtTheEnd(dir: string): Promise<void> {
  const log = eventLogForTesting(server);
  const newest = log.at(-1)!;
  const saved = JSON.parse(await readFile(join(dir, "state", "checkpoint.json"), "utf8"));
  expect(saved.created_at).toBe(newest.created_at);
  expect(new Set(saved.ids_at_created_at)).toEqual(
    new Set(log.filter((e) => e.created_at === newest.created_at).map((e) => e.id)),
  );
}

/** The rounds whose child blocked at `where` (pinned, or a backstop reached) and was killed there. */
const pausedAt = (rounds: readonly Round[], where: PinnedAt) =>
  rounds.filter((r) => r.pausedAt !== undefined && r.pauseAt?.where === where);

describe("the catch-up poller SIGKILLed 20 times over 2 000 events, under faults", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "medrecords-sigkill-"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("without a dedupe store: every event processed at least once, and pinned kills cost duplicates", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const effectsFile = join(dir, "effects.log");
    const rounds = await catchUpUnderKills({ kind: "file", effectsFile }, dir);

    const lines = (await readFile(effectsFile, "utf8")).split("\n").filter((l) => l !== "");
    const counts = new Map<string, number>();
    for (const id of lines) counts.set(id, (counts.get(id) ?? 0) + 1);
    // None lost, nothing else.
    expect(new Set(counts.keys())).toEqual(new Set(allIds));
    // An event killed right after its effect, before the checkpoint passed it, came again.
    const stopped = [...pausedAt(rounds, "in-effect"), ...pausedAt(rounds, "after-effect")];
    expect(stopped.length).toBeGreaterThan(0);
    for (const round of stopped) expect(counts.get(round.pausedAt!)).toBeGreaterThanOrEqual(2);
    // Each such kill leaves one effect that is not its event's last: at least that many repeats.
    const repeats = lines.length - EVENTS;
    expect(repeats).toBeGreaterThanOrEqual(stopped.length);
    // A kill wastes at most the effects since the last checkpoint save: one page.
    expect(repeats).toBeLessThanOrEqual(ROUNDS * PAGE);
    await expectCheckpointAtTheEnd(dir);
  });
});

describeWithServers(
  ["postgres"],
  "the catch-up poller SIGKILLed 20 times over 2 000 events, under faults, with postgresDedupeStore",
  (urls) => {
    let dir: string;
    let pool: ReturnType<typeof postgresPool>;
    const claimsTable = uniqueName("reliability_claims");
    const effectsTable = uniqueName("reliability_effects");
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "medrecords-sigkill-pg-"));
      pool = postgresPool(urls.postgres, 2);
      // No unique constraint: a second effect for an event would show as a second row.
      await pool.query(
        `CREATE TABLE ${effectsTable} (event_id text NOT NULL, pid integer NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())`,
      );
    });
    afterAll(async () => {
      await pool?.query(`DROP TABLE IF EXISTS ${effectsTable}, ${claimsTable}`);
      await pool?.end();
      await rm(dir, { recursive: true, force: true });
    });

    it("claim and effect commit together: every event processed exactly once", {
      timeout: TEST_TIMEOUT_MS,
    }, async () => {
      const rounds = await catchUpUnderKills({ kind: "postgres", claimsTable, effectsTable }, dir);

      const { rows } = await pool.query<{ event_id: string; pid: number }>(
        `SELECT event_id, pid FROM ${effectsTable}`,
      );
      const rowsOf = new Map<string, { pid: number }[]>();
      for (const { event_id, pid } of rows)
        rowsOf.set(event_id, [...(rowsOf.get(event_id) ?? []), { pid }]);
      // Every event once, none lost, none twice.
      expect(rows.length).toBe(EVENTS);
      expect(new Set(rowsOf.keys())).toEqual(new Set(allIds));
      const claims = await pool.query(`SELECT count(*)::int AS n FROM ${claimsTable}`);
      expect(claims.rows[0].n).toBe(EVENTS);

      // Killed before COMMIT: that process's row rolled back with its claim; a later one did it.
      const beforeCommit = pausedAt(rounds, "in-effect");
      // Killed after COMMIT, before the checkpoint passed the event: the row is the killed
      // process's, and the replay found the claim and skipped the event.
      const afterCommit = pausedAt(rounds, "after-effect");
      expect(beforeCommit.length).toBeGreaterThan(0);
      expect(afterCommit.length).toBeGreaterThan(0);
      for (const round of beforeCommit) {
        expect(rowsOf.get(round.pausedAt!)).toHaveLength(1);
        expect(rowsOf.get(round.pausedAt!)![0]!.pid).not.toBe(round.pid);
      }
      const skipped = new Set(rounds.flatMap((r) => r.skipped));
      for (const round of afterCommit) {
        expect(rowsOf.get(round.pausedAt!)).toEqual([{ pid: round.pid }]);
        expect(skipped.has(round.pausedAt!)).toBe(true);
      }
      // The dedupe store was not idle: replays did reach it.
      expect(rounds.flatMap((r) => r.skipped).length).toBeGreaterThanOrEqual(afterCommit.length);
      await expectCheckpointAtTheEnd(dir);
    });
  },
);
