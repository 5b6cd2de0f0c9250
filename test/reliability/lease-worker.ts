/**
 * The child process of shared-checkpoint.test.ts, bundled with tsup and run
 * with plain `node`: one instance of a catch-up poller calling `start()` on
 * a checkpoint shared with its siblings (a file, a PostgreSQL row or a Redis
 * hash), with no dedupe store. It runs until killed.
 *
 * stdout, one line each, written synchronously so that a line is out before
 * any kill: `e <id>` once an event was processed, `error <text>` for a run
 * that failed (start() retries on the next interval).
 */
import { writeSync } from "node:fs";
import {
  type CheckpointLeaseStore,
  fileCheckpoint,
  MedRecords,
  postgresCheckpointStore,
  redisCheckpointStore,
} from "../../src/index.js";

export interface LeaseWorkerConfig {
  /** The API key comes from MEDRECORDS_API_KEY, the server URLs from the MEDRECORDS_TEST_* variables. */
  baseUrl: string;
  store:
    | { kind: "file"; path: string }
    | { kind: "postgres"; table: string }
    | { kind: "redis"; prefix: string };
  leaseSeconds: number;
  intervalMs: number;
  pageSize: number;
}

const say = (line: string) => void writeSync(1, `${line}\n`);

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? "") as LeaseWorkerConfig;
  const { leaseSeconds, store } = config;
  let checkpoint: CheckpointLeaseStore;
  if (store.kind === "file") {
    checkpoint = fileCheckpoint(store.path, { leaseSeconds });
  } else if (store.kind === "postgres") {
    const { default: pg } = await import("pg");
    const pool = new pg.Pool({
      connectionString: process.env.MEDRECORDS_TEST_POSTGRES_URL,
      max: 2,
    });
    checkpoint = postgresCheckpointStore({ pool, table: store.table, leaseSeconds });
  } else {
    const { createClient } = await import("redis");
    const client = await createClient({ url: process.env.MEDRECORDS_TEST_REDIS_URL }).connect();
    checkpoint = redisCheckpointStore({ client, prefix: store.prefix, leaseSeconds });
  }
  const mr = new MedRecords({ baseUrl: config.baseUrl, maxRetries: 2 });
  const poller = mr.events.catchUp({
    checkpoint,
    pageSize: config.pageSize,
    onEvent: async (event) => {
      say(`e ${event.id}`);
    },
    onError: (error) =>
      say(`error ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`),
  });
  poller.start({ intervalMs: config.intervalMs });
}

main().catch((error: unknown) => {
  say(`error ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(2);
});
