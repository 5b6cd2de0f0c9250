/**
 * Quickstart: the whole life of a records request through the SDK.
 *
 *   1. create a case,
 *   2. upload a document to it (an authorization PDF, made in memory),
 *   3. file a retrieval request with that authorization,
 *   4. answer the provider's action request (a signed HIPAA authorization),
 *   5. download the records once the request has completed.
 *
 * Run it from a clone of the repository:
 *
 *   npm run example
 *
 * From a project that installed `medrecords` (Node 22.18 or later strips
 * the types; it strips no file inside node_modules, hence the `.mts` copy:
 * examples/README.md):
 *
 *   cp node_modules/medrecords/examples/quickstart.ts quickstart.mts && node quickstart.mts
 *
 * With no MEDRECORDS_API_KEY it starts the embedded reference server
 * (`medrecords/mock`) on loopback and plays the provider's side itself, so the
 * request completes in a second and nothing leaves the machine. With a key, it
 * works against MEDRECORDS_BASE_URL, and the provider is real: it polls the
 * request for a bounded time (MEDRECORDS_WAIT_SECONDS, default 120; every
 * MEDRECORDS_POLL_SECONDS, default 10). Records take days, so it usually
 * stops while the request is in progress and says how to continue:
 * MEDRECORDS_RETRIEVAL_REQUEST_ID=ret_... resumes that request, and
 * examples/webhook-receiver.ts or examples/catch-up.ts hear about its changes.
 * A retrieval request is only filed against a real service when you choose the
 * facility (MEDRECORDS_FACILITY_ID), and only an action request about the
 * HIPAA authorization is answered automatically; any other waits for a person.
 *
 * Every line printed names ids, statuses and sizes, never the API key, client
 * details or file names (which can hold a patient's name). The case data
 * below is fictional.
 *
 * Other variables: MEDRECORDS_DOWNLOAD_DIR (default: a new temporary directory).
 */
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import type { CaseCreate, RetrievalRequest } from "medrecords";
import { MedRecords } from "medrecords";
import type { MockServer } from "medrecords/mock";

/** The fictional case the quickstart files. */
export const DEMO_CASE: CaseCreate = {
  title: "Example v. Demo Freight Lines (quickstart)",
  client_name: "Alex Quickstart-Example",
  client_date_of_birth: "1984-07-19",
  date_of_injury: "2025-03-14",
  case_category: "motor_vehicle_accident",
  external_id: "medrecords-quickstart",
};

/** Who at the firm files the request: a new retrieval profile, created with it. */
export const DEMO_REQUESTOR = { name: "Quickstart Paralegal", email: "paralegal@firm.example" };

/** The facility the embedded server's directory is searched for. */
const DEMO_FACILITY_QUERY = "Mercy General";

export interface DownloadedRecord {
  documentId: string;
  bytes: number;
  sha256: string;
  /** Where the bytes were written. */
  path: string;
}

export interface QuickstartSummary {
  /** `embedded`: the reference server started by the quickstart; `service`: MEDRECORDS_BASE_URL. */
  target: "embedded" | "service";
  baseUrl: string;
  /** Absent when resuming a request (MEDRECORDS_RETRIEVAL_REQUEST_ID). */
  caseId?: string;
  documentId?: string;
  retrievalRequestId?: string;
  /** Ids of the action requests this run answered. */
  answeredActionRequests: string[];
  /**
   * - `completed`: the records were downloaded;
   * - `cancelled`: the provider or the firm cancelled the request;
   * - `waiting`: still in progress when the wait ended (resume later);
   * - `needs_answer`: an action request only a person can answer;
   * - `no_facility`: against a real service without MEDRECORDS_FACILITY_ID, stopped before filing.
   */
  outcome: "completed" | "cancelled" | "waiting" | "needs_answer" | "no_facility";
  /** The request's last known status and stage. */
  status?: string;
  stage?: string;
  downloads: DownloadedRecord[];
  elapsedMs: number;
}

/** The provider's side on the embedded server: moves the request one step; says what it did. */
type Provider = (request: RetrievalRequest) => string | undefined;

interface Target {
  kind: "embedded" | "service";
  mr: MedRecords;
  /** Only on the embedded server, which has no provider of its own. */
  provider?: Provider;
  close(): Promise<void>;
}

const say = (line: string) => console.log(line);

