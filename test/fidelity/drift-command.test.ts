import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import type { DriftReport } from "../../src/fidelity/replay.js";
import { cassette, MedRecords } from "../../src/index.js";
import { type MockServer, startMockServer } from "../../src/mock/index.js";
import { findCanaries } from "../../src/testing/canary-scan.js";
import { type Canary, FICTIONAL_CLIENTS } from "../../src/testing/fictional-clients.js";
import { DRIFTS, type DriftingProxy, startDriftingProxy } from "../helpers/drifting-proxy.js";

const client = FICTIONAL_CLIENTS[2] as (typeof FICTIONAL_CLIENTS)[number];
const PERSONAL = {
  title: client.title,
  client_name: client.client_name,
  client_date_of_birth: client.client_date_of_birth,
  client_address: client.client_address,
  client_phone: client.client_phone,
  client_email: client.client_email,
  description: client.description,
};
const FILE_NAME = "Odalys Canary-Vireonne pharmacy notes.pdf";
const DOCUMENT_PATH = "/canary-vireonne/pharmacy";
const CANARIES: Canary[] = [
  ...Object.entries(PERSONAL).map(([kind, value]) => ({ kind, value })),
  { kind: "file_name", value: FILE_NAME },
  { kind: "document_path", value: DOCUMENT_PATH },
];

let mock: MockServer;
let proxy: DriftingProxy;
let dir: string;

beforeAll(async () => {
  mock = await startMockServer({ now: "2026-06-15T12:00:00.000Z" });
  proxy = await startDriftingProxy(mock.url);
  dir = mkdtempSync(join(tmpdir(), "medrecords-drift-"));
});

afterAll(async () => {
  await proxy.close();
  await mock.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The same day of traffic, recorded through `baseUrl`. */
async function recordDay(baseUrl: string, name: string): Promise<string> {
  const path = join(dir, `${name}.jsonl`);
  const apiKey = mock.apiKeys.create();
  const recording = cassette(path);
  const mr = new MedRecords({ apiKey, baseUrl, maxRetries: 0, record: recording });
  const kase = await mr.cases.create(PERSONAL);
  await mr.cases.retrieve(kase.id);
  await mr.cases.update(kase.id, { status: "pending" });
  await mr.cases.list({ limit: 100 });
  const document = await mr.cases.uploadDocument(kase.id, {
    file: new TextEncoder().encode("%PDF-1.4"),
    file_name: FILE_NAME,
    file_type: "application/pdf",
    path: DOCUMENT_PATH,
  });
  await mr.documents.retrieve(document.id);
  await mr.documents.list({ case_id: kase.id });
  await mr.requestors.create({ name: "Canary Requestor", email: "r@phi-canary.example" });
  await mr.cases.retrieve("case_not_there").catch(() => undefined);
  await recording.flush();
  return path;
}

async function run(args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(args, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env: {},
    signal: new AbortController().signal,
  });
  return { code, stdout, stderr };
}

describe("medrecords drift <cassette>", () => {
  it("finds no drift in a cassette recorded from the reference server", async () => {
    const path = await recordDay(mock.url, "reference");
    const { code, stdout } = await run(["drift", path, "--json"]);
    expect(JSON.parse(stdout)).toEqual({ exchanges: 10, drifts: [] });
    expect(code).toBe(0);
    expect((await run(["drift", path])).stdout).toBe("10 exchange(s) replayed, 0 drift(s)\n");
  });

  it("finds each drift of a cassette recorded through the drifted service, exit 1", async () => {
    const path = await recordDay(proxy.url, "drifted");
    const { code, stdout } = await run(["drift", path, "--json"]);
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as DriftReport;
    expect(report.exchanges).toBe(10);
    const found = report.drifts.map(({ operation, kind, pointer }) => ({
      operation,
      kind,
      pointer,
    }));
    expect(found).toEqual(expect.arrayContaining(Object.values(DRIFTS).map((d) => ({ ...d }))));
    // Replayed, the reference answers otherwise: the status of the create, the 404's code.
    expect(report.drifts).toContainEqual({
      exchange: 1,
      operation: "createCase",
      kind: "different_status",
      pointer: "",
      expected: "201",
      got: "200",
    });
    expect(report.drifts).toContainEqual({
      exchange: 10,
      operation: "getCase",
      kind: "different_error_code",
      pointer: "/error/code",
      expected: "not_found",
      got: "string",
    });
    // The update (PATCH) and the documents were answered as the spec says: nothing reported on them.
    expect(report.drifts.filter((d) => [3, 5, 6, 7, 8, 9].includes(d.exchange))).toEqual([]);
  });

  it("writes no personal value in any report, in any encoding", async () => {
    const path = await recordDay(proxy.url, "canary");
    const junit = join(dir, "canary.xml");
    const json = await run(["drift", path, "--json", "--junit", junit]);
    const text = await run(["drift", path]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(
      "#2 getCase unknown_field /risk_score: expected absent, got number",
    );
    const xml = readFileSync(junit, "utf8");
    expect(xml).toContain('<testsuite name="medrecords drift');
    expect(xml).toContain('tests="10"');
    expect(xml).toContain('<failure type="unknown_enum_value"');
    for (const [where, output] of [
      ["json", json.stdout],
      ["text", text.stdout],
      ["junit", xml],
      ["cassette", readFileSync(path, "utf8")],
    ] as const) {
      expect(findCanaries(output, where, CANARIES)).toEqual([]);
    }
  });

  it("seeds the reference server with the objects the cassette read, under their recorded ids", async () => {
    const apiKey = mock.apiKeys.create();
    const plain = new MedRecords({ apiKey, baseUrl: mock.url, maxRetries: 0 });
    const before = await plain.cases.create({
      title: "Made before",
      client_name: "Earlier Client",
    });
    const path = join(dir, "later.jsonl");
    const recording = cassette(path);
    const mr = new MedRecords({ apiKey, baseUrl: mock.url, maxRetries: 0, record: recording });
    await mr.cases.retrieve(before.id);
    await mr.cases.update(before.id, { description: "seen later" });
    await recording.flush();
    const { code, stdout } = await run(["drift", path, "--json"]);
    expect(JSON.parse(stdout)).toEqual({ exchanges: 2, drifts: [] });
    expect(code).toBe(0);
  });

  it("exits 2 on an unreadable cassette", async () => {
    const bad = join(dir, "bad.jsonl");
    writeFileSync(bad, "not json\n");
    expect(await run(["drift", bad])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("line 1: not JSON"),
    });
    expect((await run(["drift", join(dir, "missing.jsonl")])).code).toBe(2);
    expect((await run(["drift"])).code).toBe(2);
  });
});
