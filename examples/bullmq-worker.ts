/**
 * Acknowledge fast, process in workers: webhook deliveries go to a BullMQ
 * queue in Redis, and workers process them, each event once, however long it
 * takes (the service waits only 5 seconds for a delivery's answer).
 *
 * - The handler adds the event with `jobId` = the event id: while the job
 *   exists, a repeated delivery's `add` returns it instead of adding another.
 * - A worker claims the event in the shared dedupe store (the one the
 *   catch-up poller uses too), processes it, and marks it done; a failure
 *   releases the claim and BullMQ retries the job (`attempts`, exponential
 *   backoff). A job that finished and was removed can be added again by a
 *   late redelivery: the claim then finds the event done.
 * - The dedupe lease (`leaseSeconds`) must outlast the longest processing;
 *   BullMQ renews its own job lock while the worker runs.
 *
 * Run the handler (toNodeListener, Express, Next.js...) in your web process
 * and `startWorker()` in as many worker processes as you like:
 *
 *   // BullMQ takes a node-redis client (or, with the ioredis package installed, `{ host, port }`).
 *   const connection = createClient({ url: process.env.REDIS_URL });
 *   const dedupe = redisDedupeStore({ client: await createClient({ url }).connect(), leaseSeconds: 300 });
 *   const recipe = bullmqRecipe({ connection, dedupe, secret, process: syncRecords });
 *   createServer(toNodeListener(recipe.handler)).listen(3000); // web process
 *   recipe.startWorker(); // worker process
 *
 * From the installed package: copy node_modules/medrecords/examples/bullmq-worker.ts
 * and queue-processing.ts (which it imports) into your app's sources, where your
 * build compiles them (Node's type stripping does not map the `.js` import).
 */
import { type ConnectionOptions, Queue, Worker } from "bullmq";
import type { DedupeStore } from "medrecords/webhooks";
import {
  enqueueingHandler,
  type ProcessOutcome,
  processOnce,
  type QueuedEvent,
} from "./queue-processing.js";

/** The queue's default name. */
export const BULLMQ_QUEUE = "medrecords-events";

/** A job's payload: the verified event, as delivered. */
interface EventJob {
  event: QueuedEvent;
}

/** Options of {@link bullmqRecipe}. */
export interface BullmqRecipeOptions {
  /**
   * Where Redis is, as BullMQ takes it: a node-redis client (connected or
   * not), or with the `ioredis` package installed, its options.
   * @example createClient({ url: process.env.REDIS_URL })
   */
  connection: ConnectionOptions;
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
  /** BullMQ's key prefix. @default "bull" */
  prefix?: string;
  /**
   * Attempts of a job, the first included, before BullMQ marks it failed.
   * @default 10
   */
  attempts?: number;
  /**
   * Milliseconds before the first retry, doubling after each.
   * @default 5_000
   */
  backoffMs?: number;
  /** Called after each job, with what it came to; for logs and tests. */
  onProcessed?: (event: QueuedEvent, outcome: ProcessOutcome) => void;
}

/** The queue, the webhook handler and the worker's start. */
export function bullmqRecipe(options: BullmqRecipeOptions) {
  const { connection, prefix, dedupe, process } = options;
  const name = options.queue ?? BULLMQ_QUEUE;
  const queue = new Queue<EventJob>(name, {
    connection,
    ...(prefix !== undefined && { prefix }),
    defaultJobOptions: {
      attempts: options.attempts ?? 10,
      backoff: { type: "exponential", delay: options.backoffMs ?? 5_000 },
      // A finished job is kept a day, so that redeliveries meanwhile find it.
      removeOnComplete: { age: 24 * 60 * 60 },
      removeOnFail: false,
    },
  });

  /** Adds the event's job once: a second add of the same id returns the job already there. */
  const enqueue = (event: QueuedEvent) => queue.add("event", { event }, { jobId: event.id });

  const handler = enqueueingHandler({ secret: options.secret, enqueue });

  /** Starts a worker in this process; close it with `worker.close()`. */
  const startWorker = (): Worker<EventJob> =>
    new Worker<EventJob>(
      name,
      async (job) => {
        const outcome = await processOnce(dedupe, job.data.event, process);
        options.onProcessed?.(job.data.event, outcome);
      },
      { connection, ...(prefix !== undefined && { prefix }) },
    );

  return { handler, enqueue, startWorker, queue };
}
