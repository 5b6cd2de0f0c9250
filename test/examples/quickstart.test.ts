/**
 * examples/quickstart.ts, both ways: with no key it starts the embedded
 * reference server and plays the provider itself; with a key it works
 * against a server it did not start (here a separate `startMockServer`,
 * whose provider this test plays), polling as it would a real service.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { DEMO_CASE, demoRecordsPdf, main } from "../../examples/quickstart.js";
import { MedRecords } from "../../src/index.js";
import { type MockServer, startMockServer } from "../../src/mock/index.js";
import { bundledScript } from "../helpers/bundle.js";
import { captureLines } from "../helpers/console-lines.js";
import { findSecrets } from "../setup/sentinels.js";

afterEach(() => {
  vi.restoreAllMocks();
});

async function downloadDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "medrecords-quickstart-test-"));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** No key, no webhook secret, no value of the demo case in any printed line. */
function expectNothingSecret(lines: string[], apiKey?: string) {
  const text = lines.join("\n");
  expect(findSecrets(text)).toEqual([]);
  if (apiKey !== undefined) expect(text).not.toContain(apiKey);
  for (const value of [
    DEMO_CASE.title,
    DEMO_CASE.client_name,
    DEMO_CASE.client_date_of_birth,
    DEMO_CASE.date_of_injury,
  ]) {
    expect(text).not.toContain(value);
  }
}

/** A reference server the example did not start, as a real service would be. */
async function startService(): Promise<MockServer> {
  const server = await startMockServer();
  onTestFinished(() => server.close());
  return server;
}

/** The file the test's provider releases. */
const RECORDS = new TextEncoder().encode(
  "%PDF-1.7\n% records released by the test's provider\n%%EOF\n",
);

/**
 * Plays the provider of `server` in the background, as a real one acts on its
 * own time: asks for something on a new request, then releases the records
 * once the firm answered.
 */
function playProvider(
  server: MockServer,
  reason:
    | "missing_hipaa_authorization"
    | "payment_approval_required" = "missing_hipaa_authorization",
) {
  const client = new MedRecords({ apiKey: server.apiKeys.create(), baseUrl: server.url });
  const provider = server.retrievalRequests;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      for await (const request of client.retrievalRequests.list()) {
        if (request.status === "pending") {
          provider.setStatus(request.id, { status: "processing", stage: "request_sent" });
          provider.openActionRequest(request.id, { reason, message: "Please answer." });
        } else if (
          request.status === "processing" &&
          request.documents.length === 0 &&
          provider.actionRequests(request.id).some((ar) => ar.status === "responded")
        ) {
          provider.releaseRecords(request.id, [
            { file_name: "records.pdf", file_type: "application/pdf", content: RECORDS },
          ]);
          provider.complete(request.id);
        }
      }
      await sleep(10);
    }
  })();
  const stop = async () => {
    stopped = true;
    await loop;
  };
  onTestFinished(() => stop());
  return stop;
}

