/**
 * Acknowledge fast, process in workers: webhook deliveries go to a pg-boss
 * queue in PostgreSQL, and workers process them, each event once, however
 * long it takes (the service waits only 5 seconds for a delivery's answer).
 *
 * - The handler enqueues the event with a job id derived from the event id
 *   (pg-boss ids are UUIDs): a repeated delivery's `send` is a no-op.
 * - A worker claims the event in the shared dedupe store (the one the
 *   catch-up poller uses too), processes it, and marks it done; a failure
 *   releases the claim and pg-boss retries the job (`retryLimit`,
 *   exponential backoff).
 * - The dedupe lease (`leaseSeconds`) must outlast the longest processing, and
 *   the queue's `expireInSeconds` must be longer still.
 *
 * Run the handler (toNodeListener, Express, Next.js...) in your web process
 * and `startWorker()` in as many worker processes as you like:
 *
 *   const boss = new PgBoss({ connectionString: process.env.DATABASE_URL });
 *   boss.on("error", console.error);
 *   await boss.start();
 *   const dedupe = postgresDedupeStore({ pool, leaseSeconds: 300 });
 *   const recipe = await pgBossRecipe({ boss, dedupe, secret, process: syncRecords });
 *   createServer(toNodeListener(recipe.handler)).listen(3000); // web process
 *   await recipe.startWorker(); // worker process
 *
 * From the installed package: copy node_modules/medrecords/examples/pg-boss-worker.ts
 * and queue-processing.ts (which it imports) into your app's sources, where your
 * build compiles them (Node's type stripping does not map the `.js` import).
 */
import { createHash } from "node:crypto";
import type { DedupeStore } from "medrecords/webhooks";
import type { PgBoss } from "pg-boss";
import {
  enqueueingHandler,
  type ProcessOutcome,
  processOnce,
  type QueuedEvent,
} from "./queue-processing.js";

/** The queue's default name. */
export const PG_BOSS_QUEUE = "medrecords-events";

/** A job's payload: the verified event, as delivered. */
interface EventJob {
  event: QueuedEvent;
}

/** Options of {@link pgBossRecipe}. */
export interface PgBossRecipeOptions {
  /** A started pg-boss instance. */
  boss: PgBoss;
  /** The webhook secret(s), as for `createWebhookHandler`. */
  secret: string | readonly string[];
  /** The shared dedupe store; its `leaseSeconds` must outlast the longest `process`. */
  dedupe: DedupeStore;
  /** Your processing: may take minutes; throw to have the job retried. */
  process: (event: QueuedEvent) => Promise<void>;
  /**
   * The queue's name.
   * @default "medrecords-events"
   */
  queue?: string;
  /**
   * Retries of a failed job before pg-boss marks it failed.
   * @default 10
   */
  retryLimit?: number;
  /**
   * Seconds before the first retry, doubling after each (pg-boss's `retryBackoff`).
   * @default 5
   */
  retryDelay?: number;
  /** Called after each job, with what it came to; for logs and tests. */
  onProcessed?: (event: QueuedEvent, outcome: ProcessOutcome) => void;
}

/**
 * pg-boss job ids are UUIDs and event ids are not (`rr-<64 hex>`): the job id
 * is a UUID made from the SHA-256 of the event id, the same for every
 * delivery of the event.
 */
export function jobIdOf(eventId: string): string {
  const hex = createHash("sha256").update(eventId).digest("hex");
  // Version 8 (custom) and the RFC 9562 variant, so that it is a well-formed UUID.
  const variant = ((Number.parseInt(hex[16] ?? "0", 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Creates the queue and returns the webhook handler and the worker's start. */
export async function pgBossRecipe(options: PgBossRecipeOptions) {
  const { boss, dedupe, process } = options;
  const queue = options.queue ?? PG_BOSS_QUEUE;
  await boss.createQueue(queue, {
    retryLimit: options.retryLimit ?? 10,
    retryDelay: options.retryDelay ?? 5,
    retryBackoff: true,
  });

  /** Enqueues once per event: resolves the job id, or null when the job was there already. */
  const enqueue = (event: QueuedEvent): Promise<string | null> =>
    boss.send(queue, { event } satisfies EventJob, { id: jobIdOf(event.id) });

  const handler = enqueueingHandler({ secret: options.secret, enqueue });

  /** Starts a worker in this process; resolves its pg-boss worker id (for `boss.offWork`). */
  const startWorker = (work: { pollingIntervalSeconds?: number } = {}): Promise<string> =>
    boss.work<EventJob>(queue, { batchSize: 1, ...work }, async ([job]) => {
      if (job === undefined) return;
      const outcome = await processOnce(dedupe, job.data.event, process);
      options.onProcessed?.(job.data.event, outcome);
    });

  return { handler, enqueue, startWorker, queue };
}
