/**
 * Chaos (issue 15): three webhook receivers and three catch-up pollers, each
 * a child process (chaos-worker.ts), sharing one Redis and one PostgreSQL;
 * the reference server over HTTP emitting 2 000 events in 20 rounds and
 * delivering them, through a load balancer (its `fetch`) that picks one of
 * the three receivers at random, with duplicated and reordered deliveries;
 * the receivers fail 30 % of what they get. In every round one or two
 * processes are SIGKILLed at a random moment and started again at once (a
 * poller kill is aimed at the lease holder half the time).
 *
 * Every process handles an event the same way (see chaos-worker.ts) under
 * the shared two-phase Redis dedupe store: a Redis counter (at least once)
 * and a row written inside `postgresDedupeStore().withClaim` (exactly once).
 * The pollers share one leased `postgresCheckpointStore` (or
 * `redisCheckpointStore`, see CHECKPOINT_STORE).
 *
 * Checked: every event's effect is present, no row twice; the checkpoint,
 * sampled every few ms, never moves backwards and ends at the newest event;
 * no two pollers are ever in `onEvent` at the same moment. Printed: events,
 * kills, takeovers, duplicates suppressed, the longest takeover, and more.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Checkpoint, postgresCheckpointStore, redisCheckpointStore } from "../../src/index.js";
import { randomInt, seededRandom } from "../../src/internal/seeded-random.js";
import { type MockServer, type MockService, startMockServer } from "../../src/mock/index.js";
import { bundledScript } from "../helpers/bundle.js";
import { STATUS_CHANGED } from "../helpers/events.js";
import { eventLogForTesting } from "../helpers/mock-internals.js";
import { createApi } from "../mock/helpers.js";
import { createRetrieval } from "../mock/retrieval-helpers.js";
import {
  connectRedis,
  describeWithServers,
  postgresPool,
  type RedisClient,
  uniqueName,
} from "../stores/servers.js";
import { type ChaosWorkerConfig, checkpointPrefix, countsKey } from "./chaos-config.js";
import { ChaosFleet, type Role, type Worker, wallClock } from "./chaos-fleet.js";
import { movesBackwards, overlapsAcrossProcesses } from "./chaos-invariants.js";

const EVENTS = 2_000;
const ROUNDS = 20;
/** Events sharing one `created_at`, so that instants straddle page boundaries. */
const PER_INSTANT = 3;
/** Retrieval requests the status changes are spread over. */
const REQUESTS = 20;
/** Stages of a request in progress, drawn for each change. */
const STAGES = ["request_sent", "provider_processing", "records_received"] as const;
const RECEIVERS = 3;
const POLLERS = 3;
const PAGE = 50;
const SEED = 15_015;
/** Short leases, so that a kill costs seconds, not minutes. */
const DEDUPE_LEASE_SECONDS = 3;
const CHECKPOINT_LEASE_SECONDS = 3;
const POLL_INTERVAL_MS = 100;
const FAILURE_RATE = 0.3;
const DELIVERY_FAULTS = { duplicateRate: 0.2, reorder: { window: 8, maxHoldMs: 50 } };
/** A round emits its events in this many bursts, `BURST_GAP_MS` apart; kills land between bursts. */
const BURSTS = 10;
const BURST_GAP_MS = 100;
/** Checkpoint samples, ms apart. */
const SAMPLE_MS = 15;
/**
 * The mock clock starts this far behind real time: the rounds move it a
 * second per `PER_INSTANT` events, and the last retries of a delivery come
 * 2 h 36 min after its first attempt; the drain then moves it up to real time,
 * so every retry falls due while no event is ever newer than the machine's
 * clock (the poller refuses a checkpoint from the future). It signs the
 * deliveries: the receivers accept a day of clock distance, signatures are
 * checked as ever.
 */
const MOCK_CLOCK_BEHIND_MS = 3 * 3_600_000;
const TOLERANCE_SECONDS = 86_400;
/**
 * The pollers' checkpoint: a PostgreSQL row by default (the dedupe store is
 * Redis's, so both servers carry a lease); MEDRECORDS_CHAOS_CHECKPOINT=redis
 * runs the same chaos on `redisCheckpointStore`.
 */
