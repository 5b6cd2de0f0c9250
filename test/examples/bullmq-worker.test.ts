/**
 * examples/bullmq-worker.ts on the shared Redis server: each test gets its
 * own BullMQ prefix and dedupe key prefix, whose keys are deleted afterwards.
 * The behaviour is test/examples/queue-recipe-suite.ts's.
 */
import type { Worker } from "bullmq";
import { createClient } from "redis";
import { bullmqRecipe } from "../../examples/bullmq-worker.js";
import { redisDedupeStore } from "../../src/webhooks/index.js";
import {
  connectRedis,
  describeWithServers,
  type RedisClient,
  uniqueName,
} from "../stores/servers.js";
import { queueRecipeSuite } from "./queue-recipe-suite.js";

describeWithServers(["redis"], "examples/bullmq-worker.ts", ({ redis: url }) => {
  queueRecipeSuite(() => {
    const prefix = uniqueName("bullmq");
    const dedupePrefix = `${uniqueName("queue-dedupe")}:`;
    const clients: RedisClient[] = [];
    const closers: (() => Promise<unknown>)[] = [];
    const redis = async () => {
      const client = await connectRedis(url);
      clients.push(client);
      return client;
    };
    // BullMQ's own connections: a node-redis client per queue, duplicated by BullMQ as it needs.
    const queueClients: { isOpen: boolean; destroy(): void }[] = [];
    const queueClient = () => {
      const client = createClient({ url });
      queueClients.push(client);
      return client;
    };
    return {
      dedupe: async () => redisDedupeStore({ client: await redis(), prefix: dedupePrefix }),
      recipe: async (input, name) => {
        const recipe = bullmqRecipe({
          connection: queueClient(),
          prefix,
          ...input,
          queue: name,
          backoffMs: 200,
        });
        closers.push(() => recipe.queue.close());
        return {
          handler: recipe.handler,
          enqueue: recipe.enqueue,
          startWorker: async () => {
            const worker: Worker = recipe.startWorker();
            closers.push(() => worker.close(true));
            await worker.waitUntilReady();
          },
          jobsFor: async (eventId) => {
            const jobs = await recipe.queue.getJobs();
            return jobs.filter((job) => job.data.event.id === eventId).length;
          },
          removeJob: async (eventId) => {
            await recipe.queue.remove(eventId);
          },
        };
      },
      close: async () => {
        // Workers first, then queues: a queue closed under a running worker can leave it hanging.
        for (const close of closers.reverse()) await close();
        const client = await redis();
        for (const pattern of [`${prefix}:*`, `${dedupePrefix}*`]) {
          for await (const keys of client.scanIterator({ MATCH: pattern, COUNT: 500 })) {
            const batch = Array.isArray(keys) ? keys : [keys];
            if (batch.length > 0) await client.del(batch);
          }
        }
        await Promise.all(clients.map((c) => c.quit()));
        for (const c of queueClients) if (c.isOpen) c.destroy();
      },
    };
  });
});
