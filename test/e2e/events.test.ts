/**
 * The event log through the client, with `validateResponses: true`, against
 * the reference server inside MSW: listing, filters, retention, scopes, and
 * the catch-up poller on a checkpoint file.
 */
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import {
  type AnyEvent,
  type EventLogGap,
  fileCheckpoint,
  isKnownEvent,
  MedRecords,
  NotFoundError,
  PermissionError,
  ResponseValidationError,
  ValidationError,
} from "../../src/index.js";
import {
  ACTION_REQUIRED,
  actionRequired,
  documentsAvailable,
  STATUS_CHANGED,
  statusChanged,
  WEBHOOK_DISABLED,
  webhookDisabled,
} from "../helpers/events.js";
import { emitEventForTesting } from "../helpers/mock-internals.js";
import { tempDir } from "../poller/helpers.js";
import { useReferenceServers } from "./transport.js";

const NOW = "2026-06-15T12:00:00.000Z";
const {
  services: { mock },
  expectOpenApiMismatch,
} = await useReferenceServers({ mock: { now: NOW, delivery: "inbox" } });
const apiKey = mock.apiKeys.create();
let sent: string[] = [];
const client = (key = apiKey) =>
  new MedRecords({
    apiKey: key,
    baseUrl: mock.baseUrl,
    validateResponses: true,
    maxRetries: 0,
    hooks: { onRequest: (info) => sent.push(`${info.method} ${info.path}`) },
  });
const mr = client();

beforeEach(() => {
  mock.reset();
  mock.clock.set(NOW);
  sent = [];
});

const idsOf = (events: readonly { id: string }[]) => events.map((e) => e.id);

describe("mr.events.list and retrieve", () => {
  it("lists every family newest first, each entry parsed against its schema", async () => {
    const s = statusChanged(mock, "rr_1", { requestId: "req_1" });
    const a = actionRequired(mock, "rr_1");
    const d = documentsAvailable(mock, "rr_2");
    const w = webhookDisabled(mock, "wh_1");
    const page = await mr.events.list();
    expect(idsOf(page.results)).toEqual(idsOf([w, d, a, s]));
    expect(page.results.every(isKnownEvent)).toBe(true);
    const first = page.results.at(-1) as AnyEvent;
    if (!isKnownEvent(first) || first.type !== STATUS_CHANGED)
      throw new Error("expected status_changed");
    expect(first.data.status).toBe("processing");
    expect(first.request_id).toBe("req_1");
    expect(await mr.events.retrieve(a.id)).toEqual(a);
  });

  it("iterates every page with for await, and filters by type, time and object", async () => {
    const emitted = [];
    for (let i = 0; i < 7; i++) {
      emitted.push(statusChanged(mock, `rr_${i % 2}`));
      mock.clock.advance("1s");
    }
    actionRequired(mock, "rr_0");
    const all: string[] = [];
    for await (const event of mr.events.list({ type: [STATUS_CHANGED], limit: 2 }))
      all.push(event.id);
    expect(all).toEqual(idsOf(emitted).reverse());
    expect(sent.filter((s) => s === "GET /v2/events")).toHaveLength(4);

    const between = await mr.events.list({
      created_after: new Date(Date.parse(NOW) + 1_000),
      created_before: emitted[4]?.created_at,
      object_id: "rr_0",
    });
    expect(idsOf(between.results)).toEqual(idsOf([emitted[2] as AnyEvent]));
    const both = await mr.events.list({
      type: `${STATUS_CHANGED},${ACTION_REQUIRED}`,
      object_id: "rr_0",
    });
    expect(both.results).toHaveLength(5);
  });

  it("accepts 20 types and refuses 21 before sending", async () => {
    statusChanged(mock);
    const twenty = Array.from({ length: 20 }, () => STATUS_CHANGED);
    expect((await mr.events.list({ type: twenty })).results).toHaveLength(1);
    sent = [];
    const error = await mr.events
      .list({ type: [...twenty, WEBHOOK_DISABLED] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues[0]?.path).toBe("type");
    expect(sent).toEqual([]);
  });

  it("passes an event of a type unknown to this SDK, but not a known type with bad data", async () => {
    const future = emitEventForTesting(mock, "retrieval_request.archived", {
      retrieval_request_id: "rr_1",
    });
    const [event] = (await mr.events.list()).results;
    expect(event).toEqual(future);
    expect(isKnownEvent(event as AnyEvent)).toBe(false);

    mock.reset();
    emitEventForTesting(mock, STATUS_CHANGED, { retrieval_request_id: "rr_1" });
    expectOpenApiMismatch();
    await expect(mr.events.list()).rejects.toBeInstanceOf(ResponseValidationError);
  });

  it("forgets events after 30 days: present at 30 days, NotFoundError one second later", async () => {
    const event = statusChanged(mock);
    mock.clock.advance("30d");
    expect((await mr.events.retrieve(event.id)).id).toBe(event.id);
    mock.clock.advance("1s");
    await expect(mr.events.retrieve(event.id)).rejects.toBeInstanceOf(NotFoundError);
    expect((await mr.events.list()).results).toEqual([]);
  });

  it("leaves out what the key cannot read and refuses asking for it", async () => {
    statusChanged(mock);
    const w = webhookDisabled(mock);
    const limited = client(mock.apiKeys.create({ scopes: ["webhooks:read"] }));
    expect(idsOf((await limited.events.list()).results)).toEqual([w.id]);
    const error = await limited.events.list({ type: [STATUS_CHANGED] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionError);
    expect((error as PermissionError).message).toMatch("retrievals:read");
  });
});

describe("mr.events.catchUp over MSW", () => {
  it("catches up oldest first on a checkpoint file, resumes after a restart, and reports a gap", async () => {
    const dir = await tempDir();
    try {
      const path = join(dir.path, "checkpoint.json");
      const seen: string[] = [];
      const gaps: EventLogGap[] = [];
      const make = () =>
        mr.events.catchUp({
          checkpoint: fileCheckpoint(path),
          pageSize: 3,
          onEvent: (e) => void seen.push(e.id),
          onGap: (gap) => void gaps.push(gap),
        });
      const first = Array.from({ length: 8 }, (_, i) => statusChanged(mock, `rr_${i}`));
      expect(await make().runOnce()).toMatchObject({ processed: 8, duplicates: 0 });
      expect(seen).toEqual(idsOf(first));

      // A new process on the same file: only what is new.
      mock.clock.advance("1m");
      const second = [statusChanged(mock, "rr_8"), webhookDisabled(mock, "wh_1")];
      expect(await make().runOnce()).toMatchObject({ processed: 2 });
      expect(seen).toEqual(idsOf([...first, ...second]));

      // Offline for 31 days: the gap is reported with the service's time, then the rest comes.
      mock.clock.advance("31d");
      const third = statusChanged(mock, "rr_9");
      expect(await make().runOnce()).toMatchObject({ processed: 1 });
      expect(gaps).toHaveLength(1);
      expect(gaps[0]?.checkpoint.created_at).toBe(second[1]?.created_at);
      expect(Date.parse(gaps[0]?.oldestAvailable as string)).toBeGreaterThanOrEqual(
        mock.clock.now().getTime() - 30 * 86_400_000,
      );
      expect(seen.at(-1)).toBe(third.id);
    } finally {
      await dir.remove();
    }
  });
});
