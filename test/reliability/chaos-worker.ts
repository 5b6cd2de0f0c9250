/**
 * A child process of chaos.test.ts, bundled with tsup and run with plain
 * `node`: either a webhook receiver or a catch-up poller, one of three of
 * each, all sharing one Redis and one PostgreSQL. Its parent SIGKILLs it at
 * random and starts it again with the same configuration.
 *
 * Receivers and pollers process an event the same way (`processEvent`),
 * under the same two-phase Redis dedupe store (the handler's and the
 * poller's `dedupe`):
 * - one `HINCRBY` of the event's field in a Redis hash: an effect deduped by
 *   the Redis store alone, so at least once, and twice only where a process
 *   died (or its lease lapsed) between the effect and `complete`;
 * - one row in the effects table, inside `postgresDedupeStore().withClaim`:
 *   exactly once, whatever dies when.
 *
 * A receiver fails 30 % of the deliveries it gets, a third of them each way:
 * answers 503 before reading them; throws in its event function before any
 * effect (the claim is released, the answer is 500); or processes the event
 * and loses the answer (the 200 becomes a 502, as from a proxy that timed
 * out), so that the service retries an event already done.
 *
 * stdout, one line each, written synchronously so that a line is out before
 * any kill; `<t>` is the wall clock in ms with a fraction, comparable across
 * the processes of one machine:
 * - `ready [<port>]`: listening, on that port (receiver), or started (poller);
 * - `k <state> <id>`: what the dedupe store's `claim` found; `done <id>`,
 *   `released <id>`: the claim completed or given up;
 * - `e <id>`: this process's effects row committed; `s <id>`: `withClaim` found
 *   the id done by another (the Postgres layer suppressed a repeat);
 * - receiver: `h <status>` per answer;
 * - poller: `b <id> <t>` / `c <id> <t>` around each `onEvent`; `a <fence> <t>`
 *   when what `acquire` resolves changes (a number, or `null`); `lost <reason> <t>`
 *   for a save the store refused;
 * - `error <text>` for anything unexpected.
 */
import { writeSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type AnyEvent,
  MedRecords,
  postgresCheckpointStore,
  redisCheckpointStore,
} from "../../src/index.js";
import { seededRandom } from "../../src/internal/seeded-random.js";
import {
  CheckpointLeaseLostError,
  type CheckpointLeaseStore,
  isCheckpointLeaseStore,
} from "../../src/shared/checkpoint-lease.js";
import type { CheckpointStore } from "../../src/shared/checkpoint-store.js";
import type { DedupeStore } from "../../src/shared/dedupe-store.js";
import { postgresDedupeStore } from "../../src/stores/postgres-dedupe.js";
import { redisDedupeStore } from "../../src/stores/redis-dedupe.js";
import { createWebhookHandler } from "../../src/webhooks/handler.js";
import { toNodeListener } from "../../src/webhooks/node.js";
import { type ChaosWorkerConfig, checkpointPrefix, countsKey } from "./chaos-config.js";

/** How long a done claim is remembered: the whole test, with room. */
const DONE_TTL_SECONDS = 3_600;

const say = (line: string) => void writeSync(1, `${line}\n`);
const now = () => (performance.timeOrigin + performance.now()).toFixed(3);
const describe = (error: unknown) =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? "") as ChaosWorkerConfig;
  // First, so that a SIGTERM while starting ends the process cleanly too (exit 0).
  const closers: Array<() => Promise<unknown>> = [];
  process.once("SIGTERM", () => {
    void (async () => {
      for (const close of closers) await close().catch((error) => say(`error ${describe(error)}`));
      process.exit(0);
    })();
  });
  const [{ default: pg }, { createClient }] = await Promise.all([import("pg"), import("redis")]);
  const pool = new pg.Pool({ connectionString: process.env.MEDRECORDS_TEST_POSTGRES_URL, max: 4 });
  closers.push(() => pool.end());
  const redis = await createClient({ url: process.env.MEDRECORDS_TEST_REDIS_URL }).connect();
  closers.unshift(() => redis.quit());

  const claims = postgresDedupeStore({
    pool,
    table: config.claimsTable,
    leaseSeconds: config.dedupeLeaseSeconds,
  });
  const dedupe = tellClaims(
    redisDedupeStore({
      client: redis,
      prefix: `${config.redisPrefix}dedupe:`,
      leaseSeconds: config.dedupeLeaseSeconds,
    }),
  );
  const { checkpointName: name, checkpointLeaseSeconds: leaseSeconds } = config;
  const checkpoint =
    config.checkpointStore === "redis"
      ? redisCheckpointStore({
          client: redis,
          name,
          prefix: checkpointPrefix(config.redisPrefix),
          leaseSeconds,
        })
      : postgresCheckpointStore({ pool, name, table: config.checkpointTable, leaseSeconds });
  const processEvent = async (event: { id: string }) => {
    await redis.hIncrBy(countsKey(config.redisPrefix), event.id, 1);
    const { claimed } = await claims.withClaim(event.id, DONE_TTL_SECONDS, async (client) => {
      await client.query(
        `INSERT INTO ${config.effectsTable} (event_id, pid, role) VALUES ($1, $2, $3)`,
        [event.id, process.pid, config.role],
      );
    });
    say(`${claimed ? "e" : "s"} ${event.id}`);
  };

  const running =
    config.role === "receiver"
      ? await startReceiver(config, dedupe, processEvent)
      : startPoller(config, checkpoint, dedupe, processEvent);
  closers.unshift(running.close);
  say(`ready ${running.port ?? ""}`.trimEnd());
}

