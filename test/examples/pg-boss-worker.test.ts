/**
 * examples/pg-boss-worker.ts on the shared PostgreSQL server: each test gets
 * its own pg-boss schema and dedupe table, dropped afterwards. The behaviour
 * is test/examples/queue-recipe-suite.ts's.
 */
import { PgBoss } from "pg-boss";
import { describe, expect, it } from "vitest";
import { jobIdOf, pgBossRecipe } from "../../examples/pg-boss-worker.js";
import { postgresDedupeStore } from "../../src/webhooks/index.js";
import { describeWithServers, postgresPool, uniqueName } from "../stores/servers.js";
import { queueRecipeSuite } from "./queue-recipe-suite.js";

describe("jobIdOf", () => {
  it("is a well-formed UUID, the same for every delivery of an event and different across events", () => {
    const id = jobIdOf(`rr-${"ab".repeat(32)}`);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(jobIdOf(`rr-${"ab".repeat(32)}`)).toBe(id);
    expect(jobIdOf(`rr-${"cd".repeat(32)}`)).not.toBe(id);
  });
});

describeWithServers(["postgres"], "examples/pg-boss-worker.ts", ({ postgres: url }) => {
  queueRecipeSuite(() => {
    const schema = uniqueName("pgboss").toLowerCase();
    const table = uniqueName("queue_dedupe");
    const pool = postgresPool(url, 4);
    const bosses: PgBoss[] = [];
    // One pg-boss instance per recipe, as each process has its own, all on the test's schema.
    const startBoss = async () => {
      const boss = new PgBoss({ connectionString: url, schema, schedule: false, max: 4 });
      boss.on("error", (error) => console.error("pg-boss:", error));
      bosses.push(boss);
      return boss.start();
    };
    return {
      dedupe: async () => postgresDedupeStore({ pool, table }),
      recipe: async (input, name) => {
        const boss = await startBoss();
        const recipe = await pgBossRecipe({ boss, ...input, queue: name, retryDelay: 1 });
        return {
          handler: recipe.handler,
          enqueue: recipe.enqueue,
          startWorker: () => recipe.startWorker({ pollingIntervalSeconds: 0.5 }),
          jobsFor: async (eventId) =>
            (await boss.findJobs(name, { data: { event: { id: eventId } } })).length,
          removeJob: async (eventId) => {
            await boss.deleteJob(name, jobIdOf(eventId));
          },
        };
      },
      close: async () => {
        for (const boss of bosses) await boss.stop({ graceful: false, close: true });
        await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await pool.query(`DROP TABLE IF EXISTS "${table}"`);
        await pool.end();
      },
    };
  });
});
