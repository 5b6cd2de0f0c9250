/**
 * Issue 34 (DESIGN 12.1), advancing runs the window in order: `await
 * mock.clock.advance("30d")` over 1 000 retrieval requests the autopilot
 * takes through their lives, every event delivered in-process (`deliverTo`)
 * to a `createWebhookHandler` receiver, one attempt after another in time
 * order, against the receiver's own floor: the same handler called directly,
 * one delivery after another, with the same event bodies signed in advance
 * (each call makes its Request, as any caller of a Fetch-style handler does).
 *
 * Both in this process. The requests are created through the client on the
 * mock's own fetch before the clock moves (not timed); the subject's time
 * covers the whole awaited advance: the autopilot's state changes, the
 * queue, signing each attempt, the Request and the receiver's answer, and
 * recording it. The baseline's covers only the handler's calls. Each round
 * runs the baseline, the subject, and the baseline again on the bodies the
 * subject delivered, so that a machine's load changing during the round
 * weighs on both sides; the ratio is the median of the rounds'.
 */
import { MedRecords } from "medrecords";
import { createMockService } from "medrecords/mock";
import {
  createWebhookHandler,
  memoryDedupeStore,
  signWebhook,
  type WebhookEvent,
} from "medrecords/webhooks";
import { median } from "../lib/measure.ts";
import type { Suite } from "../lib/types.ts";

const REQUESTS = 1_000;
const TYPES = [
  "retrieval_request.status_changed",
  "retrieval_request.action_required",
  "retrieval_request.documents_available",
] as const;
const URL_ = "https://app.example.test/webhooks/medrecords";
const PDF = new TextEncoder().encode("%PDF-1.4\n%%EOF\n");

/** A receiver as an application writes one: every event type handled, no `now`. */
function receiver(secret: string, seen: WebhookEvent[]) {
  const record = (event: WebhookEvent) => void seen.push(event);
  const on = Object.fromEntries(TYPES.map((type) => [type, record]));
  return createWebhookHandler({ secret, dedupe: memoryDedupeStore(), on });
}

/** One advance over `requests` new requests: events/s, and the bodies delivered. */
async function advanceRound(requests: number) {
  let handler: (request: Request) => Promise<Response> = async () => new Response(null);
  const mock = createMockService({
    now: "2026-03-01T09:00:00Z",
    autopilot: { seed: 7 },
    deliverTo: (request) => handler(request),
  });
  const mr = new MedRecords({
    apiKey: mock.apiKeys.create(),
    baseUrl: mock.baseUrl,
    maxRetries: 0,
    fetch: mock.fetch,
  });
  const hook = await mr.webhooks.create({ name: "bench", url: URL_, events: [...TYPES] });
  const seen: WebhookEvent[] = [];
  handler = receiver(hook.secret, seen);
  for (let i = 0; i < requests; i++) {
    const auth_form = await mr.retrievalRequests.uploadFile({
      file: PDF,
      file_name: "authorization.pdf",
      file_type: "application/pdf",
    });
    await mr.retrievalRequests.create({
      case: { title: `Bench v. Clock #${i} (fictional)`, client_name: "Bea Bench" },
      facility_id: "fac_mercy_general",
      requestor: { name: "Paralegal", email: "paralegal@firm.example" },
      auth_form,
    });
  }
  const started = performance.now();
  const result = await mock.clock.advance("30d");
  const seconds = (performance.now() - started) / 1000;
  if (result.failed.length > 0 || seen.length !== result.attempted || seen.length < requests * 8) {
    throw new Error(
      `advance delivered ${seen.length} of ${result.attempted} attempts (${result.failed.length} failed)`,
    );
  }
  const bodies = seen.map(({ id, type, created_at, data }) =>
    JSON.stringify({ id, type, created_at, data }),
  );
  return { perSecond: seen.length / seconds, bodies, secret: hook.secret };
}

/**
 * The same handler called directly over `bodies`, each signed before the
 * clock starts: the timed loop makes each call's Request (as any caller of a
 * Fetch-style handler does) and awaits the handler's answer.
 */
async function directRound(bodies: readonly string[], secret: string) {
  const seen: WebhookEvent[] = [];
  const handler = receiver(secret, seen);
  const signed: Record<string, string>[] = [];
  for (const body of bodies) {
    signed.push({
      "content-type": "application/json",
      ...(await signWebhook({ payload: body, secret })),
    });
  }
  const started = performance.now();
  for (let i = 0; i < bodies.length; i++) {
    const body = bodies[i] as string;
    await handler(new Request(URL_, { method: "POST", headers: signed[i], body }));
  }
  const seconds = (performance.now() - started) / 1000;
  if (seen.length !== bodies.length) {
    throw new Error(`the handler processed ${seen.length} of ${bodies.length} deliveries`);
  }
  return { perSecond: bodies.length / seconds };
}

export const run: Suite = async ({ quick }) => {
  const requests = quick ? 300 : REQUESTS;
  const rounds = quick ? 3 : 5;
  // Warm-up: both paths compiled before anything is timed.
  let previous = await advanceRound(Math.min(requests, 100));
  await directRound(previous.bodies, previous.secret);
  previous = await advanceRound(requests);
  const subject: number[] = [];
  const baseline: number[] = [];
  const ratios: number[] = [];
  let events = 0;
  for (let round = 0; round < rounds; round++) {
    // The baseline on each side of the subject, so that a load that comes or goes
    // during the round weighs on both alike (the first on the previous round's bodies).
    const before = await directRound(previous.bodies, previous.secret);
    const advanced = await advanceRound(requests);
    const after = await directRound(advanced.bodies, advanced.secret);
    const direct = (before.perSecond + after.perSecond) / 2;
    subject.push(advanced.perSecond);
    baseline.push(direct);
    ratios.push(advanced.perSecond / direct);
    events = advanced.bodies.length;
    previous = advanced;
  }
  const count = requests.toLocaleString("en-US").replace(/,/g, " ");
  return [
    {
      group: "Reference server: advancing the clock (createMockService, in process)",
      name: `await advance("30d") over ${count} retrieval requests with the autopilot vs the same handler called directly`,
      subject: {
        label: `await mock.clock.advance("30d"), deliverTo(createWebhookHandler)`,
        value: median(subject),
        unit: "events/s",
      },
      baseline: {
        label: "the handler called directly, deliveries signed in advance",
        value: median(baseline),
        unit: "events/s",
      },
      ratio: median(ratios),
      target: 0.33,
      note:
        `${events.toLocaleString("en-US").replace(/,/g, " ")} events delivered per round, one attempt after another in time order, ` +
        "each signed when made (this machine's clock), handed to the handler as a Request, answered and recorded at its instant of the mock's clock; " +
        "the subject's time also covers the autopilot's state changes over the 30 days. " +
        `Median of ${rounds} rounds, each the baseline, the subject, and the baseline again on the bodies the subject delivered (the two baselines averaged).`,
    },
  ];
};