/** A started receiver or poller. */
interface Running {
  /** The receiver's port. */
  port?: number;
  /** Stops it: the receiver closes its server, the poller stops (releasing its lease). */
  close(): Promise<unknown>;
}

/** The store, telling on stdout what each claim found and how it ended. */
function tellClaims(store: DedupeStore): DedupeStore {
  return {
    async claim(id) {
      const claim = await store.claim(id);
      say(`k ${claim.state} ${id}`);
      return claim;
    },
    async complete(id, token, ttlSeconds) {
      await store.complete(id, token, ttlSeconds);
      say(`done ${id}`);
    },
    async release(id, token) {
      await store.release(id, token);
      say(`released ${id}`);
    },
  };
}

async function startReceiver(
  config: ChaosWorkerConfig,
  dedupe: DedupeStore,
  processEvent: (event: { id: string }) => Promise<void>,
): Promise<Running> {
  const secret = process.env.MEDRECORDS_WEBHOOK_SECRET ?? "";
  const random = seededRandom(config.slot * 1_000 + config.start);
  /** Requests whose event function is to throw before any effect. */
  const failing = new WeakSet<Request>();
  const handler = createWebhookHandler({
    secret,
    dedupe,
    toleranceSeconds: config.toleranceSeconds,
    on: {
      "retrieval_request.status_changed": async (event, { request }) => {
        if (failing.has(request)) throw new Error("injected failure before the effects");
        await processEvent(event);
      },
    },
    onError: (error, { stage }) => {
      if (stage !== "handler") say(`error ${stage}: ${describe(error)}`);
    },
  });
  const part = config.failureRate / 3;
  const faulty = async (request: Request): Promise<Response> => {
    const draw = random();
    let response: Response;
    if (draw < part) {
      response = new Response(null, { status: 503 });
    } else {
      if (draw < 2 * part) failing.add(request);
      response = await handler(request);
      if (draw >= 2 * part && draw < 3 * part && response.status === 200) {
        response = new Response(null, { status: 502 });
      }
    }
    say(`h ${response.status}`);
    return response;
  };
  const server = createServer(toNodeListener(faulty));
  // A port of its own at each start: a fixed one may be taken meanwhile as the local port of
  // some outgoing connection. The parent's load balancer reads it from the `ready` line.
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function startPoller(
  config: ChaosWorkerConfig,
  store: CheckpointStore,
  dedupe: DedupeStore,
  processEvent: (event: AnyEvent) => Promise<void>,
): Running {
  const mr = new MedRecords({ baseUrl: config.baseUrl, maxRetries: 10 });
  const poller = mr.events.catchUp({
    checkpoint: tellLease(store),
    dedupe,
    pageSize: config.pageSize,
    onEvent: async (event) => {
      say(`b ${event.id} ${now()}`);
      try {
        await processEvent(event);
      } finally {
        say(`c ${event.id} ${now()}`);
      }
    },
    // A lease taken over or lapsed ends a run quietly: whatever reaches here is unexpected.
    onError: (error) => say(`error ${describe(error)}`),
  });
  poller.start({ intervalMs: config.pollIntervalMs });
  return { close: () => poller.stop() };
}

/**
 * The lease store, telling on stdout every change of what `acquire` resolves
 * and every refused save. A store without leases is passed as it is.
 */
function tellLease(store: CheckpointStore): CheckpointStore {
  return isCheckpointLeaseStore(store) ? tellLeaseOf(store) : store;
}

function tellLeaseOf(store: CheckpointLeaseStore): CheckpointLeaseStore {
  let last: number | null | undefined;
  return {
    description: store.description,
    leaseSeconds: store.leaseSeconds,
    load: () => store.load(),
    async acquire(owner) {
      const fence = await store.acquire(owner);
      if (fence !== last) say(`a ${fence} ${now()}`);
      last = fence;
      return fence;
    },
    async save(checkpoint, fence) {
      try {
        await store.save(checkpoint, fence);
      } catch (error) {
        if (error instanceof CheckpointLeaseLostError) {
          last = undefined;
          say(`lost ${error.reason} ${now()}`);
        }
        throw error;
      }
    },
    release: (owner) => store.release(owner),
  };
}

main().catch((error: unknown) => {
  say(`error ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(2);
});
