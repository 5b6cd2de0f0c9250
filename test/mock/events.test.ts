/** GET /v2/events and GET /v2/events/{id} of the reference server, over plain fetch. */
import { describe, expect, it } from "vitest";
import type { EventLogEntry } from "../../src/mock/model/event-log.js";
import type { ListEnvelope } from "../../src/schemas/common.js";
import {
  ACTION_REQUIRED,
  actionRequired,
  DOCUMENTS_AVAILABLE,
  documentsAvailable,
  ids,
  STATUS_CHANGED,
  statusChanged,
  WEBHOOK_DISABLED,
  webhookDisabled,
} from "../helpers/events.js";
import { type Api, createApi, expectError, REQUEST_ID, START, setup } from "./helpers.js";

type EventPage = ListEnvelope<EventLogEntry>;

const DAY = 86_400_000;

async function list(api: Api, query = ""): Promise<EventPage> {
  const response = await api.get<EventPage>(`/v2/events${query}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

/** Follows `next` from `first` and returns every page. */
async function walk(api: Api, first: string): Promise<EventPage[]> {
  const pages: EventPage[] = [];
  let url: string | null = first;
  while (url !== null) {
    const response: { status: number; body: EventPage } = await api.get<EventPage>(url);
    expect(response.status).toBe(200);
    pages.push(response.body);
    url = response.body.next;
  }
  return pages;
}

describe("event log entries", () => {
  it("are the webhook body plus object, api_version and request_id, listed and read by id", async () => {
    const { mock, api } = setup();
    const emitted = statusChanged(mock, "rr_7", { requestId: "req_abc" });
    const page = await list(api);
    expect(page).toEqual({ results: [emitted], next: null, previous: null });
    expect(emitted).toEqual({
      id: expect.stringMatching(/^rr-[0-9a-f]{64}$/),
      object: "event",
      type: STATUS_CHANGED,
      created_at: START,
      api_version: "v2",
      request_id: "req_abc",
      data: {
        retrieval_request_id: "rr_7",
        case_id: null,
        public_updated_at: START,
        status: "processing",
        stage: "request_sent",
        action_required_reason: null,
      },
    });
    const one = await api.get(`/v2/events/${emitted.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(emitted);
    expect(one.headers.get("x-request-id")).toMatch(REQUEST_ID);
  });

  it("answers with the mock clock in the Date header", async () => {
    const { mock, api } = setup();
    mock.clock.advance("3h");
    const response = await api.get("/v2/events");
    expect(response.headers.get("date")).toBe(
      new Date(Date.parse(START) + 3 * 3_600_000).toUTCString(),
    );
  });

  it("404s an unknown id and refuses query parameters on the read", async () => {
    const { mock, api } = setup();
    const event = statusChanged(mock);
    expectError(await api.get("/v2/events/rr-nope"), 404, "not_found");
    expectError(await api.get(`/v2/events/${event.id}?type=x`), 400, "validation_error");
  });
});

