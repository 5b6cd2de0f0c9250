/** `catchUp({ types, on, onEvent })`: the typed map of functions, and `onEvent` narrowed by `types`. */
import { describe, expect, expectTypeOf, it } from "vitest";
import type {
  AnyEvent,
  RetrievalRequestActionRequiredLogEntry,
  RetrievalRequestStatusChangedLogEntry,
  WebhookDisabledLogEntry,
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
import { setup } from "./helpers.js";

describe("catchUp({ on })", () => {
  it("hands each event to the function of its type, then to onEvent, oldest first", async () => {
    const { mock, mr } = setup();
    const first = statusChanged(mock, "rr_1");
    const second = actionRequired(mock, "rr_1");
    const third = documentsAvailable(mock, "rr_1");
    const calls: string[] = [];
    const poller = mr.events.catchUp({
      on: {
        [STATUS_CHANGED]: (event) => void calls.push(`status ${event.data.status} ${event.id}`),
        [ACTION_REQUIRED]: (event) =>
          void calls.push(`action ${event.data.action_request_id} ${event.id}`),
      },
      onEvent: (event) => void calls.push(`any ${event.type}`),
    });
    const { processed } = await poller.runOnce();
    expect(processed).toBe(3);
    expect(calls).toEqual([
      `status processing ${first.id}`,
      `any ${STATUS_CHANGED}`,
      `action ar_rr_1 ${second.id}`,
      `any ${ACTION_REQUIRED}`,
      `any ${third.type}`,
    ]);
  });

  it("works with `on` alone: a type without a function is passed over, the checkpoint moving past it", async () => {
    const { mock, mr } = setup();
    statusChanged(mock, "rr_1");
    webhookDisabled(mock);
    const seen: string[] = [];
    const poller = mr.events.catchUp({
      on: { [WEBHOOK_DISABLED]: (event) => void seen.push(event.data.webhook_id) },
    });
    expect(await poller.runOnce()).toMatchObject({ processed: 2 });
    expect(seen).toEqual(["wh_1"]);
    expect(await poller.runOnce()).toMatchObject({ processed: 0 });
  });

  it("a function that throws stops the run, and its event comes again on the next", async () => {
    const { mock, mr } = setup();
    const event = statusChanged(mock, "rr_1");
    let failures = 1;
    const handled: string[] = [];
    const poller = mr.events.catchUp({
      on: {
        [STATUS_CHANGED]: (e) => {
          if (failures-- > 0) throw new Error("not yet");
          handled.push(e.id);
        },
      },
    });
    await expect(poller.runOnce()).rejects.toThrow("not yet");
    await poller.runOnce();
    expect(handled).toEqual([event.id]);
  });

  it("refuses, at creation, a type that would never be called, a non-function, and neither on nor onEvent", () => {
    const { mr } = setup();
    const never = "retrieval_request.nope";
    expect(() => mr.events.catchUp({ on: { [never]: () => {} } as never })).toThrow(
      /"retrieval_request.nope", which is not an event type/,
    );
    expect(() =>
      mr.events.catchUp({
        types: [STATUS_CHANGED],
        on: { [ACTION_REQUIRED]: () => {} } as never,
      }),
    ).toThrow(/is not in `types`/);
    expect(() => mr.events.catchUp({ on: { [STATUS_CHANGED]: "x" } as never })).toThrow(TypeError);
    expect(() => mr.events.catchUp({ on: {} })).toThrow(/pass `onEvent`, or `on`/);
  });
});

describe("catchUp types", () => {
  it("narrows onEvent by `types`, and any entry without it", () => {
    const { mr } = setup();
    mr.events.catchUp({
      types: [STATUS_CHANGED, ACTION_REQUIRED],
      onEvent: (event) => {
        expectTypeOf(event).toEqualTypeOf<
          RetrievalRequestStatusChangedLogEntry | RetrievalRequestActionRequiredLogEntry
        >();
        if (event.type === STATUS_CHANGED) expectTypeOf(event.data.status).toBeString();
      },
    });
    mr.events.catchUp({
      onEvent: (event) => {
        expectTypeOf(event).toEqualTypeOf<AnyEvent>();
      },
    });
  });

  it("types each `on` function's event by its key", () => {
    const { mr } = setup();
    mr.events.catchUp({
      on: {
        "webhook.disabled": (event) => expectTypeOf(event).toEqualTypeOf<WebhookDisabledLogEntry>(),
        "retrieval_request.action_required": (event) =>
          expectTypeOf(event.data.action_request_id).toBeString(),
      },
    });
  });

  it("refuses to compile a type name that does not exist, or an `on` key outside `types`", () => {
    const { mr } = setup();
    const onEvent = () => {};
    expect(() =>
      // @ts-expect-error: not an event type
      mr.events.catchUp({ types: ["retrieval_request.status_change"], onEvent }),
    ).not.toThrow(); // the service is the judge at run time
    expect(() =>
      mr.events.catchUp({
        // @ts-expect-error: not an event type
        on: { "retrieval_request.status_change": () => {} },
      }),
    ).toThrow(TypeError);
    expect(() =>
      mr.events.catchUp({
        types: [STATUS_CHANGED],
        // @ts-expect-error: `types` does not ask for this one
        on: { "webhook.disabled": () => {} },
      }),
    ).toThrow(TypeError);
  });
});
