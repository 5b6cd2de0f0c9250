/**
 * Issue 19, the reference server's snapshots: bringing a test back to a
 * known state of 1 000 cases with `mock.restore(snapshot)`, against what a
 * suite without snapshots does, `mock.reset()` and creating the 1 000 cases
 * again through the client.
 *
 * Both run in this process: the client is `MedRecords` with the mock's own
 * `fetch` (`new MedRecords({ fetch: mock.fetch })`), the cheapest in-process
 * path a test suite can take, so the baseline is the fastest re-create there
 * is. Under MSW (`setupServer(...mock.handlers)`, what the README's test kit
 * does) each create costs several times more: that cost is measured on a
 * sample of cases and given in the note, not in the ratio. The cases are
 * created once through the client; the snapshot is taken once, and every
 * iteration of the subject restores it.
 */
import { MedRecords } from "medrecords";
import { createMockService } from "medrecords/mock";
import { FICTIONAL_CLIENTS } from "medrecords/testing";
import { setupServer } from "msw/node";
import { compare } from "../lib/measure.ts";
import type { Suite } from "../lib/types.ts";

const CASES = 1_000;
/** Cases created under MSW for the note's per-create figure (a full re-create there takes tens of seconds). */
const MSW_SAMPLE = 100;

export const run: Suite = async ({ quick }) => {
  const mock = createMockService({ now: "2026-03-01T09:00:00Z" });
  const apiKey = mock.apiKeys.create();
  const mr = new MedRecords({ apiKey, baseUrl: mock.baseUrl, maxRetries: 0, fetch: mock.fetch });
  {
    const inputs = Array.from({ length: CASES }, (_, i) => {
      const client = FICTIONAL_CLIENTS[i % FICTIONAL_CLIENTS.length]!;
      return { ...client, title: `${client.title} #${i}` };
    });
    const createAll = async () => {
      for (const input of inputs) await mr.cases.create(input);
    };
    await createAll();
    const snapshot = mock.snapshot();

    const comparison = await compare(
      {
        snapshot: () => mock.snapshot(),
        restore: () => mock.restore(snapshot),
        recreate: async () => {
          mock.reset();
          await createAll();
        },
      },
      // A re-create takes seconds on a busy machine: one per batch, a restore batch of ~300 ms.
      { rounds: quick ? 3 : 5, batchMs: 300 },
    );
    // The state is the snapshot's: 1 000 cases (checked, so the subject is not a no-op).
    mock.restore(snapshot);
    const listed = await mr.cases.list({ limit: 100 }).toArray({ limit: CASES + 1 });
    if (listed.length !== CASES)
      throw new Error(`restore left ${listed.length} cases, expected ${CASES}`);

    const mswPerCreate = await timeUnderMsw(mock, apiKey, inputs.slice(0, MSW_SAMPLE));

    const { restore, recreate, snapshot: take } = comparison.results;
    const ms = (perSecond: number) => (1000 / perSecond).toFixed(perSecond > 1000 ? 3 : 1);
    return [
      {
        group: "Reference server snapshots (createMockService, in process)",
        name: `restore ${CASES.toLocaleString("en-US").replace(/,/g, " ")} cases vs reset() + re-creating them through the client`,
        subject: { label: "mock.restore(snapshot)", value: restore!.perSecond, unit: "restores/s" },
        baseline: {
          label: "reset() + cases.create x1000",
          value: recreate!.perSecond,
          unit: "restores/s",
        },
        ratio: comparison.ratio("restore", "recreate"),
        target: 20,
        note:
          `Per state: restore ${ms(restore!.perSecond)} ms, re-create ${ms(recreate!.perSecond)} ms ` +
          `(mock.snapshot() alone, taken once per suite: ${ms(take!.perSecond)} ms). ` +
          `Re-create with MedRecords on the mock's own fetch, one case at a time (as a beforeEach would); ` +
          `under MSW (setupServer from msw/node, as the test kit runs it) a create takes ${mswPerCreate.toFixed(1)} ms ` +
          `(${MSW_SAMPLE} cases timed), so the ratio there is larger still.`,
      },
    ];
  }
};

/** Milliseconds per `cases.create` through MSW's interception, over `inputs`. */
async function timeUnderMsw(
  mock: ReturnType<typeof createMockService>,
  apiKey: string,
  inputs: readonly object[],
): Promise<number> {
  const server = setupServer(...mock.handlers);
  server.listen({ onUnhandledFrame: "error" } as never);
  try {
    const mr = new MedRecords({ apiKey, baseUrl: mock.baseUrl, maxRetries: 0 });
    mock.reset();
    const started = performance.now();
    for (const input of inputs) await mr.cases.create(input as never);
    return (performance.now() - started) / inputs.length;
  } finally {
    server.close();
  }
}