describe("order and pagination", () => {
  it("lists newest first; equal created_at in reverse log order", async () => {
    const { mock, api } = setup();
    const a = statusChanged(mock, "rr_a");
    const b = statusChanged(mock, "rr_b"); // same instant as a
    mock.clock.advance(1);
    const c = statusChanged(mock, "rr_c");
    expect(ids((await list(api)).results)).toEqual(ids([c, b, a]));
  });

  it("orders by created_at, not by when the entry was written", async () => {
    const { mock, api } = setup();
    mock.clock.advance("10s");
    const later = statusChanged(mock);
    // The engine logs webhook.disabled at its failed attempt's time, earlier than `later`.
    const disabled = webhookDisabled(mock, "wh_1", Date.parse(START) + 5_000);
    expect(ids((await list(api)).results)).toEqual(ids([later, disabled]));
    const pages = await walk(api, "/v2/events?limit=1");
    expect(pages.flatMap((p) => ids(p.results))).toEqual(ids([later, disabled]));
  });

  it("walks many ties across page boundaries forward and back without loss or repetition", async () => {
    const { mock, api } = setup();
    const emitted: EventLogEntry[] = [];
    for (let i = 0; i < 23; i++) {
      emitted.push(statusChanged(mock, `rr_${i}`));
      if (i % 7 === 6) mock.clock.advance(1); // groups of 7 at one instant straddle pages of 3
    }
    const newestFirst = ids(emitted).reverse();
    const pages = await walk(api, "/v2/events?limit=3");
    expect(pages.map((p) => p.results.length)).toEqual([3, 3, 3, 3, 3, 3, 3, 2]);
    expect(pages.flatMap((p) => ids(p.results))).toEqual(newestFirst);
    expect(pages[0]?.previous).toBeNull();
    expect(pages.at(-1)?.next).toBeNull();

    // Back with previous from the last page: the same pages.
    const back: EventPage[] = [pages.at(-1) as EventPage];
    for (let url = back[0]?.previous ?? null; url !== null; ) {
      const page: EventPage = await list(api, url.slice(url.indexOf("?")));
      back.unshift(page);
      url = page.previous;
    }
    expect(back.map((p) => ids(p.results))).toEqual(pages.map((p) => ids(p.results)));
  });

  it("neither skips nor repeats when events are logged during a walk", async () => {
    const { mock, api } = setup();
    const first = [statusChanged(mock, "rr_1"), statusChanged(mock, "rr_2")];
    const page1 = await list(api, "?limit=1");
    statusChanged(mock, "rr_3"); // at the same instant, newer in the log
    const page2 = await list(api, new URL(page1.next as string).search);
    expect([...ids(page1.results), ...ids(page2.results)]).toEqual(ids(first).reverse());
    expect(page2.next).toBeNull();
  });

  it("gives absolute next and previous links that keep every filter and the limit", async () => {
    const { mock, api, key } = setup();
    for (let i = 0; i < 5; i++) statusChanged(mock, "rr_x");
    const query = `?type=${STATUS_CHANGED}&object_id=rr_x&created_after=2026-01-01T00:00:00Z&limit=2`;
    const page = await list(api, query);
    const next = new URL(page.next as string);
    expect(next.origin + next.pathname).toBe(`${mock.baseUrl}/v2/events`);
    expect(Object.fromEntries(next.searchParams)).toMatchObject({
      type: STATUS_CHANGED,
      object_id: "rr_x",
      created_after: "2026-01-01T00:00:00Z",
      limit: "2",
      cursor: expect.any(String),
    });
    const second = await createApi(mock, key).get<EventPage>(page.next as string);
    expect(new URL(second.body.previous as string).searchParams.get("type")).toBe(STATUS_CHANGED);
  });

  it("defaults to 25 per page and accepts 1 to 100", async () => {
    const { mock, api } = setup();
    for (let i = 0; i < 101; i++) statusChanged(mock, `rr_${i}`);
    expect((await list(api)).results).toHaveLength(25);
    expect((await list(api, "?limit=1")).results).toHaveLength(1);
    expect((await list(api, "?limit=100")).results).toHaveLength(100);
    expectError(await api.get("/v2/events?limit=0"), 400, "validation_error");
    expectError(await api.get("/v2/events?limit=101"), 400, "validation_error");
    expectError(await api.get("/v2/events?cursor=bogus"), 400, "validation_error");
    expectError(await api.get("/v2/events?unknown=1"), 400, "validation_error");
  });
  it("refuses a cursor of another list, even when the filtered list is empty", async () => {
    const { mock, api } = setup();
    for (let i = 0; i < 3; i++) {
      statusChanged(mock, "rr_x");
      await api.post("/v2/cases", { title: `Case ${i}`, client_name: "Jane Doe" });
    }
    const casePage = await api.get<{ next: string }>("/v2/cases?limit=1");
    const caseCursor = new URL(casePage.body.next).searchParams.get("cursor");
    expectError(await api.get(`/v2/events?cursor=${caseCursor}`), 400, "validation_error");

    const eventPage = await list(api, "?limit=1");
    const eventCursor = new URL(eventPage.next as string).searchParams.get("cursor");
    const empty = await list(api, `?object_id=rr_none&cursor=${eventCursor}`);
    expect(empty.results).toEqual([]);
    expectError(await api.get(`/v2/cases?cursor=${eventCursor}`), 400, "validation_error");
  });
});

