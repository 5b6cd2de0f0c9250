/**
 * The forwarder of `medrecords listen` (src/cli/webhook-forwarder.ts): each
 * attempt's timeout, and that an attempt once answered keeps nothing alive,
 * so a backlog forwarded at hundreds of events a second holds a bounded heap.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createForwarder, eventSummary, shortId } from "../../src/cli/webhook-forwarder.js";
import type { AnyEvent } from "../../src/schemas/event-list.js";
import { WEBHOOK_DELIVERY_TIMEOUT_MS } from "../../src/schemas/webhooks.js";
import { STATUS_CHANGED } from "../helpers/events.js";
import { type Answer, scriptedFetch } from "../helpers/scripted-fetch.js";

const event = {
  id: "evt_1",
  type: STATUS_CHANGED,
  created_at: "2026-03-01T09:00:00.000Z",
  data: { retrieval_request_id: "rr_1", status: "processing" },
} as unknown as AnyEvent;

/** Lets pending I/O callbacks and promise chains run (setImmediate is not faked). */
const settle = async () => {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
};

function forwarder(answers: Answer[], signal = new AbortController().signal) {
  const { fetch, seen } = scriptedFetch(answers);
  const signals: AbortSignal[] = [];
  const lines: string[] = [];
  const forward = createForwarder({
    url: "http://127.0.0.1:3000/webhooks",
    secret: "whsec_test",
    retryDelaysMs: [],
    print: async (line) => {
      lines.push(line);
    },
    signal,
    onFatal: () => undefined,
    fetch: (input, init) => {
      if (init?.signal) signals.push(init.signal);
      return fetch(input, init);
    },
  });
  return { forward, seen, signals, lines };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("webhook forwarder", () => {
  it("times an unanswered attempt out at the delivery timeout, not a millisecond before, and leaves no timer after", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { forward, seen, lines } = forwarder(["hang"]);
    const delivery = forward.deliver(event);
    while (seen.length === 0) await settle();

    await vi.advanceTimersByTimeAsync(WEBHOOK_DELIVERY_TIMEOUT_MS - 1);
    await settle();
    expect(lines).toEqual([]);

    await vi.advanceTimersByTimeAsync(1);
    await settle();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/ {2}evt_1 {2}rr_1 {2}processing\/- {2}timeout {2}/);
    await delivery;
    expect(vi.getTimerCount()).toBe(0);
  });

  it("unhooks an answered attempt from the command's signal, which still ends an attempt in flight", async () => {
    const command = new AbortController();
    const { forward, signals } = forwarder(
      [new Response(null, { status: 200 }), "hang"],
      command.signal,
    );
    await forward.deliver(event);
    const inFlight = forward.deliver({ ...event, id: "evt_2" } as AnyEvent);
    await vi.waitFor(() => expect(signals).toHaveLength(2));

    const stop = new Error("stopped");
    command.abort(stop);
    await expect(inFlight).rejects.toBe(stop);
    expect(signals[1]?.aborted).toBe(true);
    // The answered attempt's signal was released from the command's: nothing of it is kept alive by it.
    expect(signals[0]?.aborted).toBe(false);
  });

  it("counts an answered attempt as answered, even if the caller's fetch holds an unread clone of the answer", async () => {
    // A fetch wrapper that keeps a copy of each response (MSW 2 does): cancelling the body handed
    // back settles only when the copy is cancelled too, and no timeout ends this wait.
    const copies: Response[] = [];
    const { forward, lines } = forwarder([
      () => {
        const response = new Response("thanks", { status: 200 });
        copies.push(response.clone());
        return response;
      },
    ]);
    await forward.deliver(event);
    expect(copies).toHaveLength(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/ {2}evt_1 {2}rr_1 {2}processing\/- {2}200 {2}/);
  });
});

describe("eventSummary: a line a person can follow one request through", () => {
  const base = { object: "event", api_version: "v2", request_id: null } as const;
  const rr = (data: Record<string, unknown>, type: string) =>
    ({
      ...base,
      id: `rr-${"3f9c1a2b".padEnd(64, "0")}`,
      type,
      created_at: "2031-01-01T09:00:00.000Z",
      data: { retrieval_request_id: "ret_534ff250734b4051fb57df57", case_id: null, ...data },
    }) as unknown as AnyEvent;

  it("shows the event's own (service) time, a short id, the request and its new status and stage", () => {
    expect(
      eventSummary(
        rr(
          { status: "processing", stage: "provider_processing" },
          "retrieval_request.status_changed",
        ),
      ),
    ).toBe(
      "2031-01-01T09:00:00.000Z  retrieval_request.status_changed  rr-3f9c1a2b  ret_534ff250734b4051fb57df57  processing/provider_processing",
    );
  });

  it("names the action request, or the documents released and invoices ready", () => {
    expect(
      eventSummary(rr({ action_request_id: "ar_1" }, "retrieval_request.action_required")),
    ).toMatch(/ {2}ret_534ff250734b4051fb57df57 {2}action request ar_1$/);
    expect(
      eventSummary(rr({ document_ids: ["d1", "d2"] }, "retrieval_request.documents_available")),
    ).toMatch(/ {2}2 documents$/);
    expect(
      eventSummary(
        rr({ document_ids: ["i1"], invoice_ids: ["i1"] }, "retrieval_request.documents_available"),
      ),
    ).toMatch(/ {2}1 invoice ready$/);
  });

  it("cuts ids short to their prefix and 8 characters", () => {
    expect(shortId(`rr-${"a".repeat(64)}`)).toBe("rr-aaaaaaaa");
    expect(shortId("evt_test_0b7c7a9e-8a8f-4c1e-9d4e-0a6f1f0c2b3d")).toBe("evt_test_0b7c7a9e");
    expect(shortId("evt_1")).toBe("evt_1");
  });
});
