/**
 * Event-log catch-up: process every event since the last run, oldest first,
 * and remember where it stopped.
 *
 * After an outage (or instead of webhooks), a worker reads the service's
 * event log from its checkpoint, hands each event to its own code, and saves
 * the checkpoint as it goes: the next run starts where this one ended, and a
 * crash replays at most a page, losing nothing. Events are delivered at least
 * once; the same `dedupe` store as a webhook handler's
 * (`createWebhookHandler({ dedupe })`) makes an event seen by both processed once.
 *
 * Run it from a clone of the repository (after `npm run build`, which
 * `medrecords` resolves to):
 *
 *   node examples/catch-up.ts            # one pass, then exit
 *   node examples/catch-up.ts --follow   # one pass, then one every MEDRECORDS_POLL_SECONDS (60)
 *
 * From a project that installed `medrecords` (Node 22.18 or later strips
 * the types; it strips no file inside node_modules, hence the `.mts` copy:
 * examples/README.md):
 *
 *   cp node_modules/medrecords/examples/catch-up.ts catch-up.mts && node catch-up.mts
 *
 * With MEDRECORDS_API_KEY and MEDRECORDS_BASE_URL it reads that service's
 * log, with the checkpoint in MEDRECORDS_CHECKPOINT_FILE (default
 * .medrecords/checkpoint.json): run it twice and the second run processes
 * only what is new. With no key it starts the embedded reference server,
 * makes a retrieval request go through a few changes so the log has events,
 * catches up, then shows a second pass from the checkpoint picking up one new
 * event. Lines name event types and ids, never the key or client details.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { AnyEvent, CatchUpResult } from "medrecords";
import { fileCheckpoint, isKnownEvent, MedRecords } from "medrecords";
import type { MockServer } from "medrecords/mock";

export interface RunOptions {
  /** After the first pass, keep polling every MEDRECORDS_POLL_SECONDS until `stop()`. */
  follow?: boolean;
}

export interface CatchUpRun {
  target: "embedded" | "service";
  baseUrl: string;
  checkpointFile: string;
  /** Every event handed over, in the order processed (it grows while following). */
  events: Array<{ id: string; type: string; created_at: string }>;
  /** The result of each pass run before `main` resolved. */
  passes: CatchUpResult[];
  /** Stops following and closes the embedded server; resolves once the pass in flight ended. */
  stop(): Promise<void>;
}

const say = (line: string) => console.log(line);