describe("filters", () => {
  it("type: one or several, comma-separated", async () => {
    const { mock, api } = setup();
    const s = statusChanged(mock);
    const a = actionRequired(mock);
    const d = documentsAvailable(mock);
    const w = webhookDisabled(mock);
    expect(ids((await list(api, `?type=${ACTION_REQUIRED}`)).results)).toEqual([a.id]);
    expect(ids((await list(api, `?type=${STATUS_CHANGED},${WEBHOOK_DISABLED}`)).results)).toEqual(
      ids([w, s]),
    );
    expect(ids((await list(api)).results)).toEqual(ids([w, d, a, s]));
  });

  it("type: up to 20 names; 21 is refused, as are unknown and empty names", async () => {
    const { mock, api } = setup();
    statusChanged(mock);
    const twenty = Array.from({ length: 20 }, () => STATUS_CHANGED).join(",");
    expect((await list(api, `?type=${twenty}`)).results).toHaveLength(1);
    const message = expectError(
      await api.get(`/v2/events?type=${twenty},${DOCUMENTS_AVAILABLE}`),
      400,
      "validation_error",
    );
    expect(message).toMatch(/^type: .*20/);
    expect(
      expectError(await api.get("/v2/events?type=retrieval_request.nope"), 400, "validation_error"),
    ).toMatch(/^type: Unknown event type "retrieval_request\.nope"/);
    expectError(await api.get("/v2/events?type="), 400, "validation_error");
    expectError(await api.get(`/v2/events?type=${STATUS_CHANGED},`), 400, "validation_error");
  });

  it("created_after is inclusive and created_before exclusive, to the millisecond and below", async () => {
    const { mock, api } = setup();
    const t0 = statusChanged(mock, "rr_0");
    mock.clock.advance(1);
    const t1 = statusChanged(mock, "rr_1");
    mock.clock.advance(1);
    const t2 = statusChanged(mock, "rr_2");
    const at = (event: EventLogEntry) => encodeURIComponent(event.created_at);
    // An event exactly at created_after is in; one exactly at created_before is out.
    expect(ids((await list(api, `?created_after=${at(t0)}`)).results)).toEqual(ids([t2, t1, t0]));
    expect(ids((await list(api, `?created_after=${at(t1)}`)).results)).toEqual(ids([t2, t1]));
    expect(ids((await list(api, `?created_before=${at(t2)}`)).results)).toEqual(ids([t1, t0]));
    expect(
      ids((await list(api, `?created_after=${at(t0)}&created_before=${at(t2)}`)).results),
    ).toEqual(ids([t1, t0]));
    expect(
      ids((await list(api, `?created_after=${at(t1)}&created_before=${at(t2)}`)).results),
    ).toEqual([t1.id]);
    expect((await list(api, `?created_after=${at(t1)}&created_before=${at(t1)}`)).results).toEqual(
      [],
    );
    // 10:00:00.0005 lies between t0 (.000) and t1 (.001).
    expect(ids((await list(api, "?created_after=2026-03-01T10:00:00.0005Z")).results)).toEqual(
      ids([t2, t1]),
    );
    expect(ids((await list(api, "?created_before=2026-03-01T10:00:00.0005Z")).results)).toEqual([
      t0.id,
    ]);
    // t0's instant written with an offset.
    expect(
      ids(
        (await list(api, `?created_after=${encodeURIComponent("2026-03-01T12:00:00.000+02:00")}`))
          .results,
      ),
    ).toEqual(ids([t2, t1, t0]));
    expectError(await api.get("/v2/events?created_after=yesterday"), 400, "validation_error");
    expectError(await api.get("/v2/events?created_before=2026-03-01"), 400, "validation_error");
  });

  it("object_id matches a retrieval request id or a webhook id", async () => {
    const { mock, api } = setup();
    const s = statusChanged(mock, "rr_1");
    statusChanged(mock, "rr_2");
    const a = actionRequired(mock, "rr_1");
    const w = webhookDisabled(mock, "wh_9");
    expect(ids((await list(api, "?object_id=rr_1")).results)).toEqual(ids([a, s]));
    expect(ids((await list(api, "?object_id=wh_9")).results)).toEqual([w.id]);
    expect((await list(api, "?object_id=nothing")).results).toEqual([]);
  });
});

