/**
 * examples/webhook-receiver.ts over real HTTP: the reference server POSTs its
 * deliveries to the running example, which fetches each retrieval request
 * back through the API and keeps the newest.
 */
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { main, WEBHOOK_PATH } from "../../examples/webhook-receiver.js";
import { type MockServer, type MockService, startMockServer } from "../../src/mock/index.js";
import { signWebhook } from "../../src/webhooks/index.js";
import { createApi } from "../mock/helpers.js";
import { createRetrieval } from "../mock/retrieval-helpers.js";
import { connectRedis, describeWithServers } from "../stores/servers.js";

afterEach(() => {
  vi.restoreAllMocks();
});

/** The reference server over HTTP, delivering for real to loopback, and the example running against it. */
async function start(extraEnv: Record<string, string> = {}) {
  const server = await startMockServer({ now: new Date(), allowPrivateWebhookUrls: true });
  onTestFinished(() => server.close());
  // The helpers only need fetch and baseUrl, which a MockServer has too.
  const api = createApi(server as MockServer & MockService, server.apiKeys.create());
  const logs: string[] = [];
  vi.spyOn(console, "log").mockImplementation((line: string) => {
    logs.push(line);
  });
  // The secret exists once the webhook does, and the receiver's port once it runs:
  // create the webhook first, start the example, then point the webhook at it.
  const webhook = await api.post<{ secret: string; id: string }>("/v2/webhooks", {
    name: "example",
    url: "https://receiver.example.test/webhooks/medrecords",
    events: ["retrieval_request.status_changed", "retrieval_request.documents_available"],
  });
  expect(webhook.status).toBe(201);
  const receiver = await main({
    MEDRECORDS_API_KEY: server.apiKeys.create(),
    MEDRECORDS_BASE_URL: server.url,
    MEDRECORDS_WEBHOOK_SECRET: webhook.body.secret,
    PORT: "0",
    ...extraEnv,
  });
  const moved = await api.patch(`/v2/webhooks/${webhook.body.id}`, { url: receiver.url });
  expect(moved.status).toBe(200);
  onTestFinished(() => receiver.close());
  return { server, api, receiver, secret: webhook.body.secret, logs };
}

describe("examples/webhook-receiver.ts", () => {
  it("keeps the newest state of each retrieval request; duplicates are processed once", async () => {
    const { server, api, receiver, logs } = await start();
    expect(receiver.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+${WEBHOOK_PATH}$`));
    expect(logs.at(-1)).toContain("(dedupe: memory)");
    const rr = await createRetrieval(server as MockServer & MockService, api);
    server.faults.set({ duplicateRate: 1, reorder: { window: 3, maxHoldMs: 60_000 }, seed: 9 });
    server.retrievalRequests.setStatus(rr.id, { status: "processing", stage: "request_sent" });
    server.retrievalRequests.setStatus(rr.id, {
      status: "processing",
      stage: "provider_processing",
    });
    const records = server.retrievalRequests.releaseRecords(rr.id, [
      { file_name: "records.pdf", file_type: "application/pdf", content: "%PDF-1.7" },
    ]);
    await server.deliveries.flush();
    server.faults.clear();

    const cached = await receiver.receiver.cache.get(rr.id);
    const newest = await api.get<{
      public_updated_at: string;
      stage: string;
      documents: unknown[];
    }>(`/v2/retrieval-requests/${rr.id}`);
    expect(cached?.public_updated_at).toBe(newest.body.public_updated_at);
    expect(cached?.stage).toBe("provider_processing");
    expect(records).toHaveLength(1);
    // Six deliveries (three events, each twice), three processed.
    const processed = logs.filter((line) => line.startsWith("rr-"));
    expect(processed).toHaveLength(3);
    expect(new Set(processed.map((line) => line.split(" ")[0])).size).toBe(3);
  });

  it("answers 400 to a bad signature and 404 off the webhook path", async () => {
    const { receiver } = await start();
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const body = JSON.stringify({ id: "evt_1", type: "webhook.test", data: {} });
    const headers = await signWebhook({ payload: body, secret: "whsec_someone_else" });
    const forged = await fetch(receiver.url, { method: "POST", headers, body });
    expect(forged.status).toBe(400);
    expect(errors.mock.calls[0]?.[0]).toContain("delivery failed at verify");
    const elsewhere = await fetch(new URL("/other", receiver.url), { method: "POST", body });
    expect(elsewhere.status).toBe(404);
  });

  it("refuses to start without a secret", async () => {
    await expect(main({ PORT: "0" })).rejects.toThrow(/MEDRECORDS_WEBHOOK_SECRET/);
  });
});

describeWithServers(["redis"], "examples/webhook-receiver.ts with REDIS_URL", ({ redis: url }) => {
  it("marks processed events done in Redis", async () => {
    const { server, api, receiver, logs } = await start({ REDIS_URL: url });
    expect(logs.at(-1)).toContain("(dedupe: Redis)");
    const rr = await createRetrieval(server as MockServer & MockService, api);
    server.retrievalRequests.setStatus(rr.id, { status: "processing", stage: "request_sent" });
    await server.deliveries.flush();
    const eventId = logs.find((line) => line.startsWith("rr-"))?.split(" ")[0];
    expect(eventId).toBeDefined();
    const redis = await connectRedis(url);
    try {
      expect(await redis.get(`medrecords:dedupe:${eventId}`)).toBe("done");
      await redis.del(`medrecords:dedupe:${eventId}`);
    } finally {
      await redis.quit();
    }
    expect((await receiver.receiver.cache.get(rr.id))?.stage).toBe("request_sent");
  });
});
