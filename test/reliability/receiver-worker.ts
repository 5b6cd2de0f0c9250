/**
 * The child process of receiver-sigkill.test.ts, bundled with tsup and run with
 * plain `node`: a webhook receiver on node:http (`toNodeListener`) whose dedupe
 * store is a real Redis or PostgreSQL (URLs from MEDRECORDS_TEST_REDIS_URL /
 * MEDRECORDS_TEST_POSTGRES_URL), handling `retrieval_request.status_changed`.
 *
 * stdout, one line each, written synchronously so that a line is out before
 * any kill: `listening <port>`, `start <event id>` when the handler begins,
 * `handled <event id>` when it resolves. With `hang`, the handler never
 * resolves: the parent SIGKILLs the process while it runs.
 */
import { writeSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  createWebhookHandler,
  type DedupeStore,
  postgresDedupeStore,
  redisDedupeStore,
  toNodeListener,
} from "../../src/webhooks/index.js";

export interface ReceiverConfig {
  secret: string;
  store: { kind: "redis"; prefix: string } | { kind: "postgres"; table: string };
  leaseSeconds: number;
  /** The handler never resolves. */
  hang: boolean;
}

const say = (line: string) => writeSync(1, `${line}\n`);

async function main() {
  const config = JSON.parse(process.argv[2] ?? "{}") as ReceiverConfig;
  let dedupe: DedupeStore;
  if (config.store.kind === "redis") {
    const { createClient } = await import("redis");
    const client = await createClient({ url: process.env.MEDRECORDS_TEST_REDIS_URL }).connect();
    dedupe = redisDedupeStore({
      client,
      prefix: config.store.prefix,
      leaseSeconds: config.leaseSeconds,
    });
  } else {
    const { default: pg } = await import("pg");
    const pool = new pg.Pool({
      connectionString: process.env.MEDRECORDS_TEST_POSTGRES_URL,
      max: 4,
    });
    dedupe = postgresDedupeStore({
      pool,
      table: config.store.table,
      leaseSeconds: config.leaseSeconds,
    });
  }
  const handler = createWebhookHandler({
    secret: config.secret,
    dedupe,
    onError: (error, { stage }) => say(`error ${stage} ${String(error)}`),
    on: {
      "retrieval_request.status_changed": async (event) => {
        say(`start ${event.id}`);
        if (config.hang) await new Promise(() => {});
        say(`handled ${event.id}`);
      },
    },
  });
  const server = createServer(toNodeListener(handler));
  server.listen(0, "127.0.0.1", () => {
    say(`listening ${(server.address() as AddressInfo).port}`);
  });
}

main().catch((error: unknown) => {
  say(`error start ${String(error)}`);
  process.exit(1);
});
