import { describe, expect, it, onTestFinished } from "vitest";
import { MedRecords } from "../../src/index.js";
import { AUTOPILOT_STEP_MINUTES } from "../../src/mock/autopilot.js";
import { createMockClock, stopMockClock } from "../../src/mock/clock.js";
import { createMockService } from "../../src/mock/index.js";
import { SUBSCRIBABLE_EVENT_TYPES } from "../../src/schemas/events.js";

const T0 = "2026-03-01T10:00:00.000Z";
const t0 = Date.parse(T0);

function realClock(speed: number) {
  const clock = createMockClock(T0, { mode: "real", speed });
  onTestFinished(() => stopMockClock(clock));
  return clock;
}

describe("the real mock clock", () => {
  it("moves by itself and runs a scheduled task when it falls due, at or after its time", async () => {
    const clock = realClock(1000);
    expect(clock.mode).toBe("real");
    const seen = await new Promise<number>((resolve) =>
      clock.schedule(t0 + 60_000, () => resolve(clock.now().getTime())),
    );
    expect(seen).toBeGreaterThanOrEqual(t0 + 60_000);
  });

  it("takes advance() as an offset and runs what fell due on the way, each at its own time", () => {
    const clock = realClock(1);
    const seen: number[] = [];
    clock.schedule(t0 + 3_600_000, () => seen.push(clock.now().getTime()));
    clock.advance("2h");
    expect(seen).toEqual([t0 + 3_600_000]);
    expect(clock.now().getTime()).toBeGreaterThanOrEqual(t0 + 7_200_000);
  });

  it("runs nothing once stopped", async () => {
    const clock = realClock(1000);
    let ran = false;
    clock.schedule(t0 + 1, () => {
      ran = true;
    });
    stopMockClock(clock);
    // A later task on another real clock marks the time by which the first would have run.
    const other = realClock(1000);
    await new Promise<void>((resolve) => other.schedule(t0 + 50_000, resolve));
    expect(ran).toBe(false);
  });

  it("refuses a speed that is not a positive number", () => {
    expect(() => createMockClock(T0, { mode: "real", speed: 0 })).toThrow(/positive/);
  });

  it("createMockService keeps its manual clock unless told otherwise", () => {
    expect(createMockService().clock.mode).toBe("manual");
  });
});

describe("the autopilot", () => {
  async function setup() {
    const mock = createMockService({ now: T0, autopilot: { seed: 7 } });
    const mr = new MedRecords({
      apiKey: mock.apiKeys.create(),
      baseUrl: mock.baseUrl,
      fetch: mock.fetch,
    });
    const create = async () => {
      const auth_form = await mr.retrievalRequests.uploadFile({
        file: new TextEncoder().encode("%PDF-1.4\n%%EOF\n"),
        file_name: "authorization.pdf",
        file_type: "application/pdf",
      });
      const { id } = await mr.retrievalRequests.create({
        case: { title: "Autopilot v. Test (fictional)", client_name: "Alex Autopilot" },
        facility_id: "fac_mercy_general",
        requestor: { name: "Paralegal", email: "paralegal@firm.example" },
        auth_form,
      });
      return id;
    };
    const typesOf = async (id: string) => {
      const types = new Set<string>();
      for await (const event of mr.events.list({ object_id: id })) types.add(event.type);
      return [...types].sort();
    };
    return { mock, mr, create, typesOf };
  }

  it("completes a new retrieval request within 3 hours of mock time, with every event type, and not before its last step", async () => {
    const { mock, mr, create, typesOf } = await setup();
    const id = await create();
    // The last step may come 3 minutes early: before that, the request is still under way.
    mock.clock.advance(`${AUTOPILOT_STEP_MINUTES.completed - 4}m`);
    expect((await mr.retrievalRequests.retrieve(id)).status).not.toBe("completed");
    mock.clock.advance(`${180 - (AUTOPILOT_STEP_MINUTES.completed - 4)}m`);
    expect((await mr.retrievalRequests.retrieve(id)).status).toBe("completed");
    expect(await typesOf(id)).toEqual([...SUBSCRIBABLE_EVENT_TYPES].sort());
  });

  it("moves on when the firm answered the action request, and leaves a request the developer cancelled alone", async () => {
    const { mock, mr, create } = await setup();
    const answered = await create();
    const cancelled = await create();
    mock.clock.advance(`${AUTOPILOT_STEP_MINUTES.actionRequest + 4}m`);
    const open = await mr.retrievalRequests.retrieve(answered);
    expect(open.status).toBe("action_required");
    if (open.pending_action_request?.requires_attachment === false) {
      await mr.retrievalRequests.respondToAction(answered, { message: "Confirmed." });
    }
    mock.retrievalRequests.cancel(cancelled);
    mock.clock.advance("3h");
    expect((await mr.retrievalRequests.retrieve(answered)).status).toBe("completed");
    expect((await mr.retrievalRequests.retrieve(cancelled)).status).toBe("cancelled");
  });
});
