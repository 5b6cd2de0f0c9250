/**
 * What **Advance clock** says once the window's deliveries were made: how
 * many attempts fell due and came to what, and for each cause of failure the
 * attempts it failed, the receiver's error code and what to do.
 */
import { h, time } from "./dom.js";
import type { InspectorAdvanceResult } from "./view.js";

type Failure = InspectorAdvanceResult["failed"][number];

export function advanceReport(by: string, result: InspectorAdvanceResult): Node[] {
  const { attempted, succeeded } = result;
  const failed = attempted - succeeded;
  const summary =
    attempted === 0
      ? `No delivery attempt fell due in the ${by} window.`
      : `${plural(attempted, "delivery attempt")} in the ${by} window: ${succeeded} delivered, ${failed} failed.`;
  return [
    h("p", { class: failed > 0 ? "failed" : "ok" }, summary),
    ...(failed === 0 ? [] : [h("ul", { class: "failures" }, ...causes(result.failed))]),
  ];
}

/** One line per cause (the same error, receiver code and hint), with its attempts. */
function causes(failures: readonly Failure[]): HTMLElement[] {
  const byCause = new Map<string, Failure[]>();
  for (const failure of failures) {
    const key = `${failure.error}|${failure.receiver_error}|${failure.hint}`;
    byCause.set(key, [...(byCause.get(key) ?? []), failure]);
  }
  return [...byCause.values()].map((same) => {
    const first = same[0] as Failure;
    const word =
      first.receiver_error === null ? "" : `, the receiver answered ${first.receiver_error}`;
    return h(
      "li",
      {},
      h("strong", {}, `${plural(same.length, "attempt")}: ${first.error}${word}.`),
      " First at ",
      time(first.attempted_at),
      ` (${first.event_type}, attempt ${first.attempt}). `,
      first.hint,
    );
  });
}

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}
