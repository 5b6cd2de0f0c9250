/**
 * A Redis dedupe store kept across restarts of the mock (DESIGN 11.1): each
 * run of the same script on a fresh mock (a restarted `medrecords mock`, the
 * next CI job) hands out new ids, so the receiver processes every run's
 * events instead of answering them 200 as duplicates of the previous run's.
 * With the same `idSeed`, the runs are the same, duplicates included.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createMockService } from "../../src/mock/index.js";
import { createWebhookHandler, redisDedupeStore } from "../../src/webhooks/index.js";
import { createApi } from "../mock/helpers.js";
import { connectRedis, describeWithServers, type RedisClient, uniqueName } from "./servers.js";

describeWithServers(["redis"], "a Redis dedupe store kept across mock restarts", ({ redis }) => {
  let client: RedisClient;
  beforeAll(async () => {
    client = await connectRedis(redis);
  });
  afterAll(async () => {
    await client?.quit();
  });

  /** One run of the same script on a fresh mock; returns the retrieval requests processed. */
  async function run(prefix: string, idSeed?: string): Promise<string[]> {
    const processed: string[] = [];
    let secret = "";
    const mock = createMockService({
      ...(idSeed === undefined ? {} : { idSeed }),
      // No `now`: the mock signs with this machine's clock wherever its own clock is.
      deliverTo: (request) =>
        createWebhookHandler({
          secret,
          dedupe: redisDedupeStore({ client, prefix }),
          on: {
            "retrieval_request.documents_available": (event) => {
              processed.push(event.data.retrieval_request_id);
            },
          },
        })(request),
    });
    const api = createApi(mock, mock.apiKeys.create());
    const hook = await api.post<{ secret: string }>("/v2/webhooks", {
      name: "app",
      url: "https://app.example.test/webhooks",
      events: ["retrieval_request.documents_available"],
    });
    secret = hook.body.secret;
    const request = mock.seed.retrievalRequest({
      status: "processing",
      stage: "provider_processing",
    });
    mock.retrievalRequests.releaseRecords(request.id, [
      { file_name: "records.pdf", file_type: "application/pdf", content: "%PDF-1.7" },
    ]);
    expect(await mock.deliveries.flush()).toMatchObject({ attempted: 1, succeeded: 1 });
    return processed;
  }

  it("processes each restarted mock's events: no false duplicates", async () => {
    const prefix = `${uniqueName("restarts")}:`;
    const first = await run(prefix);
    const second = await run(prefix);
    const third = await run(prefix);
    expect([first, second, third].map((p) => p.length)).toEqual([1, 1, 1]);
    expect(new Set([...first, ...second, ...third]).size).toBe(3);
  });

  it("with the same idSeed a rerun is the same run: its events are the duplicates they are", async () => {
    const prefix = `${uniqueName("seeded")}:`;
    expect(await run(prefix, "reproducible")).toHaveLength(1);
    expect(await run(prefix, "reproducible")).toEqual([]);
  });
});