/** Runs the quickstart; the environment variables are those of the header. */
export async function main(env: NodeJS.ProcessEnv = process.env): Promise<QuickstartSummary> {
  const startedAt = performance.now();
  const target = await connect(env);
  const summary: QuickstartSummary = {
    target: target.kind,
    baseUrl: target.mr.baseUrl,
    answeredActionRequests: [],
    outcome: "waiting",
    downloads: [],
    elapsedMs: 0,
  };
  try {
    await run(target, env, summary);
  } finally {
    await target.close();
  }
  summary.elapsedMs = Math.round(performance.now() - startedAt);
  if (summary.outcome === "completed") {
    const bytes = summary.downloads.reduce((sum, d) => sum + d.bytes, 0);
    say(
      `Done in ${(summary.elapsedMs / 1000).toFixed(1)} s: retrieval request ${summary.retrievalRequestId} ` +
        `completed, ${summary.answeredActionRequests.length} action request(s) answered, ` +
        `${summary.downloads.length} record file(s) downloaded (${bytes} bytes).`,
    );
    say(
      "Next: examples/webhook-receiver.ts and examples/catch-up.ts follow requests as they change.",
    );
  }
  return summary;
}

async function connect(env: NodeJS.ProcessEnv): Promise<Target> {
  const apiKey = env.MEDRECORDS_API_KEY;
  if (apiKey) {
    const baseUrl = env.MEDRECORDS_BASE_URL;
    if (!baseUrl) {
      throw new Error(
        "MEDRECORDS_API_KEY is set: set MEDRECORDS_BASE_URL to the service's address too.",
      );
    }
    const mr = new MedRecords({ apiKey, baseUrl });
    say(`Running against ${mr.baseUrl}, with fictional case data.`);
    return { kind: "service", mr, close: async () => {} };
  }
  if (env.MEDRECORDS_RETRIEVAL_REQUEST_ID) {
    throw new Error(
      "MEDRECORDS_RETRIEVAL_REQUEST_ID resumes a request of a real service: set MEDRECORDS_API_KEY and MEDRECORDS_BASE_URL too (the embedded server starts empty).",
    );
  }
  // Loaded only here: against a real service the reference server is never imported.
  const { startMockServer } = await import("medrecords/mock");
  const server = await startMockServer();
  say(
    `No MEDRECORDS_API_KEY set: running against the embedded reference server at ${server.url} ` +
      "(fictional data, nothing leaves this machine).",
  );
  if (env.MEDRECORDS_BASE_URL) say("MEDRECORDS_BASE_URL is ignored without MEDRECORDS_API_KEY.");
  const mr = new MedRecords({ apiKey: server.apiKeys.create(), baseUrl: server.url });
  return { kind: "embedded", mr, provider: simulatedProvider(server), close: () => server.close() };
}

