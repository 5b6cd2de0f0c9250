import { describe, expect, it } from "vitest";
import { createMockService } from "../../src/mock/index.js";
import { createApi, START, setup } from "./helpers.js";

/** What a test can observe of the state: every case and retrieval request, and the clock. */
async function observe(api: ReturnType<typeof createApi>, mock: { clock: { now(): Date } }) {
  const cases = await api.get<{ results: { id: string }[] }>("/v2/cases?limit=100");
  const requests = await api.get<{ results: unknown[] }>("/v2/retrieval-requests?limit=100");
  return { cases: cases.body.results, requests: requests.body.results, now: mock.clock.now() };
}

describe("mock.snapshot / mock.restore", () => {
  it("brings back state and clock after further changes, and can be restored twice", async () => {
    const { mock, api } = setup();
    mock.seed.case({ title: "Kept v. Snapshot" });
    mock.seed.retrievalRequest({ status: "processing", records: 1 });
    const saved = await observe(api, mock);
    const snapshot = mock.snapshot();

    mock.seed.case({ title: "Later v. Change" });
    mock.clock.advance("2h");
    const rr = saved.requests[0] as { id: string };
    mock.retrievalRequests.complete(rr.id);
    expect(await observe(api, mock)).not.toEqual(saved);

    mock.restore(snapshot);
    expect(await observe(api, mock)).toEqual(saved);
    mock.seed.case();
    mock.clock.advance("1d");
    mock.restore(snapshot);
    expect(await observe(api, mock)).toEqual(saved);
  });

  it("restores a resource first used after the snapshot to empty, the facility directory to its seed, and lists that keep up with later changes", async () => {
    const { mock, api } = setup();
    // Taken before anything was used: every model slice is created after it.
    const snapshot = mock.snapshot();
    mock.seed.case({ title: "After v. Snapshot", external_id: "ext-1" });
    mock.seed.retrievalRequest({ status: "pending", facility_id: "fac_mercy_general" });
    mock.restore(snapshot);

    expect((await observe(api, mock)).cases).toEqual([]);
    expect((await observe(api, mock)).requests).toEqual([]);
    const mercy = await api.get<{ results: { id: string }[] }>("/v2/facilities?query=mercy");
    expect(mercy.body.results.map((f) => f.id)).toEqual(["fac_mercy_general"]);

    const kept = mock.seed.case({ title: "Kept v. Restore", external_id: "ext-1" });
    const other = mock.seed.case({ title: "Other v. Restore", external_id: "ext-2" });
    const byExternalId = await api.get<{ results: { id: string }[] }>(
      "/v2/cases?external_id=ext-1",
    );
    expect(byExternalId.body.results.map((c) => c.id)).toEqual([kept.id]);
    const all = await api.get<{ results: { id: string }[] }>("/v2/cases");
    expect(all.body.results.map((c) => c.id)).toEqual([other.id, kept.id]);
  });

  it("never hands out an id again after a restore: the id sequence does not roll back", () => {
    const { mock } = setup();
    const snapshot = mock.snapshot();
    const first = mock.seed.retrievalRequest({ status: "pending" });
    mock.restore(snapshot);
    const second = mock.seed.retrievalRequest({ status: "pending" });
    expect(second.id).not.toBe(first.id);
    expect(second.case_id).not.toBe(first.case_id);
  });

  it("brings back the API keys: a key minted later stops working, the earlier one keeps working", async () => {
    const { mock, key } = setup();
    const snapshot = mock.snapshot();
    const later = mock.apiKeys.create();
    expect((await createApi(mock, later).get("/v2/cases")).status).toBe(200);
    mock.restore(snapshot);
    expect((await createApi(mock, later).get("/v2/cases")).status).toBe(401);
    expect((await createApi(mock, key).get("/v2/cases")).status).toBe(200);
  });

  it("is unaffected by mutations made after it was taken, including through returned objects", async () => {
    const { mock, api } = setup();
    const c = mock.seed.case({ title: "Before" });
    const snapshot = mock.snapshot();
    await api.patch(`/v2/cases/${c.id}`, { title: "After" });
    mock.restore(snapshot);
    await api.patch(`/v2/cases/${c.id}`, { title: "After again" });
    mock.restore(snapshot);
    expect((await api.get<{ title: string }>(`/v2/cases/${c.id}`)).body.title).toBe("Before");
  });

  it("brings back the delivery inbox", () => {
    const mock = createMockService({ now: START, delivery: "inbox" });
    mock.deliveries.inbox.push({
      url: "https://hooks.example/a",
      headers: {},
      body: "{}",
      webhookId: "wh_1",
      eventId: "evt_1",
      attempt: 1,
    });
    const snapshot = mock.snapshot();
    mock.reset();
    expect(mock.deliveries.inbox).toHaveLength(0);
    mock.restore(snapshot);
    expect(mock.deliveries.inbox.map((d) => d.eventId)).toEqual(["evt_1"]);
  });

  it("moves the clock back to the snapshot's time without running anything scheduled in between", () => {
    const { mock } = setup();
    const snapshot = mock.snapshot();
    let ran = 0;
    mock.clock.schedule(Date.parse(START) + 60_000, () => {
      ran += 1;
    });
    mock.restore(snapshot);
    mock.clock.advance("1h");
    expect(ran).toBe(0);
    expect(mock.clock.now().toISOString()).toBe("2026-03-01T11:00:00.000Z");
  });

  it("refuses a value that is not a snapshot of this mock", () => {
    const { mock } = setup();
    const other = setup().mock.snapshot();
    expect(() => mock.restore(other)).toThrow(/another mock service/);
    expect(() => mock.restore({} as never)).toThrow(/expected a value returned by mock.snapshot/);
  });
});
