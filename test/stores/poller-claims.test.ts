/**
 * The catch-up poller with a two-phase dedupe store (memory, and the real Redis
 * and PostgreSQL): an event in progress elsewhere stops the run before it,
 * and poison events reach onDeadLetter after exactly maxAttempts failures.
 */
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryCheckpoint } from "../../src/index.js";
import type { AnyEvent } from "../../src/schemas/event-list.js";
import {
  type DedupeStore,
  memoryDedupeStore,
  postgresDedupeStore,
  redisDedupeStore,
  StoreUnavailableError,
} from "../../src/webhooks/index.js";
import { statusChanged } from "../helpers/events.js";
import { idsOf, setup } from "../poller/helpers.js";
import {
  connectRedis,
  describeWithServers,
  postgresPool,
  type RedisClient,
  uniqueName,
} from "./servers.js";

/** Short, so that a lapse is quick to wait for. */
const LEASE_SECONDS = 0.3;

type StoreFactory = () => DedupeStore;

function pollerClaimTests(makeStore: StoreFactory) {
  it("stops before an event in progress elsewhere, checkpoint saved up to the event before it; the next run processes it once the lease lapsed", async () => {
    const { mock, mr } = setup();
    const events = [
      statusChanged(mock, "rr_0"),
      statusChanged(mock, "rr_1"),
      statusChanged(mock, "rr_2"),
    ];
    mock.clock.advance(1);
    const dedupe = makeStore();
    const elsewhere = await dedupe.claim(events[1]!.id);
    expect(elsewhere.state).toBe("claimed");

    const seen: string[] = [];
    const checkpoint = memoryCheckpoint();
    const poller = mr.events.catchUp({ checkpoint, dedupe, onEvent: (e) => void seen.push(e.id) });
    const first = await poller.runOnce();
    expect(first).toMatchObject({ processed: 1, duplicates: 0, inProgress: 1 });
    expect(seen).toEqual([events[0]!.id]);
    expect((await checkpoint.load())?.ids_at_created_at).toEqual([events[0]!.id]);

    // Still leased: the next run stops at the same place, repeating nothing.
    const second = await poller.runOnce();
    expect(seen).toEqual(second.inProgress === 1 ? [events[0]!.id] : idsOf(events));
    await expect
      .poll(
        async () => {
          await poller.runOnce();
          return seen;
        },
        { timeout: 5_000, interval: 50 },
      )
      .toEqual(idsOf(events));
    const last = await poller.runOnce();
    expect(last).toMatchObject({ processed: 0, inProgress: 0 });
    expect(await dedupe.claim(events[1]!.id)).toEqual({ state: "done" });
  });

  it("an event completed elsewhere is a duplicate; one released elsewhere is processed", async () => {
    const { mock, mr } = setup();
    const [a, b] = [statusChanged(mock, "rr_a"), statusChanged(mock, "rr_b")];
    const dedupe = makeStore();
    const claimA = await dedupe.claim(a.id);
    const claimB = await dedupe.claim(b.id);
    if (claimA.state !== "claimed" || claimB.state !== "claimed")
      throw new Error("expected claims");
    await dedupe.complete(a.id, claimA.token, 60);
    await dedupe.release(b.id, claimB.token);
    const seen: string[] = [];
    const result = await mr.events
      .catchUp({ dedupe, onEvent: (e) => void seen.push(e.id) })
      .runOnce();
    expect(result).toMatchObject({ processed: 1, duplicates: 1, inProgress: 0 });
    expect(seen).toEqual([b.id]);
  });

  it("a poison event reaches onDeadLetter after exactly maxAttempts failures (not maxAttempts - 1), then the poller moves on", async () => {
    const { mock, mr } = setup();
    const events = [
      statusChanged(mock, "rr_0"),
      statusChanged(mock, "rr_poison"),
      statusChanged(mock, "rr_2"),
    ];
    const poison = events[1]!.id;
    const dedupe = makeStore();
    const maxAttempts = 3;
    const seen: string[] = [];
    const deadLetters: Array<{ event: AnyEvent; error: unknown }> = [];
    const checkpoint = memoryCheckpoint();
    const poller = mr.events.catchUp({
      checkpoint,
      dedupe,
      maxAttempts,
      onDeadLetter: (event, error) => void deadLetters.push({ event, error }),
      onEvent: (event) => {
        seen.push(event.id);
        if (event.id === poison) throw new Error(`cannot process ${event.id}`);
      },
    });
    for (let failure = 1; failure < maxAttempts; failure++) {
      await expect(poller.runOnce()).rejects.toThrow(`cannot process ${poison}`);
      // Released each time: the next claim gets it, so the event is not taken for done.
      const claim = await dedupe.claim(poison);
      expect(claim.state).toBe("claimed");
      if (claim.state === "claimed") await dedupe.release(poison, claim.token);
    }
    expect(deadLetters).toEqual([]);
    expect((await checkpoint.load())?.ids_at_created_at).toEqual([events[0]!.id]);

    const result = await poller.runOnce();
    expect(deadLetters.map((d) => d.event.id)).toEqual([poison]);
    expect(deadLetters[0]?.error).toEqual(new Error(`cannot process ${poison}`));
    expect(seen.filter((id) => id === poison)).toHaveLength(maxAttempts);
    expect(result).toMatchObject({ processed: 1, inProgress: 0 });
    expect(seen.at(-1)).toBe(events[2]!.id);
    expect(await dedupe.claim(poison)).toEqual({ state: "done" });
    expect((await poller.runOnce()).processed).toBe(0);
  });
}