describe("examples/quickstart.ts with no key: the embedded reference server", () => {
  it("completes the whole flow, says what it did and closes the server", async () => {
    const lines = captureLines();
    const dir = await downloadDir();
    const summary = await main({ MEDRECORDS_DOWNLOAD_DIR: dir });

    expect(summary).toMatchObject({
      target: "embedded",
      outcome: "completed",
      status: "completed",
      stage: "completed",
      caseId: expect.stringMatching(/^case_/),
      documentId: expect.stringMatching(/^doc_/),
      retrievalRequestId: expect.stringMatching(/^ret_/),
      answeredActionRequests: [expect.any(String)],
    });
    const records = demoRecordsPdf();
    expect(summary.downloads).toHaveLength(1);
    const [download] = summary.downloads;
    expect(download!.bytes).toBe(records.byteLength);
    expect(download!.bytes).toBeGreaterThan(0);
    expect(download!.sha256).toBe(sha256(records));
    expect(new Uint8Array(await readFile(download!.path))).toEqual(records);
    expect(download!.path.startsWith(dir)).toBe(true);

    expect(lines[0]).toMatch(
      /^No MEDRECORDS_API_KEY set: running against the embedded reference server at http:\/\/127\.0\.0\.1:\d+ .*nothing leaves this machine/,
    );
    const text = lines.join("\n");
    expect(text).toContain(`Created case ${summary.caseId}`);
    expect(text).toContain(`document ${summary.documentId}`);
    expect(text).toContain(`Filed retrieval request ${summary.retrievalRequestId}: pending`);
    expect(text).toContain("[simulated provider]");
    expect(text).toContain(`Answered action request ${summary.answeredActionRequests[0]}`);
    expect(text).toContain(`Downloaded record ${download!.documentId}: ${download!.bytes} bytes`);
    expect(lines.at(-2)).toMatch(/^Done in \d+\.\d s: retrieval request ret_\w+ completed/);
    expectNothingSecret(lines);

    // The embedded server is gone, so the process can exit.
    await expect(fetch(`${summary.baseUrl}/v2/cases`)).rejects.toThrow();
  });

  it("runs as a program and exits 0 by itself: the embedded server is closed", async () => {
    const script = await bundledScript("examples/quickstart.ts");
    const { MEDRECORDS_API_KEY: _key, MEDRECORDS_BASE_URL: _url, ...env } = process.env;
    // A hanging process (a server left open) is killed by the timeout and fails the test.
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [script], {
      env: { ...env, MEDRECORDS_DOWNLOAD_DIR: await downloadDir() },
      timeout: 20_000,
    });
    expect(stderr).toBe("");
    const lines = stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(
      /^No MEDRECORDS_API_KEY set: running against the embedded reference server/,
    );
    expect(lines.at(-2)).toMatch(/^Done in /);
    expectNothingSecret(lines);
  });

  it("refuses to resume a request without a key: the embedded server starts empty", async () => {
    captureLines();
    await expect(main({ MEDRECORDS_RETRIEVAL_REQUEST_ID: "ret_1" })).rejects.toThrow(
      /MEDRECORDS_API_KEY/,
    );
  });
});