async function run(target: Target, env: NodeJS.ProcessEnv, summary: QuickstartSummary) {
  const { mr } = target;
  let request: RetrievalRequest;
  const resumeId = env.MEDRECORDS_RETRIEVAL_REQUEST_ID;
  if (resumeId) {
    request = await mr.retrievalRequests.retrieve(resumeId);
    say(`Resuming retrieval request ${request.id}.`);
  } else {
    // 1. A case. Wire fields are snake_case, as in the API.
    const created = await mr.cases.create(DEMO_CASE);
    summary.caseId = created.id;
    say(`Created case ${created.id} (number ${created.case_number}).`);

    // 2. A document: signs an upload address, PUTs the bytes there, attaches them to the case.
    const authorization = authorizationPdf("Authorization for release of medical records");
    const document = await mr.cases.uploadDocument(created.id, {
      file: authorization,
      file_name: "authorization.pdf",
      file_type: "application/pdf",
      path: "/authorizations",
    });
    summary.documentId = document.id;
    say(
      `Uploaded an authorization PDF to the case: document ${document.id} (${document.file_size} bytes).`,
    );

    // 3. A retrieval request: where from, who asks, and the authorization (an upload id).
    const facilityId = await chooseFacility(target, env);
    if (facilityId === undefined) {
      summary.outcome = "no_facility";
      say(
        "Stopped before filing a retrieval request: against a real service it goes to a real provider. " +
          "Set MEDRECORDS_FACILITY_ID to a facility of your choice (mr.facilities.search({ query })) to go on.",
      );
      return;
    }
    const auth_form = await mr.retrievalRequests.uploadFile({
      file: authorization,
      file_name: "authorization.pdf",
      file_type: "application/pdf",
      case_id: created.id,
    });
    request = await mr.retrievalRequests.create({
      case_id: created.id,
      facility_id: facilityId,
      requestor: DEMO_REQUESTOR,
      auth_form,
      record_types: ["medical_records"],
    });
    say(`Filed retrieval request ${request.id}: ${describe(request)}.`);
  }
  summary.retrievalRequestId = request.id;

  // 4. Follow it: answer what can be answered, until it completes or the wait ends.
  request = await follow(target, request, env, summary);
  summary.status = request.status;
  summary.stage = request.stage;
  if (summary.outcome !== "completed") return;

  // 5. The records: `documentContent` fetches each from a fresh presigned address,
  //    without the API key, and re-signs once if that address has expired.
  const dir =
    env.MEDRECORDS_DOWNLOAD_DIR || (await mkdtemp(join(tmpdir(), "medrecords-quickstart-")));
  await mkdir(dir, { recursive: true });
  for await (const doc of mr.retrievalRequests.listDocuments(request.id)) {
    if (doc.kind !== "record" || !doc.ready) continue;
    const response = await mr.retrievalRequests.documentContent(request.id, doc.id);
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.byteLength !== doc.file_size) {
      throw new Error(
        `Downloaded ${bytes.byteLength} bytes of ${doc.id}, expected ${doc.file_size}.`,
      );
    }
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    // Named by id: a provider's file name can hold the patient's name.
    const path = join(dir, `${doc.id}${doc.file_type === "application/pdf" ? ".pdf" : ".bin"}`);
    await writeFile(path, bytes, { mode: 0o600 });
    summary.downloads.push({ documentId: doc.id, bytes: bytes.byteLength, sha256, path });
    say(
      `Downloaded record ${doc.id}: ${bytes.byteLength} bytes, sha256 ${sha256.slice(0, 16)}..., to ${path}`,
    );
  }
}

/** A facility id: MEDRECORDS_FACILITY_ID, or on the embedded server a search of its directory. */
async function chooseFacility(target: Target, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (env.MEDRECORDS_FACILITY_ID) return env.MEDRECORDS_FACILITY_ID;
  if (target.kind !== "embedded") return undefined;
  const page = await target.mr.facilities.search({ query: DEMO_FACILITY_QUERY });
  const facility = page.results[0];
  if (facility === undefined) throw new Error(`No facility matches "${DEMO_FACILITY_QUERY}".`);
  say(`Found facility ${facility.id} (${facility.name}) in the directory.`);
  return facility.id;
}

/**
 * Polls the request until it completes, is cancelled, needs a person, or the
 * wait ends; answers an action request about the HIPAA authorization on the way.
 */
async function follow(
  target: Target,
  filed: RetrievalRequest,
  env: NodeJS.ProcessEnv,
  summary: QuickstartSummary,
): Promise<RetrievalRequest> {
  const { mr, provider } = target;
  const waitMs = seconds(env.MEDRECORDS_WAIT_SECONDS, 120) * 1000;
  const pollMs = seconds(env.MEDRECORDS_POLL_SECONDS, 10) * 1000;
  const deadline = Date.now() + waitMs;
  let request = filed;
  let seen = request.public_updated_at;
  let toldWaiting = false;
  for (;;) {
    if (request.public_updated_at !== seen) {
      seen = request.public_updated_at;
      say(`Retrieval request ${request.id} is now ${describe(request)}.`);
    }
    const pending = request.pending_action_request;
    if (request.status === "action_required" && pending !== null) {
      if (pending.reason !== "missing_hipaa_authorization") {
        summary.outcome = "needs_answer";
        say(
          `Action request ${pending.id} (${pending.reason}) needs a person's answer: ` +
            `read it and answer with mr.retrievalRequests.respondToAction("${request.id}", { message }), ` +
            `then resume with MEDRECORDS_RETRIEVAL_REQUEST_ID=${request.id}.`,
        );
        return request;
      }
      summary.answeredActionRequests.push(await answerAuthorization(mr, request));
    } else if (request.status === "completed") {
      summary.outcome = "completed";
      return request;
    } else if (request.status === "cancelled") {
      summary.outcome = "cancelled";
      say(`Retrieval request ${request.id} was cancelled: there are no records to download.`);
      return request;
    } else {
      // On the embedded server the simulated provider moves the request on; a real one takes its time.
      const moved = provider?.(request);
      if (moved !== undefined) {
        say(`  [simulated provider] ${moved}`);
      } else if (Date.now() >= deadline) {
        summary.outcome = "waiting";
        say(
          `Retrieval request ${request.id} is still ${describe(request)} after ${waitMs / 1000} s: ` +
            "providers take days. Follow it with webhooks (examples/webhook-receiver.ts) or the " +
            `event log (examples/catch-up.ts), or run this again with MEDRECORDS_RETRIEVAL_REQUEST_ID=${request.id}.`,
        );
        return request;
      } else {
        if (!toldWaiting) {
          toldWaiting = true;
          say(
            `Waiting up to ${waitMs / 1000} s for the provider, polling every ${pollMs / 1000} s.`,
          );
        }
        await sleep(Math.min(pollMs, Math.max(0, deadline - Date.now())));
      }
    }
    request = await mr.retrievalRequests.retrieve(request.id);
  }
}

