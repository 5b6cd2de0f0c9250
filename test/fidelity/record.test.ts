import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCassette } from "../../src/fidelity/cassette-format.js";
import { cassette, MedRecords } from "../../src/index.js";
import { type MockServer, startMockServer } from "../../src/mock/index.js";
import { findCanaries } from "../../src/testing/canary-scan.js";
import { type Canary, FICTIONAL_CLIENTS } from "../../src/testing/fictional-clients.js";

const client = FICTIONAL_CLIENTS[0] as (typeof FICTIONAL_CLIENTS)[number];
/** A value planted in every personal field the schemas mark. */
const PLANTED = {
  title: client.title,
  client_name: client.client_name,
  client_date_of_birth: client.client_date_of_birth,
  client_address: client.client_address,
  client_phone: client.client_phone,
  client_email: client.client_email,
  description: client.description,
  requestor_name: "Wendeline Canary-Requestor",
  requestor_email: "wendeline.canary-requestor@phi-canary.example",
  requestor_phone: "+1 555 0199 4242",
  file_name: "Quorra Canary-Quetzalwyn ER notes.pdf",
  document_path: "/canary-quetzalwyn/er-notes",
  action_request_message: "Canary-Quetzalwyn: please send the signed canary form",
  action_response_message: "Canary-Quetzalwyn reply: the canary form is attached",
};
const CANARIES: Canary[] = Object.entries(PLANTED).map(([kind, value]) => ({ kind, value }));

let mock: MockServer;
let sessions = 0;
let dir: string;

beforeAll(async () => {
  mock = await startMockServer({ now: "2026-06-15T12:00:00.000Z" });
  dir = mkdtempSync(join(tmpdir(), "medrecords-record-"));
});

