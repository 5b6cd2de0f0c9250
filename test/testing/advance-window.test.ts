/**
 * DESIGN 12.1, composed as a user's suite composes it: the kit with the
 * autopilot, one receiver made by createWebhookHandler with no `now`
 * anywhere, and one awaited `t.advance("13h")` that takes a retrieval
 * request through its whole life. Inside MSW and over HTTP alike.
 */
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type AnyEvent, MedRecords } from "../../src/index.js";
import { SUBSCRIBABLE_EVENT_TYPES } from "../../src/schemas/events.js";
import { useMockService } from "../../src/testing/index.js";
import { createWebhookHandler, memoryDedupeStore } from "../../src/webhooks/index.js";
import { fileRetrievalRequest } from "../helpers/file-retrieval-request.js";

const hooks = { beforeAll, afterAll, afterEach };

describe.each([
  ["inside MSW", { setupServer }],
  ["over HTTP", {}],
])("one awaited t.advance %s", (_, transport) => {
  let secret = "";
  const t = useMockService({
    hooks,
    ...transport,
    autopilot: true,
    seed: async (mock, { apiKey }) => {
      const mr = new MedRecords({ apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch });
      const hook = await mr.webhooks.create({
        name: "app",
        url: "https://app.example.test/webhooks/medrecords",
        events: [...SUBSCRIBABLE_EVENT_TYPES],
      });
      secret = hook.secret;
    },
  });
  const processed: string[] = [];
  const dedupe = memoryDedupeStore();
  beforeAll(() => {
    const record = (event: AnyEvent) => void processed.push(event.id);
    const on = Object.fromEntries(SUBSCRIBABLE_EVENT_TYPES.map((type) => [type, record]));
    // As docs/testing.md shows it: no `now` option.
    t.deliverTo(createWebhookHandler({ secret, dedupe, on }));
  });

  it("completes the request, and the receiver processes every event of it exactly once", async () => {
    const mr = t.client();
    const id = await fileRetrievalRequest(mr);
    const before = processed.length;
    const result = await t.advance("13h");
    expect(result.failed).toEqual([]);
    expect(result.succeeded).toBe(result.attempted);
    expect(result.now.getTime()).toBe(t.now());
    expect((await mr.retrievalRequests.retrieve(id)).status).toBe("completed");
    const logged: string[] = [];
    for await (const event of mr.events.list({ object_id: id })) logged.push(event.id);
    // Every retrieval event type of the request's life, each handled once, none twice.
    expect(logged.length).toBeGreaterThanOrEqual(SUBSCRIBABLE_EVENT_TYPES.length);
    expect([...processed.slice(before)].sort()).toEqual([...logged].sort());
    expect(result.attempted).toBe(logged.length);
  });

  it("code that does not await advance sees the clock moved and the request's life run at once", async () => {
    const mr = t.client();
    const id = await fileRetrievalRequest(mr);
    const before = t.now();
    const pending = t.advance("13h");
    expect(t.now() - before).toBe(13 * 3_600_000);
    expect((await mr.retrievalRequests.retrieve(id)).status).toBe("completed");
    // The deliveries follow, in order: awaiting later still resolves to them.
    const { failed, attempted } = await pending;
    expect(failed).toEqual([]);
    expect(attempted).toBeGreaterThanOrEqual(SUBSCRIBABLE_EVENT_TYPES.length);
  });
});