/** Answers a missing-authorization action request with a signed PDF; returns the action request's id. */
async function answerAuthorization(mr: MedRecords, request: RetrievalRequest): Promise<string> {
  const pending = request.pending_action_request!;
  if (request.case_id === null) {
    throw new Error(`Retrieval request ${request.id} has no case to upload the attachment under.`);
  }
  say(`Action request ${pending.id}: the provider asks for a signed HIPAA authorization (PDF).`);
  // An action-response attachment is a case-level upload under the request's case.
  const upload_id = await mr.retrievalRequests.uploadFile({
    file: authorizationPdf("Authorization for release of medical records - signed and dated"),
    file_name: "authorization-signed.pdf",
    file_type: "application/pdf",
    case_id: request.case_id,
  });
  const answer = await mr.retrievalRequests.respondToAction(request.id, {
    message: "Attached is the signed and dated HIPAA authorization.",
    attachment: { upload_id },
  });
  say(`Answered action request ${answer.id} with a signed authorization PDF: ${answer.status}.`);
  return answer.id;
}

/**
 * The provider's side, played on the embedded reference server through its
 * controls (`server.retrievalRequests`; over HTTP, the same calls are under
 * /__mock/): it first asks for a signed authorization, then releases the
 * records and completes the request.
 */
function simulatedProvider(server: MockServer): Provider {
  const provider = server.retrievalRequests;
  return (request) => {
    if (request.status === "pending") {
      provider.setStatus(request.id, { status: "processing", stage: "request_sent" });
      provider.openActionRequest(request.id, {
        reason: "missing_hipaa_authorization",
        message:
          "The authorization is not dated. Please send a signed and dated HIPAA authorization.",
      });
      return "The provider received the request and asks for a signed HIPAA authorization.";
    }
    if (request.status === "processing" && request.documents.length === 0) {
      provider.setStatus(request.id, { status: "processing", stage: "provider_processing" });
      provider.releaseRecords(request.id, [
        {
          file_name: "medical-records.pdf",
          file_type: "application/pdf",
          content: demoRecordsPdf(),
        },
      ]);
      provider.complete(request.id);
      return "The provider released 1 record file and completed the request.";
    }
    return undefined;
  };
}

/** The record file the simulated provider releases (fictional). */
export function demoRecordsPdf(): Uint8Array {
  return tinyPdf("Medical records (fictional, from the medrecords reference server)");
}

/** The authorization PDF the quickstart uploads (fictional). */
export function authorizationPdf(title: string): Uint8Array {
  return tinyPdf(`${title} (fictional, medrecords quickstart)`);
}

/** A one-page PDF with one line of text, with a correct cross-reference table. ASCII only. */
function tinyPdf(text: string): Uint8Array {
  const content = `BT /F1 12 Tf 72 720 Td (${text.replace(/[\\()]/g, "\\$&")}) Tj ET`;
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
  ];
  let pdf = "%PDF-1.4\n";
  const offsets = objects.map((body, i) => {
    const offset = pdf.length;
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return offset;
  });
  const xref = pdf.length;
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) pdf += `${String(offset).padStart(10, "0")} 00000 n \n`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(pdf);
}

function describe(request: RetrievalRequest): string {
  return `${request.status} (stage ${request.stage})`;
}

function seconds(value: string | undefined, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0)
    throw new Error(`Expected a number of seconds, got "${value}".`);
  return n;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    await main();
  } catch (error) {
    // SDK errors never hold the key or a body; print the message, not the whole object.
    console.error(`Quickstart failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
