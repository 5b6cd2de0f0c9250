import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { cassette, MedRecords } from "../../src/index.js";
import {
  createMockService,
  type MockServer,
  parseCassette,
  startMockServer,
} from "../../src/mock/index.js";
import { runCli, startCli } from "../helpers/cli.js";

let mock: MockServer;
let dir: string;
let path: string;
let recorded: { caseId: string; requestorId: string; documentId: string };

beforeAll(async () => {
  mock = await startMockServer({ now: "2026-06-15T12:00:00.000Z" });
  dir = mkdtempSync(join(tmpdir(), "medrecords-from-"));
  path = join(dir, "day.jsonl");
  const recording = cassette(path);
  const mr = new MedRecords({
    apiKey: mock.apiKeys.create(),
    baseUrl: mock.url,
    maxRetries: 0,
    record: recording,
  });
  const kase = await mr.cases.create({ title: "Doe v. Acme", client_name: "Jane Doe" });
  await mr.cases.update(kase.id, { status: "pending" });
  const requestor = await mr.requestors.create({ name: "Pat Lee", email: "pat@firm.example" });
  const document = await mr.cases.uploadDocument(kase.id, {
    file: new TextEncoder().encode("%PDF-1.4 twelve"),
    file_name: "intake.pdf",
    file_type: "application/pdf",
  });
  await recording.flush();
  recorded = { caseId: kase.id, requestorId: requestor.id, documentId: document.id };
});

afterAll(async () => {
  await mock.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What a client of `service` reads of the recorded objects. */
async function readBack(baseUrl: string, apiKey: string, fetch?: typeof globalThis.fetch) {
  const mr = new MedRecords({ apiKey, baseUrl, maxRetries: 0, ...(fetch ? { fetch } : {}) });
  return {
    kase: await mr.cases.retrieve(recorded.caseId),
    requestor: await mr.requestors.retrieve(recorded.requestorId),
    document: await mr.documents.retrieve(recorded.documentId),
  };
}

describe("createMockService({ from })", () => {
  it("starts with the cassette's objects under their recorded ids, as last seen and scrubbed", async () => {
    const service = createMockService({ from: path });
    const { kase, requestor, document } = await readBack(
      service.baseUrl,
      service.apiKeys.create(),
      service.fetch,
    );
    expect(kase).toMatchObject({
      id: recorded.caseId,
      status: "pending",
      case_number: "MR-000001",
    });
    expect(kase.client_name).not.toBe("Jane Doe");
    expect(requestor.email).toMatch(/@example\.test$/);
    expect(document).toMatchObject({ case_id: recorded.caseId, file_size: 15 });
    // New objects come after the recorded ones.
    const mr = new MedRecords({
      apiKey: service.apiKeys.create(),
      baseUrl: service.baseUrl,
      fetch: service.fetch,
    });
    expect((await mr.cases.create({ title: "New", client_name: "New" })).case_number).toBe(
      "MR-000002",
    );
  });

  it("takes a cassette loaded with parseCassette, and refuses an unreadable one naming it", () => {
    const service = createMockService({ from: parseCassette(readFileSync(path, "utf8")) });
    expect(service.seed).toBeDefined();
    const bad = join(dir, "bad.jsonl");
    writeFileSync(bad, "{}\n");
    expect(() => createMockService({ from: bad })).toThrow(
      `createMockService: from: cannot read the cassette ${bad}: line 1: version undefined is not 1.`,
    );
    expect(() => createMockService({ from: join(dir, "absent.jsonl") })).toThrow(/ENOENT/);
  });
});

describe("medrecords mock --from <cassette>", () => {
  it("serves the cassette's objects", async () => {
    const { child, firstLine, exited } = await startCli([
      "mock",
      "--port",
      "0",
      "--json",
      "--from",
      path,
    ]);
    onTestFinished(() => {
      if (child.exitCode === null) child.kill("SIGKILL");
    });
    const info = JSON.parse(firstLine) as { base_url: string; api_key: string };
    const { kase } = await readBack(info.base_url, info.api_key);
    expect(kase.id).toBe(recorded.caseId);
    child.kill("SIGTERM");
    await expect(exited).resolves.toMatchObject({ code: 0 });
  });

  it("exits 2 on an unreadable cassette", async () => {
    const run = await runCli(["mock", "--port", "0", "--from", join(dir, "absent.jsonl")]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("ENOENT");
  });
});
