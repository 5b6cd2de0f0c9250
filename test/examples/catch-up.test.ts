/**
 * examples/catch-up.ts: with no key against the embedded reference server it
 * seeds and catches up; with a key against a separately started server it
 * resumes from its file checkpoint run after run, follows the log with
 * --follow, and recovers through the retrieval requests when the checkpoint
 * is older than the log's retention.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { main } from "../../examples/catch-up.js";
import { MedRecords } from "../../src/index.js";
import { type MockServer, startMockServer } from "../../src/mock/index.js";
import { bundledScript } from "../helpers/bundle.js";
import { captureLines } from "../helpers/console-lines.js";
import { findSecrets } from "../setup/sentinels.js";

afterEach(() => {
  vi.restoreAllMocks();
});

async function checkpointFile(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "medrecords-catch-up-test-"));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return join(dir, "state", "checkpoint.json");
}

const CLIENT_NAME = "Robin Catchup-Test";

/** A server the example did not start, with a retrieval request that went through two changes. */
async function startService() {
  const server = await startMockServer();
  onTestFinished(() => server.close());
  const mr = new MedRecords({ apiKey: server.apiKeys.create(), baseUrl: server.url });
  const auth_form = await mr.retrievalRequests.uploadFile({
    file: new TextEncoder().encode("%PDF-1.4\n%%EOF\n"),
    file_name: "authorization.pdf",
    file_type: "application/pdf",
  });
  const { id } = await mr.retrievalRequests.create({
    case: { title: "Test v. Catch-up", client_name: CLIENT_NAME },
    facility_id: "fac_mercy_general",
    requestor: { name: "Test Paralegal", email: "paralegal@firm.example" },
    auth_form,
  });
  server.retrievalRequests.setStatus(id, { status: "processing", stage: "request_sent" });
  server.retrievalRequests.setStatus(id, { status: "processing", stage: "provider_processing" });
  return { server, mr, id };
}

/** The log as the service holds it, oldest first. */
async function logOf(mr: MedRecords): Promise<string[]> {
  const ids: string[] = [];
  for await (const event of mr.events.list()) ids.push(event.id);
  return ids.reverse();
}

function expectNothingSecret(lines: string[], apiKey?: string) {
  const text = lines.join("\n");
  expect(findSecrets(text)).toEqual([]);
  if (apiKey !== undefined) expect(text).not.toContain(apiKey);
  expect(text).not.toContain(CLIENT_NAME);
}

const envFor = (server: MockServer, file: string) => ({
  MEDRECORDS_API_KEY: server.apiKeys.create(),
  MEDRECORDS_BASE_URL: server.url,
  MEDRECORDS_CHECKPOINT_FILE: file,
});

describe("examples/catch-up.ts with no key: the embedded reference server", () => {
  it("seeds events, catches up, and a second pass from the checkpoint gets only the new one", async () => {
    const lines = captureLines();
    const run = await main({});

    expect(run.target).toBe("embedded");
    expect(run.passes.map((p) => p.processed)).toEqual([5, 1]);
    expect(run.events.map((e) => e.type)).toEqual([
      "retrieval_request.status_changed",
      "retrieval_request.status_changed",
      "retrieval_request.action_required",
      "retrieval_request.status_changed",
      "retrieval_request.documents_available",
      "retrieval_request.status_changed",
    ]);
    const last = run.events.at(-1)!;
    expect(run.passes[1]?.checkpoint?.created_at).toBe(last.created_at);
    // The file checkpoint holds the same position.
    expect(JSON.parse(await readFile(run.checkpointFile, "utf8"))).toEqual(
      run.passes[1]?.checkpoint,
    );
    await rm(join(run.checkpointFile, ".."), { recursive: true, force: true });

    expect(lines[0]).toMatch(
      /^No MEDRECORDS_API_KEY set: reading the event log of the embedded reference server at http:\/\/127\.0\.0\.1:\d+ /,
    );
    for (const event of run.events) {
      expect(lines.some((line) => line.includes(`${event.type}  ${event.id}`))).toBe(true);
    }
    expect(lines).toContain(
      `Second pass, from the checkpoint: 1 event(s) processed; checkpoint at ${last.created_at}.`,
    );
    expectNothingSecret(lines);
    await expect(fetch(`${run.baseUrl}/v2/events`)).rejects.toThrow();
  });

  it("runs as a program and exits 0 by itself after one pass", async () => {
    const script = await bundledScript("examples/catch-up.ts");
    const { MEDRECORDS_API_KEY: _key, MEDRECORDS_BASE_URL: _url, ...env } = process.env;
    const file = await checkpointFile();
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [script], {
      env: { ...env, MEDRECORDS_CHECKPOINT_FILE: file },
      timeout: 20_000,
    });
    expect(stderr).toBe("");
    const lines = stdout.trimEnd().split("\n");
    expect(lines).toContain(
      `No checkpoint in ${file} yet: reading the whole log (it keeps 30 days).`,
    );
    expect(lines.at(-1)).toMatch(/^Second pass, from the checkpoint: 1 event\(s\) processed/);
    expectNothingSecret(lines);
  });
});