const CHECKPOINT_STORE = process.env.MEDRECORDS_CHAOS_CHECKPOINT === "redis" ? "redis" : "postgres";
/** After the last round, how long the fleet may take to finish: a hang, not a timing. */
const DRAIN_LIMIT_MS = 90_000;

describeWithServers(
  ["redis", "postgres"],
  "chaos: three receivers and three pollers on one Redis and one PostgreSQL, SIGKILLed at random",
  (urls) => {
    const redisPrefix = `${uniqueName("chaos")}:`;
    const claimsTable = uniqueName("chaos_claims");
    const effectsTable = uniqueName("chaos_effects");
    const checkpointTable = uniqueName("chaos_checkpoints");
    const checkpointName = "chaos";
    const balance = seededRandom(SEED + 1);
    let server: MockServer;
    let pool: ReturnType<typeof postgresPool>;
    let redis: RedisClient;
    let fleet: ChaosFleet | undefined;

    beforeAll(async () => {
      let script: string;
      [server, script] = await Promise.all([
        startMockServer({
          now: Date.now() - MOCK_CLOCK_BEHIND_MS,
          allowPrivateWebhookUrls: true,
          // The load balancer: each attempt to one of the receivers, at random, dead or alive.
          fetch: (input, init) => {
            const url = new URL(String(input));
            url.port = String(fleet?.receiverPort(randomInt(balance, 0, RECEIVERS - 1)));
            return fetch(url, init);
          },
        }),
        bundledScript("test/reliability/chaos-worker.ts", ["ky", "zod", "pg", "redis"]),
      ]);
      pool = postgresPool(urls.postgres, 3);
      redis = await connectRedis(urls.redis);
      // No unique constraint: a second effect for an event would show as a second row.
      await pool.query(
        `CREATE TABLE ${effectsTable} (event_id text NOT NULL, pid integer NOT NULL, role text NOT NULL)`,
      );

      // createApi and createRetrieval only use the service's fetch and baseUrl, which the server has.
      const mock = server as unknown as MockService;
      const api = createApi(mock, server.apiKeys.create());
      const requests: string[] = [];
      for (let i = 0; i < REQUESTS; i++) requests.push((await createRetrieval(mock, api)).id);
      const webhook = await api.post<{ secret: string }>("/v2/webhooks", {
        name: "chaos",
        // Any loopback address: the load balancer sends each attempt to a receiver's port.
        url: "http://127.0.0.1:9/webhooks",
        events: [STATUS_CHANGED],
      });
      expect(webhook.status).toBe(201);

      const env = {
        ...process.env,
        MEDRECORDS_API_KEY: server.apiKeys.create(),
        MEDRECORDS_WEBHOOK_SECRET: webhook.body.secret,
      };
      fleet = new ChaosFleet(
        script,
        env,
        (role, slot, start): ChaosWorkerConfig => ({
          role,
          slot,
          start,
          ...(role === "poller" && { baseUrl: server.url }),
          redisPrefix,
          claimsTable,
          effectsTable,
          checkpointStore: CHECKPOINT_STORE,
          checkpointTable,
          checkpointName,
          dedupeLeaseSeconds: DEDUPE_LEASE_SECONDS,
          checkpointLeaseSeconds: CHECKPOINT_LEASE_SECONDS,
          pageSize: PAGE,
          pollIntervalMs: POLL_INTERVAL_MS,
          toleranceSeconds: TOLERANCE_SECONDS,
          failureRate: FAILURE_RATE,
        }),
      );
      generator.requests = requests;
    });

    afterAll(async () => {
      await fleet?.stopAll();
      await server?.close();
      await pool?.query(`DROP TABLE IF EXISTS ${effectsTable}, ${claimsTable}, ${checkpointTable}`);
      await pool?.end();
      if (redis !== undefined) {
        for await (const keys of redis.scanIterator({ MATCH: `${redisPrefix}*`, COUNT: 1_000 })) {
          // node-redis 5 yields batches, 4 single keys.
          const batch = Array.isArray(keys) ? keys : [keys];
          if (batch.length > 0) await redis.del(batch);
        }
        await redis.quit();
      }
    });

    const generator = { requests: [] as string[], emitted: 0 };
    const draw = seededRandom(SEED);

    /** One burst of status changes, a second of mock time per `PER_INSTANT` of them. */
    function emit(count: number): void {
      for (let i = 0; i < count; i++) {
        const id = generator.requests[randomInt(draw, 0, REQUESTS - 1)]!;
        const stage = STAGES[randomInt(draw, 0, STAGES.length - 1)]!;
        server.retrievalRequests.setStatus(id, { status: "processing", stage });
        generator.emitted += 1;
        if (generator.emitted % PER_INSTANT === 0) server.clock.advance(1_000);
      }
    }

    /**
     * The process to kill: a receiver or a poller, half the poller kills aimed
     * at the lease holder; one that is up (a process still starting would be
     * killed before it did anything) unless none of its role is. Always the
     * same number of draws, so that the seed replays the same choices.
     */
    function victim(f: ChaosFleet): Worker | undefined {
      const role: Role = draw() < 0.5 ? "receiver" : "poller";
      const leader = f.leader();
      const aimed = draw() < 0.5;
      if (role === "poller" && aimed && leader?.isReady && leader.killedAt === undefined) {
        return leader;
      }
      // Not one being killed already (its slot is restarted once).
      const all = [...f.workers.values()].filter(
        (w) => w.role === role && w.killedAt === undefined,
      );
      const up = all.filter((w) => w.isReady);
      const among = up.length > 0 ? up : all;
      return among[randomInt(draw, 0, among.length - 1)];
    }

    it("processes each of 2 000 events once, keeps the checkpoint moving forward and one poller active", async () => {
      const f = fleet!;
      const began = wallClock();
      const workers = [
        ...Array.from({ length: RECEIVERS }, (_, slot) => f.spawn("receiver", slot)),
        ...Array.from({ length: POLLERS }, (_, slot) => f.spawn("poller", slot)),
      ];
      await Promise.all(workers.map((w) => w.ready));
      server.faults.set({ ...DELIVERY_FAULTS, seed: SEED });

      // The sampler: the checkpoint as any reader sees it, every few ms.
      const reader =
        CHECKPOINT_STORE === "redis"
          ? redisCheckpointStore({
              client: redis,
              name: checkpointName,
              prefix: checkpointPrefix(redisPrefix),
            })
          : postgresCheckpointStore({ pool, name: checkpointName, table: checkpointTable });
      const backwards: string[] = [];
      let samples = 0;
      let sampling = true;
      const sampler = (async () => {
        let previous: Checkpoint | null = null;
        while (sampling) {
          const current = await reader.load();
          samples += 1;
          if (previous !== null && (current === null || movesBackwards(previous, current))) {
            backwards.push(`${JSON.stringify(previous)} -> ${JSON.stringify(current)}`);
          }
          previous = current ?? previous;
          await sleep(SAMPLE_MS);
        }
      })();

      const restarts: Promise<unknown>[] = [];
      const perRound = EVENTS / ROUNDS;
      for (let round = 0; round < ROUNDS; round++) {
        const kills = new Set([randomInt(draw, 0, BURSTS - 1)]);
        if (draw() < 0.5) kills.add(randomInt(draw, 0, BURSTS - 1));
        for (let burst = 0; burst < BURSTS; burst++) {
          emit(perRound / BURSTS);
          const killed = kills.has(burst) ? victim(f) : undefined;
          if (killed !== undefined) restarts.push(f.killAndRestart(killed));
          await sleep(BURST_GAP_MS);
        }
      }
      await Promise.all(restarts);
      const roundsEnded = wallClock();

      // The rest: the retries still due (up to 2 h later), and the pollers' catch-up.
      const log = () => eventLogForTesting(server);
      const allIds = log().map((e) => e.id);
      const newest = log().at(-1)!;
      const effectRows = async () =>
        Number(
          (await pool.query(`SELECT count(DISTINCT event_id)::int AS n FROM ${effectsTable}`))
            .rows[0].n,
        );
      let drained = false;
      while (wallClock() - roundsEnded < DRAIN_LIMIT_MS) {
        server.clock.set(Math.max(server.clock.now().getTime(), Date.now()));
        const checkpoint = await reader.load();
        if (
          (await effectRows()) === allIds.length &&
          checkpoint?.created_at === newest.created_at &&
          checkpoint.ids_at_created_at.includes(newest.id)
        ) {
          drained = true;
          break;
        }
        await sleep(200);
      }
      await server.deliveries.flush();
      const drainedAt = wallClock();
      sampling = false;
      await sampler;
      await f.stopAll();
      server.faults.clear();

      const o = f.observed;
      const { rows } = await pool.query<{ event_id: string; n: number }>(
        `SELECT event_id, count(*)::int AS n FROM ${effectsTable} GROUP BY event_id`,
      );
      const { rows: byRole } = await pool.query<{ role: string; n: number }>(
        `SELECT role, count(*)::int AS n FROM ${effectsTable} GROUP BY role`,
      );
      const counts = await redis.hGetAll(countsKey(redisPrefix));
      const repeated = Object.keys(counts).filter((id) => Number(counts[id]) > 1);
      const overlaps = overlapsAcrossProcesses(o.spans);
      const statusChanges = log().filter((e) => e.type === STATUS_CHANGED).length;
      const sum = (m: Map<unknown, number>) => [...m.values()].reduce((a, b) => a + b, 0);
      const figures = {
        checkpointStore: CHECKPOINT_STORE,
        events: allIds.length,
        kills: o.kills.length,
        killedReceivers: o.kills.filter((k) => k.role === "receiver").length,
        killedPollers: o.kills.filter((k) => k.role === "poller").length,
        killedLeaseHolders: o.kills.filter((k) => k.leader).length,
        takeovers: o.takeovers,
        maxTakeoverMs: Math.round(Math.max(0, ...o.takeoverTimes)),
        savesRefused: Object.fromEntries(o.savesRefused),
        deliveriesAnswered: sum(o.statuses),
        answers: Object.fromEntries(o.statuses),
        claims: Object.fromEntries(o.claims),
        duplicatesSuppressed: {
          byRedis: o.claims.get("done") ?? 0,
          inProgressTurnedAway: o.claims.get("in_progress") ?? 0,
          byPostgresWithClaim: o.suppressedByPostgres,
        },
        effectRowsBy: Object.fromEntries(byRole.map((r) => [r.role, r.n])),
        // At least once: an event in flight at a killed process may count twice; any other
        // repeat means a lease lapsed under a live process (a stall longer than the lease).
        redisCounterRepeats: repeated.length,
        inFlightAtKills: o.inFlightAtKill.size,
        repeatsNotInFlightAtAKill: repeated.filter((id) => !o.inFlightAtKill.has(id)),
        checkpointSamples: samples,
        roundsMs: Math.round(roundsEnded - began),
        drainMs: Math.round(drainedAt - roundsEnded),
      };
      console.log(`chaos figures: ${JSON.stringify(figures, null, 2)}`);

      expect(o.errors, "unexpected lines or exits").toEqual([]);
      expect(drained, "the fleet finished every event and the checkpoint reached the newest").toBe(
        true,
      );
      expect(statusChanges).toBe(EVENTS);
      // Every event's effect present, none twice (withClaim).
      expect(rows.filter((r) => r.n > 1)).toEqual([]);
      expect(new Set(rows.map((r) => r.event_id))).toEqual(new Set(allIds));
      // The Redis counter: at least once each.
      expect(allIds.filter((id) => !(Number(counts[id]) >= 1))).toEqual([]);
      // The checkpoint never moved backwards.
      expect(samples).toBeGreaterThan(ROUNDS);
      expect(backwards).toEqual([]);
      // At most one poller in onEvent at any moment.
      expect(overlaps.map(([a, b]) => `${a.what} overlaps ${b.what}`)).toEqual([]);
      // The chaos happened: kills of both roles, a lease holder among them, duplicates turned away.
      expect(o.kills.length).toBeGreaterThanOrEqual(ROUNDS);
      expect(figures.killedReceivers).toBeGreaterThan(0);
      expect(figures.killedLeaseHolders).toBeGreaterThan(0);
      expect(o.takeovers).toBeGreaterThan(0);
      expect(figures.duplicatesSuppressed.byRedis).toBeGreaterThan(0);
    }, 240_000);
  },
);
