/**
 * Written as a user's test suite composes the toolkit (DESIGN 11.1): one
 * webhook receiver for the whole file, with its dedupe store kept across
 * tests, fed in-process by the mock (`deliverTo`); each test files a
 * retrieval request, moves the mock's clock on by hours or days, and has the
 * provider release records. Then a poller that follows the log after days of
 * mock time. Inside MSW and over HTTP alike.
 *
 * Each of the traps of issue 25 fails one of these tests without its fix:
 * the handler judging timestamps by this machine's clock (no `now: t.now`),
 * ids handed out again after the kit's restore (the second test's event
 * swallowed as a duplicate), the poller refusing a checkpoint ahead of this
 * machine's clock.
 */
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type AnyEvent, MedRecords, memoryCheckpoint } from "../../src/index.js";
import { useMockService } from "../../src/testing/index.js";
import { createWebhookHandler, memoryDedupeStore } from "../../src/webhooks/index.js";

const hooks = { beforeAll, afterAll, afterEach };
const PDF = { file_name: "records.pdf", file_type: "application/pdf", content: "%PDF-1.7 records" };

describe.each([
  ["inside MSW", { setupServer }],
  ["over HTTP", {}],
])("a user's suite %s", (_, transport) => {
  let secret = "";
  const t = useMockService({
    hooks,
    ...transport,
    // The webhook is part of the baseline: every test has it.
    seed: async (mock, { apiKey }) => {
      const mr = new MedRecords({ apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch });
      const hook = await mr.webhooks.create({
        name: "app",
        url: "https://app.example.test/webhooks/medrecords",
        events: ["retrieval_request.documents_available"],
      });
      secret = hook.secret;
    },
  });

  // One receiver, one dedupe store, for the whole file.
  const released: string[] = [];
  const dedupe = memoryDedupeStore();
  beforeAll(() => {
    t.deliverTo(
      createWebhookHandler({
        secret,
        dedupe,
        on: {
          "retrieval_request.documents_available": (event) => {
            released.push(event.data.retrieval_request_id);
          },
        },
      }),
    );
  });

  /** What each test does: file a request, let time pass, release its records; the receiver processes it. */
  async function fileAndRelease(advance: string): Promise<string> {
    const before = released.length;
    const mr = t.client();
    const c = await mr.cases.create({ title: "Doe v. Acme", client_name: "Jane Doe" });
    const request = t.mock.seed.retrievalRequest({
      case_id: c.id,
      status: "processing",
      stage: "provider_processing",
    });
    t.mock.clock.advance(advance);
    t.mock.retrievalRequests.releaseRecords(request.id, [PDF]);
    const flushed = await t.mock.deliveries.flush();
    expect(flushed).toEqual({ attempted: 1, succeeded: 1, failed: [] });
    // Processed, not answered 200 as a duplicate of an earlier test's event.
    expect(released.slice(before)).toEqual([request.id]);
    return request.id;
  }

  it("the first test's event is processed after 2 h of mock time", async () => {
    await fileAndRelease("2h");
  });

  it("the second test's event too, though the kit restored the baseline in between", async () => {
    await fileAndRelease("13h");
  });

  it("and the third's, after days; no two tests shared a request id", async () => {
    await fileAndRelease("3d");
    expect(new Set(released).size).toBe(released.length);
  });

  it("a poller follows the log after days of mock time, run after run", async () => {
    const mr = t.client();
    const checkpoint = memoryCheckpoint();
    const seen: AnyEvent[] = [];
    const poller = mr.events.catchUp({ checkpoint, onEvent: (event) => void seen.push(event) });
    const first = await fileAndRelease("2d");
    expect((await poller.runOnce()).processed).toBeGreaterThan(0);
    // The checkpoint is now days ahead of this machine's clock; the service's clock decides.
    t.mock.clock.advance("5d");
    const second = await fileAndRelease("13h");
    const run = await poller.runOnce();
    expect(run.processed).toBeGreaterThan(0);
    const ids = seen.map((e) => (e.data as { retrieval_request_id?: string }).retrieval_request_id);
    expect(ids).toContain(first);
    expect(ids).toContain(second);
  });
});

describe("the kit's deliverTo, client and now, outside a suite's flow", () => {
  // Called at the top of the file, before the mock started: it applies once it does.
  const received: string[] = [];
  const t = useMockService({ hooks });
  t.deliverTo(async (request) => {
    received.push(JSON.parse(await request.text()).type);
    return new Response(null, { status: 204 });
  });

  it("delivers in-process from the first test; client() and now() are the mock's", async () => {
    const mr = t.client({ maxRetries: 0 });
    expect(mr.baseUrl).toBe(t.baseUrl);
    const hook = await mr.webhooks.create({
      name: "kit",
      url: "https://kit.example.test/hooks",
      events: ["retrieval_request.status_changed"],
    });
    expect((await mr.webhooks.test(hook.id)).success).toBe(true);
    expect(received).toEqual(["webhook.test"]);
    const before = t.now();
    t.mock.clock.advance("1d");
    expect(t.now() - before).toBe(86_400_000);
    expect(t.now()).toBe(t.mock.clock.now().getTime());
  });

  it("refuses a deliverTo that is not a handler", () => {
    expect(() => t.deliverTo("https://example.test" as never)).toThrow(/Fetch-style handler/);
  });
});