describe("examples/catch-up.ts with a key: a service it did not start", () => {
  it("resumes from its file checkpoint: each run processes only what is new", async () => {
    const { server, mr, id } = await startService();
    const file = await checkpointFile();
    const lines = captureLines();
    const env = envFor(server, file);

    const first = await main(env);
    expect(first.target).toBe("service");
    expect(first.events.map((e) => e.id)).toEqual(await logOf(mr));
    expect(first.passes).toHaveLength(1);
    expect(first.passes[0]?.processed).toBe(2);
    expect(lines).toContain(
      `No checkpoint in ${file} yet: reading the whole log (it keeps 30 days).`,
    );

    const again = await main(env);
    expect(again.events).toEqual([]);
    expect(lines).toContain(
      `Continuing after the event of ${first.events.at(-1)?.created_at} (checkpoint in ${file}).`,
    );

    server.retrievalRequests.complete(id);
    const third = await main(env);
    const log = await logOf(mr);
    expect(third.events.map((e) => e.id)).toEqual([log.at(-1)]);
    expect(lines.some((line) => line.includes(`${log.at(-1)}  ${id} -> completed`))).toBe(true);
    expectNothingSecret(lines, env.MEDRECORDS_API_KEY);
  });

  it("--follow keeps polling until stopped", async () => {
    const { server, id } = await startService();
    const lines = captureLines();
    const run = await main(
      { ...envFor(server, await checkpointFile()), MEDRECORDS_POLL_SECONDS: "0.05" },
      { follow: true },
    );
    onTestFinished(() => run.stop());
    expect(lines.at(-1)).toBe("Following the log every 0.05 s; Ctrl-C to stop.");
    expect(run.events).toHaveLength(2);

    server.retrievalRequests.complete(id);
    await vi.waitFor(() => expect(run.events).toHaveLength(3), { timeout: 5_000 });
    expect(run.events.at(-1)?.type).toBe("retrieval_request.status_changed");
    await run.stop();
    server.retrievalRequests.releaseRecords(id, [
      { file_name: "late.pdf", file_type: "application/pdf", content: "%PDF-1.4" },
    ]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(run.events).toHaveLength(3);
  });

  it("recovers through the retrieval requests when the checkpoint is past the log's retention", async () => {
    const { server, id } = await startService();
    const file = await checkpointFile();
    const stale = new Date(server.clock.now().getTime() - 40 * 86_400_000).toISOString();
    await mkdir(join(file, ".."), { recursive: true });
    await writeFile(file, JSON.stringify({ created_at: stale, ids_at_created_at: [] }));
    const lines = captureLines();

    const run = await main(envFor(server, file));
    expect(lines).toContain(`Continuing after the event of ${stale} (checkpoint in ${file}).`);
    expect(lines.some((line) => line.startsWith(`The checkpoint (${stale}) is older`))).toBe(true);
    expect(lines).toContain(`  retrieval request ${id}: processing (stage provider_processing)`);
    // The log's own events still follow, oldest first.
    expect(run.passes[0]?.processed).toBe(2);
  });

  it("needs the base URL with the key", async () => {
    captureLines();
    await expect(main({ MEDRECORDS_API_KEY: "medrecords_sk_live_x" })).rejects.toThrow(
      /MEDRECORDS_BASE_URL/,
    );
  });
});