describe("retention", () => {
  it("keeps an event exactly 30 days and drops it one second later, from list and read", async () => {
    const { mock, api } = setup();
    const old = statusChanged(mock, "rr_old");
    mock.clock.advance("1d");
    const recent = statusChanged(mock, "rr_recent");
    mock.clock.set(Date.parse(START) + 30 * DAY);
    expect(ids((await list(api)).results)).toEqual(ids([recent, old]));
    expect((await api.get(`/v2/events/${old.id}`)).status).toBe(200);

    mock.clock.advance("1s");
    expect(ids((await list(api)).results)).toEqual([recent.id]);
    expectError(await api.get(`/v2/events/${old.id}`), 404, "not_found");
    expect((await list(api, "?object_id=rr_old")).results).toEqual([]);
    // Gone for good, even if the clock is set back.
    mock.clock.set(START);
    expectError(await api.get(`/v2/events/${old.id}`), 404, "not_found");
  });
});

describe("scopes", () => {
  it("needs webhooks:read", async () => {
    const { mock } = setup();
    const event = statusChanged(mock);
    const api = createApi(mock, mock.apiKeys.create({ scopes: ["retrievals:read"] }));
    expect(expectError(await api.get("/v2/events"), 403, "insufficient_scope")).toMatch(
      "webhooks:read",
    );
    expectError(await api.get(`/v2/events/${event.id}`), 403, "insufficient_scope");
  });

  it("leaves out retrieval events without retrievals:read, and 403s asking for them by type", async () => {
    const { mock } = setup();
    const s = statusChanged(mock);
    const w = webhookDisabled(mock);
    const api = createApi(mock, mock.apiKeys.create({ scopes: ["webhooks:read"] }));
    expect(ids((await list(api)).results)).toEqual([w.id]);
    expect(ids((await list(api, `?type=${WEBHOOK_DISABLED}`)).results)).toEqual([w.id]);
    expect((await list(api, "?object_id=rr_1")).results).toEqual([]);
    const message = expectError(
      await api.get(`/v2/events?type=${WEBHOOK_DISABLED},${STATUS_CHANGED}`),
      403,
      "insufficient_scope",
    );
    expect(message).toMatch("retrievals:read");
    expect(expectError(await api.get(`/v2/events/${s.id}`), 403, "insufficient_scope")).toMatch(
      "retrievals:read",
    );
    expect((await api.get(`/v2/events/${w.id}`)).status).toBe(200);
  });

  it("lists every family with webhooks:read and retrievals:read", async () => {
    const { mock } = setup();
    const s = statusChanged(mock);
    const w = webhookDisabled(mock);
    const api = createApi(
      mock,
      mock.apiKeys.create({ scopes: ["webhooks:read", "retrievals:read"] }),
    );
    expect(ids((await list(api)).results)).toEqual(ids([w, s]));
  });
});