describe("the catch-up poller with memoryDedupeStore", () => {
  pollerClaimTests(() => memoryDedupeStore({ leaseSeconds: LEASE_SECONDS }));

  it("a poison event without maxAttempts stops every run, as before", async () => {
    const { mock, mr } = setup();
    statusChanged(mock, "rr_poison");
    const poller = mr.events.catchUp({
      onEvent: () => {
        throw new Error("poison");
      },
    });
    for (let run = 0; run < 5; run++) await expect(poller.runOnce()).rejects.toThrow("poison");
  });

  it("onDeadLetter throwing stops the run; the event comes again and goes to onDeadLetter on its next failure", async () => {
    const { mock, mr } = setup();
    const poison = statusChanged(mock, "rr_poison");
    let deadLetterFails = true;
    const deadLetters: string[] = [];
    const poller = mr.events.catchUp({
      maxAttempts: 1,
      onDeadLetter: (event) => {
        if (deadLetterFails) throw new Error("dead-letter queue down");
        deadLetters.push(event.id);
      },
      onEvent: () => {
        throw new Error("poison");
      },
    });
    await expect(poller.runOnce()).rejects.toThrow("dead-letter queue down");
    deadLetterFails = false;
    expect(await poller.runOnce()).toMatchObject({ processed: 0 });
    expect(deadLetters).toEqual([poison.id]);
  });

  it("refuses maxAttempts without onDeadLetter, onDeadLetter without maxAttempts, and maxAttempts below 1", () => {
    const { mr } = setup();
    const onEvent = () => {};
    const onDeadLetter = () => {};
    expect(() => mr.events.catchUp({ onEvent, maxAttempts: 3 })).toThrow(TypeError);
    expect(() => mr.events.catchUp({ onEvent, maxAttempts: 3 })).toThrow(/onDeadLetter/);
    expect(() => mr.events.catchUp({ onEvent, onDeadLetter })).toThrow(TypeError);
    expect(() => mr.events.catchUp({ onEvent, onDeadLetter, maxAttempts: 0 })).toThrow(RangeError);
    expect(() => mr.events.catchUp({ onEvent, onDeadLetter, maxAttempts: 1.5 })).toThrow(
      RangeError,
    );
    expect(() => mr.events.catchUp({ onEvent, onDeadLetter, maxAttempts: 1 })).not.toThrow();
  });

  it("a store that fails fails the run with a StoreUnavailableError, before onEvent and without passing the event", async () => {
    const { mock, mr } = setup();
    statusChanged(mock, "rr_1");
    const seen: string[] = [];
    const checkpoint = memoryCheckpoint();
    const down: DedupeStore = {
      claim: async () => Promise.reject(new Error("ECONNREFUSED")),
      complete: async () => undefined,
      release: async () => undefined,
    };
    const poller = mr.events.catchUp({
      checkpoint,
      dedupe: down,
      onEvent: (e) => void seen.push(e.id),
    });
    const error = await poller.runOnce().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error).toMatchObject({ operation: "claim" });
    expect(seen).toEqual([]);
    expect(await checkpoint.load()).toBeNull();
  });
});

describeWithServers(["redis"], "the catch-up poller with redisDedupeStore", ({ redis: url }) => {
  let client: RedisClient;
  beforeAll(async () => {
    client = await connectRedis(url);
  });
  afterAll(async () => {
    await client?.quit();
  });
  pollerClaimTests(() =>
    redisDedupeStore({ client, prefix: `${uniqueName("poller")}:`, leaseSeconds: LEASE_SECONDS }),
  );
});

describeWithServers(
  ["postgres"],
  "the catch-up poller with postgresDedupeStore",
  ({ postgres: url }) => {
    let pool: pg.Pool;
    const tables: string[] = [];
    beforeAll(() => {
      pool = postgresPool(url, 4);
    });
    afterAll(async () => {
      for (const name of tables) await pool?.query(`DROP TABLE IF EXISTS "${name}"`);
      await pool?.end();
    });
    pollerClaimTests(() => {
      const table = uniqueName("poller");
      tables.push(table);
      return postgresDedupeStore({ pool, table, leaseSeconds: LEASE_SECONDS });
    });
  },
);
