/**
 * What the two queue recipes share ([`pg-boss-worker.ts`](pg-boss-worker.ts),
 * [`bullmq-worker.ts`](bullmq-worker.ts)): the webhook handler that only
 * enqueues, and the worker step that processes each event once.
 *
 * The service waits 5 seconds for a delivery's answer. Work that may take
 * longer (fetching records, writing to several systems) goes to a queue: the
 * handler enqueues the event under a job id derived from the event id, so a
 * repeated delivery finds the job already there, and answers 200 at once. The
 * queue's workers then process it with the queue's own retries, and claim it
 * in the same shared dedupe store the catch-up poller uses (two-phase: a lease
 * while processing, done afterwards), so an event that also arrives through
 * the poller, or is enqueued again after its job record was removed, is
 * processed once.
 */
import {
  createWebhookHandler,
  DEFAULT_DEDUPE_TTL_SECONDS,
  type DedupeStore,
  type EventOfType,
  type HandledEventType,
} from "medrecords/webhooks";

/** Any retrieval request event: what the recipes enqueue. */
export type QueuedEvent = EventOfType<HandledEventType>;

/** What a job's processing resolved to. */
export type ProcessOutcome = "processed" | "duplicate";

/**
 * Thrown by {@link processOnce} when another worker (or the poller) holds the
 * event's lease right now: the queue retries the job later, by which time the
 * other one has finished (the retry then finds it done) or died (its lease
 * lapses and the retry processes the event).
 */
export class EventInProgressError extends Error {
  override name = "EventInProgressError";
  constructor(eventId: string) {
    super(`Event ${eventId} is being processed elsewhere; the queue retries this job later.`);
  }
}

/**
 * The webhook handler of a queue recipe: every retrieval request event is
 * handed to `enqueue`, and the delivery is answered as soon as it resolves.
 * A failing `enqueue` answers 500, so the service delivers the event again.
 *
 * The handler keeps its default in-memory dedupe store: it only spares a
 * second enqueue in this process; the job id is what keeps the queue to one
 * job per event, and the worker's claim is what keeps processing to once.
 */
export function enqueueingHandler(options: {
  secret: string | readonly string[];
  enqueue: (event: QueuedEvent) => Promise<unknown>;
}): (request: Request) => Promise<Response> {
  const enqueue = async (event: QueuedEvent) => {
    await options.enqueue(event);
  };
  return createWebhookHandler({
    secret: options.secret,
    on: {
      "retrieval_request.status_changed": enqueue,
      "retrieval_request.action_required": enqueue,
      "retrieval_request.documents_available": enqueue,
    },
  });
}

/**
 * Runs `process(event)` once across every worker and the catch-up poller
 * sharing `dedupe`: claims the event's id (a lease of the store's
 * `leaseSeconds`, which must outlast the longest processing), marks it done
 * for `ttlSeconds` once `process` resolved, and gives the lease up when it
 * threw, rethrowing so that the queue retries the job.
 */
export async function processOnce(
  dedupe: DedupeStore,
  event: QueuedEvent,
  process: (event: QueuedEvent) => Promise<void>,
  ttlSeconds = DEFAULT_DEDUPE_TTL_SECONDS,
): Promise<ProcessOutcome> {
  const claim = await dedupe.claim(event.id);
  if (claim.state === "done") return "duplicate";
  if (claim.state === "in_progress") throw new EventInProgressError(event.id);
  try {
    await process(event);
  } catch (error) {
    await dedupe.release(event.id, claim.token);
    throw error;
  }
  await dedupe.complete(event.id, claim.token, ttlSeconds);
  return "processed";
}
