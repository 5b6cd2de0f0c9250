/**
 * The inspector page's script: reads `GET /__mock/state` once a second
 * (while the tab is visible, and at once after each move), redraws each
 * region whose data changed, and turns the buttons into control API calls.
 */
import { advanceReport } from "./advance.js";
import { ControlError, control } from "./control.js";
import { deliveriesRegion } from "./deliveries.js";
import { h, redraw, time } from "./dom.js";
import { type EventFilter, eventsRegion, eventTypeOptions } from "./events.js";
import { requestsRegion } from "./requests.js";
import { retrievalRequestsRegion } from "./retrieval-requests.js";
import type { InspectorView } from "./view.js";

const POLL_MS = 1000;

const byId = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

const notice = byId("notice");
const typeFilter = byId<HTMLSelectElement>("event-type");
const textFilter = byId<HTMLInputElement>("event-object");

let view: InspectorView | undefined;
/** The JSON each region was last drawn from: a region is redrawn only when it changes. */
const drawn = new Map<string, string>();

function draw(region: string, data: unknown, render: () => Node[]): void {
  const key = JSON.stringify(data);
  if (drawn.get(region) === key) return;
  drawn.set(region, key);
  redraw(byId(`${region}-body`), ...render());
}

function render(next: InspectorView): void {
  view = next;
  const mode = next.clock.mode === "manual" ? "manual: moves only when advanced" : "real time";
  byId("clock-now").replaceChildren(time(next.clock.now), ` (${mode})`);
  draw("retrieval-requests", [next.retrievalRequests, next.more.retrievalRequests], () =>
    retrievalRequestsRegion(next),
  );
  const filter: EventFilter = { type: typeFilter.value, text: textFilter.value };
  const types = eventTypeOptions(next, filter.type);
  if (JSON.stringify(types) !== drawn.get("event-types")) {
    drawn.set("event-types", JSON.stringify(types));
    typeFilter.replaceChildren(
      h("option", { value: "" }, "any type"),
      ...types.map((type) => h("option", { value: type, selected: type === filter.type }, type)),
    );
  }
  draw("events", [next.events, next.more.events, filter], () => eventsRegion(next, filter));
  draw("deliveries", next.webhooks, () => deliveriesRegion(next));
  draw("requests", [next.requests, next.more.requests], () => requestsRegion(next));
}

let timer: ReturnType<typeof setTimeout> | undefined;
let polling: Promise<void> | undefined;

/** Reads the state now (or joins the read under way), then again in a second. */
function poll(): Promise<void> {
  clearTimeout(timer);
  polling ??= control
    .state()
    .then(render, () => say("The mock is not answering; trying again every second."))
    .finally(() => {
      polling = undefined;
      if (!document.hidden) timer = setTimeout(poll, POLL_MS);
    });
  return polling;
}

function say(text: string): void {
  notice.textContent = text;
}

/** Runs one move, says what happened, and reads the state at once. */
async function move(
  done: string | ((answer: unknown) => string),
  action: () => Promise<unknown>,
): Promise<void> {
  try {
    const answer = await action();
    say(typeof done === "string" ? done : done(answer));
  } catch (error) {
    say(`Refused: ${error instanceof ControlError ? error.message : String(error)}`);
  }
  // A read begun before the move may answer the state before it: read once more after it.
  await polling;
  await poll();
}

document.addEventListener("click", (event) => {
  const button = (event.target as Element).closest<HTMLButtonElement>("button[data-action]");
  if (button === null || button.disabled) return;
  const id = button.dataset.id as string;
  switch (button.dataset.action) {
    case "release-records": {
      const file = button.dataset.file as string;
      void move(`Released ${file} to ${id}.`, () => control.releaseRecords(id, file));
      break;
    }
    case "complete":
      void move(`Completed ${id}.`, () => control.complete(id));
      break;
    case "redeliver": {
      const webhook = button.dataset.webhook as string;
      // Names the new delivery: the row it adds, not the one whose button was pressed.
      const made = (answer: unknown) =>
        `Redelivered ${id} as delivery ${(answer as { id?: string } | undefined)?.id ?? "(no id)"}.`;
      void move(made, () => control.redeliver(webhook, id));
      break;
    }
  }
});

document.addEventListener("submit", (event) => {
  event.preventDefault();
  const form = event.target as HTMLFormElement;
  const data = new FormData(form);
  if (form.id === "advance-form") {
    const by = String(data.get("by")).trim();
    // Answered once the window's deliveries were made: the page says what they came to.
    void move(`Advanced the clock by ${by}.`, async () => {
      redraw(byId("advance-result"), ...advanceReport(by, await control.advanceClock(by)));
    });
  } else if (form.dataset.action === "open-action-request") {
    const id = form.dataset.id as string;
    const reason = String(data.get("reason"));
    void move(`Opened an action request on ${id}.`, () =>
      control.openActionRequest(id, reason, String(data.get("message"))),
    );
  }
});

const refilter = () => {
  if (view !== undefined) render(view);
};
typeFilter.addEventListener("change", refilter);
textFilter.addEventListener("input", refilter);
document.addEventListener("visibilitychange", () => {
  if (!document.hidden) void poll();
});

void poll();
