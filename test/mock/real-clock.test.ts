import { describe, expect, it, onTestFinished } from "vitest";
import { MedRecords } from "../../src/index.js";
import { AUTOPILOT_STEP_MINUTES } from "../../src/mock/controls/autopilot.js";
import { createMockService } from "../../src/mock/index.js";
import { createMockClock, stopMockClock } from "../../src/mock/runtime/clock.js";
import { SUBSCRIBABLE_EVENT_TYPES } from "../../src/schemas/events.js";
import { RETRIEVAL_STAGES } from "../../src/schemas/retrieval-requests.js";

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

  /** Every stage and status the request went through, from its status_changed events, oldest first. */
  async function stagesOf(mr: MedRecords, id: string): Promise<string[]> {
    const events = await mr.events
      .list({ object_id: id, type: ["retrieval_request.status_changed"] })
      .toArray({ limit: 100 });
    return events.reverse().map((e) => (e.data as { stage: string }).stage);
  }

  const ORDER: readonly string[] = RETRIEVAL_STAGES.filter((stage) => stage !== "cancelled");
  const neverBackwards = (stages: string[]) => {
    for (let i = 1; i < stages.length; i++) {
      expect(ORDER.indexOf(stages[i] as string), stages.join(" > ")).toBeGreaterThanOrEqual(
        ORDER.indexOf(stages[i - 1] as string),
      );
    }
  };

  it("never moves a request backwards: a stage set by hand (as trigger does) is where its life continues", async () => {
    const { mock, mr, create } = await setup();
    const id = await create();
    // What `medrecords trigger retrieval_request.status_changed` does, before the autopilot's first step.
    mock.retrievalRequests.setStatus(id, { status: "processing", stage: "provider_processing" });
    mock.clock.advance("3h");
    const stages = await stagesOf(mr, id);
    neverBackwards(stages);
    expect(stages[0]).toBe("provider_processing");
    expect(stages).not.toContain("request_sent");
    expect((await mr.retrievalRequests.retrieve(id)).status).toBe("completed");
  });

  it("repeats nothing done by hand: records released and an action request asked stay the only ones", async () => {
    const { mock, mr, create } = await setup();
    const id = await create();
    mock.clock.advance(`${AUTOPILOT_STEP_MINUTES.providerProcessing + 4}m`);
    // trigger action_required, answered at once; then trigger documents_available.
    mock.retrievalRequests.openActionRequest(id, {
      reason: "additional_information_needed",
      message: "Please confirm the dates of treatment.",
    });
    await mr.retrievalRequests.respondToAction(id, { message: "Confirmed." });
    mock.retrievalRequests.setStatus(id, { status: "processing", stage: "records_received" });
    mock.retrievalRequests.releaseRecords(id, [
      { file_name: "records.pdf", file_type: "application/pdf", content: "%PDF-1.4 by hand" },
    ]);
    mock.clock.advance("3h");
    const done = await mr.retrievalRequests.retrieve(id);
    expect(done.status).toBe("completed");
    expect(done.documents.filter((d) => d.kind === "record")).toHaveLength(1);
    expect(mock.retrievalRequests.actionRequests(id)).toHaveLength(1);
    neverBackwards(await stagesOf(mr, id));
  });
});