/** Catches up once (and with `follow`, keeps at it); the environment variables are those of the header. */
export async function main(
  env: NodeJS.ProcessEnv = process.env,
  options: RunOptions = {},
): Promise<CatchUpRun> {
  const apiKey = env.MEDRECORDS_API_KEY;
  let mr: MedRecords;
  let server: MockServer | undefined;
  if (apiKey) {
    if (!env.MEDRECORDS_BASE_URL) {
      throw new Error(
        "MEDRECORDS_API_KEY is set: set MEDRECORDS_BASE_URL to the service's address too.",
      );
    }
    mr = new MedRecords({ apiKey, baseUrl: env.MEDRECORDS_BASE_URL });
    say(`Reading the event log of ${mr.baseUrl}.`);
  } else {
    const { startMockServer } = await import("medrecords/mock");
    server = await startMockServer();
    say(
      `No MEDRECORDS_API_KEY set: reading the event log of the embedded reference server at ${server.url} ` +
        "(fictional data, nothing leaves this machine).",
    );
    mr = new MedRecords({ apiKey: server.apiKeys.create(), baseUrl: server.url });
  }
  const close = async () => {
    await server?.close();
  };

  try {
    const seeded = server === undefined ? undefined : await seed(mr, server);
    const checkpointFile =
      env.MEDRECORDS_CHECKPOINT_FILE ||
      (server === undefined
        ? ".medrecords/checkpoint.json"
        : // A fresh server has a fresh log: a checkpoint of an earlier run would not belong to it.
          join(await mkdtemp(join(tmpdir(), "medrecords-catch-up-")), "checkpoint.json"));
    const checkpoint = fileCheckpoint(checkpointFile);
    const saved = await checkpoint.load();
    say(
      saved === null
        ? `No checkpoint in ${checkpointFile} yet: reading the whole log (it keeps 30 days).`
        : `Continuing after the event of ${saved.created_at} (checkpoint in ${checkpointFile}).`,
    );

    const events: CatchUpRun["events"] = [];
    const poller = mr.events.catchUp({
      checkpoint,
      // Oldest first; the checkpoint moves past an event only once this resolved.
      onEvent: async (event) => {
        events.push({ id: event.id, type: event.type, created_at: event.created_at });
        say(`  ${event.created_at}  ${event.type}  ${event.id}${detailsOf(event)}`);
      },
      // The checkpoint is older than the log's 30 days: what happened meanwhile is
      // recovered from the retrieval requests themselves, then the run goes on.
      onGap: async ({ checkpoint: stale, oldestAvailable }) => {
        say(
          `The checkpoint (${stale.created_at}) is older than the log's retention: events before ` +
            `${oldestAvailable} may be gone. Refreshing the retrieval requests changed since then:`,
        );
        for await (const request of mr.retrievalRequests.changes({ since: stale.created_at })) {
          say(`  retrieval request ${request.id}: ${request.status} (stage ${request.stage})`);
        }
      },
    });

    const passes: CatchUpResult[] = [];
    const pass = async (what: string) => {
      const result = await poller.runOnce();
      passes.push(result);
      say(
        `${what}: ${result.processed} event(s) processed` +
          `${result.duplicates > 0 ? `, ${result.duplicates} duplicate(s) skipped` : ""}` +
          `${result.checkpoint === null ? "" : `; checkpoint at ${result.checkpoint.created_at}`}.`,
      );
    };
    await pass("Caught up");

    if (server !== undefined && seeded !== undefined) {
      // One more change, to show the second pass starting from the checkpoint.
      server.retrievalRequests.complete(seeded);
      say(`  [simulated provider] Completed retrieval request ${seeded}: one new event.`);
      await pass("Second pass, from the checkpoint");
    }

    if (!options.follow) {
      await close();
      return {
        target: server === undefined ? "service" : "embedded",
        baseUrl: mr.baseUrl,
        checkpointFile,
        events,
        passes,
        stop: async () => {},
      };
    }

    const intervalMs = seconds(env.MEDRECORDS_POLL_SECONDS, 60) * 1000;
    poller.start({ intervalMs });
    say(`Following the log every ${intervalMs / 1000} s; Ctrl-C to stop.`);
    if (server !== undefined) {
      say(
        `Nothing happens on the embedded server unless you drive it, e.g. ` +
          `curl -X POST ${server.controlUrl}/retrieval-requests/${seeded}/status ` +
          `-H 'content-type: application/json' -d '{"status":"processing","stage":"quality_review"}'`,
      );
    }
    let stopping: Promise<void> | undefined;
    return {
      target: server === undefined ? "service" : "embedded",
      baseUrl: mr.baseUrl,
      checkpointFile,
      events,
      passes,
      stop() {
        stopping ??= poller.stop().then(close);
        return stopping;
      },
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** What an event is about, in ids and states (never a body's client details). */
function detailsOf(event: AnyEvent): string {
  // A type added after this SDK version: process what you can, skip the rest.
  if (!isKnownEvent(event)) return " (a type this SDK version does not know)";
  switch (event.type) {
    case "retrieval_request.status_changed":
      return `  ${event.data.retrieval_request_id} -> ${event.data.status} (stage ${event.data.stage})`;
    case "retrieval_request.action_required":
      return `  ${event.data.retrieval_request_id} action request ${event.data.action_request_id}`;
    case "retrieval_request.documents_available":
      return `  ${event.data.retrieval_request_id} ${event.data.document_ids.length} document(s)`;
    case "webhook.disabled":
      return `  webhook ${event.data.webhook_id} disabled`;
    default:
      return "";
  }
}

/**
 * Gives the embedded server's log something to catch up on: a retrieval
 * request that the provider moves on, asks a question about (answered by the
 * firm, through the API) and releases records for. Returns its id.
 */
async function seed(mr: MedRecords, server: MockServer): Promise<string> {
  const auth_form = await mr.retrievalRequests.uploadFile({
    file: new TextEncoder().encode("%PDF-1.4\n% fictional signed authorization\n%%EOF\n"),
    file_name: "authorization.pdf",
    file_type: "application/pdf",
  });
  const { id } = await mr.retrievalRequests.create({
    case: { title: "Example v. Demo Catch-up (fictional)", client_name: "Sam Catchup-Example" },
    facility_id: "fac_mercy_general",
    requestor: { name: "Catch-up Paralegal", email: "paralegal@firm.example" },
    auth_form,
  });
  const provider = server.retrievalRequests;
  provider.setStatus(id, { status: "processing", stage: "request_sent" });
  provider.openActionRequest(id, {
    reason: "additional_information_needed",
    message: "Please confirm the dates of treatment.",
  });
  await mr.retrievalRequests.respondToAction(id, { message: "March to May 2025." });
  provider.releaseRecords(id, [
    {
      file_name: "records.pdf",
      file_type: "application/pdf",
      content: "%PDF-1.4\n% fictional records\n%%EOF\n",
    },
  ]);
  say(`Seeded the embedded server: retrieval request ${id} went through a few changes.`);
  return id;
}

function seconds(value: string | undefined, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new Error(`Expected a number of seconds, got "${value}".`);
  return n;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    const follow = process.argv.includes("--follow");
    const run = await main(process.env, { follow });
    if (follow) {
      for (const signal of ["SIGINT", "SIGTERM"] as const)
        process.once(signal, () => void run.stop());
    }
  } catch (error) {
    console.error(`Catch-up failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
