/**
 * The child process of poller-sigkill.test.ts, bundled with tsup and run with
 * plain `node`: catches up on the event log with a `fileCheckpoint` and
 * processes each event, until one run completes. Its parent SIGKILLs it at
 * random points and starts it again on the same checkpoint.
 *
 * Processing an event is its effect:
 * - `file`: one line with the event id appended to `effectsFile` (a single
 *   write, durable once it returned whatever kills the process);
 * - `postgres`: one row inserted into `effectsTable`, inside
 *   `postgresDedupeStore().withClaim`, so the claim and the row commit together.
 *
 * stdout, one line each, written synchronously so that a line is out before
 * any kill: `e <id>` once an effect is durable, `d <id>` for an event the
 * dedupe store had already claimed, `paused <id>` (see `pauseAt`), `error <text>`
 * for a failed run (the next one starts at once), and `done <result>` when a
 * run completed, after which the process exits 0.
 */
import { appendFileSync, writeSync } from "node:fs";
import { type AnyEvent, fileCheckpoint, MedRecords } from "../../src/index.js";

export interface WorkerConfig {
  /** The API key comes from MEDRECORDS_API_KEY, out of the process list. */
  baseUrl: string;
  checkpointFile: string;
  pageSize: number;
  mode: { kind: "file"; effectsFile: string } | PostgresMode;
  /**
   * Blocks the process (it writes `paused` and waits for its SIGKILL) at
   * the `effect`-th effect of this process: `"in-effect"` right after the
   * effect's write (for Postgres: the row inserted, the transaction not yet
   * committed); `"after-effect"` once it is durable (committed), before the
   * poller moves its checkpoint past the event.
   */
  pauseAt?: { effect: number; where: "in-effect" | "after-effect" };
}

/** The database URL comes from MEDRECORDS_TEST_POSTGRES_URL. */
interface PostgresMode {
  kind: "postgres";
  claimsTable: string;
  effectsTable: string;
}

/** The checkpoint's lease: the longest a round waits for its SIGKILLed predecessor's to lapse. */
const LEASE_SECONDS = 0.25;

const say = (line: string) => void writeSync(1, `${line}\n`);

function pause(id: string): never {
  say(`paused ${id}`);
  // A synchronous wait: nothing else runs (no COMMIT, no checkpoint save) until the kill.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
  say("error not killed within 60 s");
  process.exit(3);
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? "") as WorkerConfig;
  // The SDK's backoff (0.5 s × 2^n, full jitter) has no option; its jitter draw is the only
  // Math.random it makes. Pinned low, a retry waits about a millisecond.
  Math.random = () => 0.001;

  const mr = new MedRecords({ baseUrl: config.baseUrl, maxRetries: 10 });
  let effects = 0;
  const reached = (where: "in-effect" | "after-effect", id: string) => {
    if (config.pauseAt?.where === where && config.pauseAt.effect === effects) pause(id);
  };

  let onEvent: (event: AnyEvent) => Promise<void>;
  let close = async () => {};
  const { mode } = config;
  if (mode.kind === "file") {
    onEvent = async (event) => {
      appendFileSync(mode.effectsFile, `${event.id}\n`);
      effects++;
      say(`e ${event.id}`);
      // Nothing separates the write from its durability here: both pauses land at once.
      reached("in-effect", event.id);
      reached("after-effect", event.id);
    };
  } else {
    const { default: pg } = await import("pg");
    const { postgresDedupeStore } = await import("../../src/stores/postgres-dedupe.js");
    const pool = new pg.Pool({
      connectionString: process.env.MEDRECORDS_TEST_POSTGRES_URL,
      max: 2,
    });
    close = () => pool.end();
    const store = postgresDedupeStore({ pool, table: mode.claimsTable });
    onEvent = async (event) => {
      const { claimed } = await store.withClaim(event.id, 3_600, async (client) => {
        await client.query(`INSERT INTO ${mode.effectsTable} (event_id, pid) VALUES ($1, $2)`, [
          event.id,
          process.pid,
        ]);
        effects++;
        reached("in-effect", event.id);
      });
      if (!claimed) {
        say(`d ${event.id}`);
        return;
      }
      say(`e ${event.id}`);
      reached("after-effect", event.id);
    };
  }

  const poller = mr.events.catchUp({
    // The killed predecessor's lease is never released: a short one keeps each round's wait short.
    checkpoint: fileCheckpoint(config.checkpointFile, { leaseSeconds: LEASE_SECONDS }),
    pageSize: config.pageSize,
    onEvent,
  });
  for (;;) {
    try {
      const result = await poller.runOnce();
      if (!result.leader) {
        // The previous round's process holds the lease until it lapses.
        await new Promise((resolve) => setTimeout(resolve, LEASE_SECONDS * 250));
        continue;
      }
      say(`done ${JSON.stringify({ processed: result.processed, effects })}`);
      break;
    } catch (error) {
      say(`error ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
    }
  }
  await close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    say(`error ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(2);
  },
);