afterAll(async () => {
  await mock.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A session that touches every personal field, a webhook secret and both presigned addresses. */
async function recordSession(path: string) {
  const apiKey = mock.apiKeys.create();
  const recording = cassette(path);
  const mr = new MedRecords({ apiKey, baseUrl: mock.url, maxRetries: 0, record: recording });
  const { title, client_name, client_date_of_birth, client_address, client_phone, client_email } =
    PLANTED;
  const fields = { client_name, client_date_of_birth, client_address, client_phone, client_email };
  const kase = await mr.cases.create({ title, ...fields, description: PLANTED.description });
  // The same client on a second case: the same replacements, so the relation holds.
  const second = await mr.cases.create({ title: "Second v. Matter", ...fields });
  await mr.cases.retrieve(kase.id);
  await mr.cases.list({ limit: 100 });
  await mr.requestors.create({
    name: PLANTED.requestor_name,
    email: PLANTED.requestor_email,
    phone: PLANTED.requestor_phone,
  });
  const document = await mr.cases.uploadDocument(kase.id, {
    file: new TextEncoder().encode("%PDF-1.4 canary"),
    file_name: PLANTED.file_name,
    file_type: "application/pdf",
    path: PLANTED.document_path,
  });
  const download = await mr.documents.downloadUrl(document.id);
  const webhook = await mr.webhooks.create({
    name: `records-${++sessions}`,
    url: "https://hooks.firm.example/medrecords",
    events: ["retrieval_request.status_changed"],
  });
  const seeded = mock.seed.retrievalRequest({
    case_id: kase.id,
    status: "action_required",
    action_required_reason: "other",
    pending_action_request: { message: PLANTED.action_request_message, requires_attachment: false },
  });
  await mr.retrievalRequests.retrieve(seeded.id);
  await mr.retrievalRequests.respondToAction(seeded.id, {
    message: PLANTED.action_response_message,
  });
  await mr.cases.retrieve("case_not_there").catch(() => undefined);
  await recording.flush();
  return { apiKey, kase, second, document, download, webhook };
}

describe("record: cassette(path)", () => {
  it("writes one scrubbed line per exchange, with no personal value in any encoding", async () => {
    const path = join(dir, "nested", "session.jsonl");
    const { apiKey, kase, download, webhook } = await recordSession(path);
    const text = readFileSync(path, "utf8");
    const { entries } = parseCassette(text);
    expect(entries.map((e) => e.operation)).toEqual([
      "createCase",
      "createCase",
      "getCase",
      "listCases",
      "createRequestor",
      "signCaseUpload",
      "createDocument",
      "downloadDocument",
      "createWebhook",
      "getRetrievalRequest",
      "respondToActionRequest",
      "getCase",
    ]);
    expect(findCanaries(text, "cassette", CANARIES)).toEqual([]);
    expect(text).not.toContain(apiKey);
    expect(text).not.toContain(webhook.secret);
    const presigned = new URL(download.download_url);
    expect(text).not.toContain(presigned.pathname);
    if (presigned.search !== "") expect(text).not.toContain(presigned.search.slice(1));
    // Ids, enums, counts and non-birth dates are kept.
    expect(entries[2]?.params).toEqual({ case_id: kase.id });
    expect(entries[2]?.response.body).toMatchObject({
      id: kase.id,
      case_number: kase.case_number,
      case_category: "personal_injury",
      created_at: kase.created_at,
    });
    expect(entries[3]?.query).toEqual({ limit: "100" });
    expect(entries[11]?.response).toMatchObject({
      status: 404,
      body: { error: { code: "not_found" } },
    });
    for (const entry of entries) expect(entry.request.headers).not.toHaveProperty("authorization");
  });

  it("replaces the same value by the same fictional value, valid where the schema checks it", async () => {
    const path = join(dir, "relations.jsonl");
    await recordSession(path);
    const { entries } = parseCassette(readFileSync(path, "utf8"));
    type CaseBody = Record<string, string>;
    const [first, second, read] = entries.map((e) => e.response.body as CaseBody);
    const sent = entries[0]?.request.body as CaseBody;
    for (const field of ["client_name", "client_email", "client_phone", "client_date_of_birth"]) {
      expect(first?.[field]).toBe(second?.[field]);
      expect(first?.[field]).toBe(sent[field]);
      expect(read?.[field]).toBe(sent[field]);
    }
    expect(first?.title).not.toBe(second?.title);
    expect(first?.client_email).toMatch(/^person-[0-9a-f]{8}@example\.test$/);
    expect(first?.client_date_of_birth).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(first?.client_date_of_birth).not.toBe(PLANTED.client_date_of_birth);
    const body = (index: number, side: "request" | "response") =>
      (entries[index]?.[side].body ?? {}) as CaseBody;
    expect(body(5, "request").file_name).toMatch(/^file-[0-9a-f]{8}\.pdf$/);
    expect(body(5, "response").upload_url).toBe(`${mock.storageUrl}/scrubbed`);
    expect(body(8, "response").secret).toBe("whsec_scrubbed");
  });

  it("uses another key for each cassette: the same value is not linkable across cassettes", async () => {
    const one = join(dir, "one.jsonl");
    const two = join(dir, "two.jsonl");
    await recordSession(one);
    await recordSession(two);
    const name = (path: string) => {
      const [first] = parseCassette(readFileSync(path, "utf8")).entries;
      return (first?.request.body as { client_name?: string } | undefined)?.client_name;
    };
    expect(name(one)).not.toBe(name(two));
  });
});

describe("record: the line is the exchange as it ended", () => {
  it("changes the caller makes after the call, to what it sent or got, do not reach the cassette", async () => {
    const path = join(dir, "as-ended.jsonl");
    const recording = cassette(path);
    const mr = new MedRecords({
      apiKey: mock.apiKeys.create(),
      baseUrl: mock.url,
      maxRetries: 0,
      record: recording,
    });
    const sent = { title: "As Ended v. Example", client_name: PLANTED.client_name };
    const created = await mr.cases.create(sent);
    const page = await mr.cases.list({ limit: 100 });
    // Before the cassette's thread has written either line.
    sent.title = "Changed v. Later";
    (created as { case_number: string }).case_number = "changed-after";
    (page.results[0] as { id: string }).id = "case_changed_after";
    await recording.flush();
    const text = readFileSync(path, "utf8");
    const [create, list] = parseCassette(text).entries;
    expect(create?.response.body).toMatchObject({ id: created.id });
    expect(text).not.toContain("Changed v. Later");
    expect(text).not.toContain("changed-after");
    expect(text).not.toContain("case_changed_after");
    const listed = (list?.response.body as { results?: { id: string }[] } | undefined)?.results;
    expect(listed?.map((c) => c.id)).toContain(created.id);
    expect(findCanaries(text, "cassette", CANARIES)).toEqual([]);
  });
});

/** Threads of this process whose nice value is 10 (Linux: /proc/self/task/<tid>/stat, field 19). */
function niceTenThreads(): number {
  return readdirSync("/proc/self/task").filter((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16] === "10";
  }).length;
}

describe("record: the cassette's thread", () => {
  it.runIf(process.platform === "linux")(
    "runs at a lower priority (nice 10), so it yields a core to the caller's threads",
    async () => {
      const before = niceTenThreads();
      const recording = cassette(join(dir, "priority.jsonl"));
      const mr = new MedRecords({
        apiKey: mock.apiKeys.create(),
        baseUrl: mock.url,
        maxRetries: 0,
        record: recording,
      });
      await mr.cases.list({ limit: 1 });
      await recording.flush();
      expect(niceTenThreads()).toBe(before + 1);
    },
  );
});

describe("cassette(path)", () => {
  it("refuses an empty path, and flush() resolves at once with nothing written", async () => {
    expect(() => cassette("")).toThrow("cassette(path): expected the path of a file to append to.");
    await expect(cassette(join(dir, "unused.jsonl")).flush()).resolves.toBeUndefined();
  });

  it("reports a write that fails to logger.warn, and the call still returns", async () => {
    const warnings: string[] = [];
    const recording = cassette(join(dir, "a-file", "under-a-file.jsonl"));
    writeFileSync(join(dir, "a-file"), "not a directory");
    const mr = new MedRecords({
      apiKey: mock.apiKeys.create(),
      baseUrl: mock.url,
      maxRetries: 0,
      record: recording,
      logger: { warn: (message) => warnings.push(message) },
    });
    const page = await mr.cases.list({ limit: 1 });
    expect(page.results).toBeDefined();
    await recording.flush();
    expect(warnings).toEqual(["medrecords: an exchange of listCases was not recorded (Error)."]);
  });
});