describe("examples/quickstart.ts with a key: a service it did not start", () => {
  it("polls the request while the provider acts, answers it and downloads the records", async () => {
    const server = await startService();
    playProvider(server);
    const lines = captureLines();
    const apiKey = server.apiKeys.create();
    const summary = await main({
      MEDRECORDS_API_KEY: apiKey,
      MEDRECORDS_BASE_URL: server.url,
      MEDRECORDS_FACILITY_ID: "fac_mercy_general",
      MEDRECORDS_POLL_SECONDS: "0.02",
      MEDRECORDS_WAIT_SECONDS: "20",
      MEDRECORDS_DOWNLOAD_DIR: await downloadDir(),
    });

    expect(summary).toMatchObject({ target: "service", baseUrl: server.url, outcome: "completed" });
    const id = summary.retrievalRequestId!;
    expect(summary.downloads).toHaveLength(1);
    expect(summary.downloads[0]!.bytes).toBe(RECORDS.byteLength);
    expect(summary.downloads[0]!.sha256).toBe(sha256(RECORDS));

    // What the service received: the case, its document, and one answer with a signed PDF.
    const mr = new MedRecords({ apiKey: server.apiKeys.create(), baseUrl: server.url });
    expect((await mr.cases.retrieve(summary.caseId!)).title).toBe(DEMO_CASE.title);
    expect((await mr.documents.retrieve(summary.documentId!)).case_id).toBe(summary.caseId);
    const [actionRequest] = server.retrievalRequests.actionRequests(id);
    expect(actionRequest?.status).toBe("responded");
    expect(actionRequest?.id).toBe(summary.answeredActionRequests[0]);
    expect(actionRequest?.responses[0]?.attachment?.file_type).toBe("application/pdf");

    expect(lines[0]).toBe(`Running against ${server.url}, with fictional case data.`);
    expect(lines).toContain("Waiting up to 20 s for the provider, polling every 0.02 s.");
    expect(lines.join("\n")).not.toContain("[simulated provider]");
    expectNothingSecret(lines, apiKey);
  });

  it("stops before filing a retrieval request when no facility was chosen", async () => {
    const server = await startService();
    const lines = captureLines();
    const summary = await main({
      MEDRECORDS_API_KEY: server.apiKeys.create(),
      MEDRECORDS_BASE_URL: server.url,
    });
    expect(summary.outcome).toBe("no_facility");
    expect(summary.caseId).toBeDefined();
    expect(summary.documentId).toBeDefined();
    expect(summary.retrievalRequestId).toBeUndefined();
    const mr = new MedRecords({ apiKey: server.apiKeys.create(), baseUrl: server.url });
    expect((await mr.retrievalRequests.list()).results).toEqual([]);
    expect(lines.at(-1)).toMatch(
      /^Stopped before filing a retrieval request.*MEDRECORDS_FACILITY_ID/,
    );
  });

  it("stops when the wait ends, and resumes the request later", async () => {
    const server = await startService();
    const lines = captureLines();
    const env = {
      MEDRECORDS_API_KEY: server.apiKeys.create(),
      MEDRECORDS_BASE_URL: server.url,
      MEDRECORDS_FACILITY_ID: "fac_mercy_general",
      MEDRECORDS_POLL_SECONDS: "0.02",
      MEDRECORDS_WAIT_SECONDS: "0.1",
      MEDRECORDS_DOWNLOAD_DIR: await downloadDir(),
    };
    const first = await main(env);
    expect(first).toMatchObject({ outcome: "waiting", status: "pending", stage: "intake" });
    expect(lines.at(-1)).toContain(`MEDRECORDS_RETRIEVAL_REQUEST_ID=${first.retrievalRequestId}`);
    expect(lines.at(-1)).toContain("examples/webhook-receiver.ts");

    // Days later, the provider has acted.
    playProvider(server);
    const resumed = await main({
      ...env,
      MEDRECORDS_WAIT_SECONDS: "20",
      MEDRECORDS_RETRIEVAL_REQUEST_ID: first.retrievalRequestId,
    });
    expect(resumed).toMatchObject({
      outcome: "completed",
      retrievalRequestId: first.retrievalRequestId,
    });
    expect(resumed.caseId).toBeUndefined();
    expect(resumed.downloads[0]?.sha256).toBe(sha256(RECORDS));
    expect(lines).toContain(`Resuming retrieval request ${first.retrievalRequestId}.`);
    // One case, one retrieval request: resuming created nothing.
    const mr = new MedRecords({ apiKey: server.apiKeys.create(), baseUrl: server.url });
    expect((await mr.cases.list()).results).toHaveLength(1);
    expect((await mr.retrievalRequests.list()).results).toHaveLength(1);
  });

  it("leaves an action request it cannot answer to a person", async () => {
    const server = await startService();
    playProvider(server, "payment_approval_required");
    const lines = captureLines();
    const summary = await main({
      MEDRECORDS_API_KEY: server.apiKeys.create(),
      MEDRECORDS_BASE_URL: server.url,
      MEDRECORDS_FACILITY_ID: "fac_mercy_general",
      MEDRECORDS_POLL_SECONDS: "0.02",
      MEDRECORDS_WAIT_SECONDS: "20",
    });
    expect(summary).toMatchObject({
      outcome: "needs_answer",
      status: "action_required",
      answeredActionRequests: [],
    });
    const [actionRequest] = server.retrievalRequests.actionRequests(summary.retrievalRequestId!);
    expect(actionRequest?.status).toBe("open");
    expect(lines.at(-1)).toMatch(/payment_approval_required\) needs a person's answer/);
  });

  it("needs the base URL with the key", async () => {
    captureLines();
    await expect(main({ MEDRECORDS_API_KEY: "medrecords_sk_live_x" })).rejects.toThrow(
      /MEDRECORDS_BASE_URL/,
    );
  });
});
