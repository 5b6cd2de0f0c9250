/**
 * Ids never repeat (DESIGN 11.1): every id a service hands out is new, across
 * `reset()` and `restore()` too (a sequence that never rolls back), and two
 * services share none unless created with the same `idSeed`, which makes
 * them hand out the same ids for the same calls.
 */
import { describe, expect, it } from "vitest";
import { createMockService, type MockService } from "../../src/mock/index.js";
import type { WebhookDelivery } from "../../src/schemas/webhooks.js";
import { eventLogForTesting } from "../helpers/mock-internals.js";
import { type Api, createApi, createCase, START, uploadDocument } from "./helpers.js";
import { createRetrieval, retrievalUpload } from "./retrieval-helpers.js";

/** One id of every kind the mock hands out, by calls a test suite makes. */
async function everyKind(mock: MockService, api: Api): Promise<Record<string, string>> {
  const c = await createCase(api);
  const doc = await uploadDocument(mock, api, c.id);
  const upload = await retrievalUpload(mock, api);
  const r = await createRetrieval(mock, api);
  const action = mock.retrievalRequests.openActionRequest(r.id, {
    reason: "additional_information_needed",
    message: "Which dates?",
  });
  const requestor = await api.post<{ id: string }>("/v2/requestors", {
    name: "Bo Paralegal",
    email: "bo@firm.example",
  });
  const hook = await api.post<{ id: string }>("/v2/webhooks", {
    name: `Hook ${c.id}`,
    url: "https://hooks.example.test/h",
    events: ["retrieval_request.status_changed"],
  });
  mock.retrievalRequests.setStatus(r.id, { status: "processing", stage: "provider_processing" });
  await mock.deliveries.flush();
  const deliveries = await api.get<{ results: WebhookDelivery[] }>(
    `/v2/webhooks/${hook.body.id}/deliveries`,
  );
  const events = eventLogForTesting(mock);
  return {
    case: c.id,
    document: doc.id,
    upload,
    retrieval_request: r.id,
    action_request: action.id,
    requestor: requestor.body.id,
    webhook: hook.body.id,
    delivery: deliveries.body.results[0]?.id as string,
    event: events.at(-1)?.id as string,
  };
}

function service(idSeed?: string) {
  const mock = createMockService({
    now: START,
    delivery: "inbox",
    lookupHost: async () => ["93.184.215.14"],
    ...(idSeed === undefined ? {} : { idSeed }),
  });
  return { mock, api: createApi(mock, mock.apiKeys.create()) };
}

function expectDisjoint(a: Record<string, string>, b: Record<string, string>) {
  for (const kind of Object.keys(a)) {
    expect(a[kind], kind).toEqual(expect.any(String));
    expect(b[kind], kind).not.toBe(a[kind]);
  }
}

describe("ids never repeat", () => {
  it("within a service, across restore() and reset(): every kind", async () => {
    const { mock, api } = service();
    const snapshot = mock.snapshot();
    const first = await everyKind(mock, api);
    mock.restore(snapshot);
    const afterRestore = await everyKind(mock, api);
    mock.reset();
    const afterReset = await everyKind(mock, api);
    expectDisjoint(first, afterRestore);
    expectDisjoint(first, afterReset);
    expectDisjoint(afterRestore, afterReset);
  });

  it("across two services (two files, a restarted mock) without an idSeed", async () => {
    const a = service();
    const b = service();
    expectDisjoint(await everyKind(a.mock, a.api), await everyKind(b.mock, b.api));
  });

  it("the same idSeed and the same calls give the same ids, events included", async () => {
    const run = async (idSeed: string) => {
      const { mock, api } = service(idSeed);
      const ids = await everyKind(mock, api);
      return { ids, events: eventLogForTesting(mock).map((e) => e.id) };
    };
    const first = await run("reproducible");
    expect(await run("reproducible")).toEqual(first);
    expectDisjoint(first.ids, (await run("another")).ids);
  });

  it("keeps the id shapes of the spec and of docs/spec-decisions.md", async () => {
    const { mock, api } = service();
    const ids = await everyKind(mock, api);
    expect(ids).toEqual({
      case: expect.stringMatching(/^case_[0-9A-Za-z]{24}$/),
      document: expect.stringMatching(/^doc_[0-9A-Za-z]{24}$/),
      upload: expect.stringMatching(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      ),
      retrieval_request: expect.stringMatching(/^ret_[0-9a-f]{24}$/),
      action_request: expect.stringMatching(/^ar_[0-9a-f]{24}$/),
      requestor: expect.stringMatching(/^rqtr_[0-9a-f]{24}$/),
      webhook: expect.stringMatching(/^wh_[0-9A-Za-z]{24}$/),
      delivery: expect.stringMatching(/^whdel_[0-9A-Za-z]{24}$/),
      event: expect.stringMatching(/^rr-[0-9a-f]{64}$/),
    });
  });

  it("refuses an idSeed that is not a non-empty string", () => {
    expect(() => createMockService({ idSeed: "" })).toThrow(/idSeed/);
    expect(() => createMockService({ idSeed: 7 as never })).toThrow(/idSeed/);
  });
});
