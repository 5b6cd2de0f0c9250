/** The client with a custody log: every download and upload hashed as it streams, one entry each. */
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import {
  type CustodyLog,
  CustodyLogError,
  fileCustodyLog,
  MedRecords,
  MedRecordsError,
  memoryCustodyLog,
  verifyCustodyLog,
} from "../../src/index.js";
import { createMockService } from "../../src/mock/index.js";

const mock = createMockService({ now: "2026-06-15T12:00:00.000Z" });
const apiKey = mock.apiKeys.create();
const sha = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");
const tempDir = () => mkdtempSync(join(tmpdir(), "medrecords-custody-"));

/** The mock's fetch, with a hook on the storage origin's answers. */
let storageAnswer: (response: Response) => Response = (r) => r;
const urlOf = (input: RequestInfo | URL) => (input instanceof Request ? input.url : String(input));
const fetchThroughMock: typeof fetch = async (input, init) => {
  const storage = new URL(urlOf(input)).origin === mock.storageUrl;
  const response = await mock.fetch(input, init);
  return storage ? storageAnswer(response) : response;
};

const client = (custodyLog?: CustodyLog, extra: Record<string, unknown> = {}) =>
  new MedRecords({
    apiKey,
    baseUrl: mock.baseUrl,
    fetch: fetchThroughMock,
    maxRetries: 0,
    ...(custodyLog ? { custodyLog } : {}),
    ...extra,
  });

beforeEach(() => {
  mock.reset();
  mock.requests.clear();
  storageAnswer = (r) => r;
});

async function caseDocument(mr: MedRecords, text: string, file_name = "Jane Doe chart.txt") {
  const kase = await mr.cases.create({ title: "Doe v. Acme", client_name: "Jane Doe" });
  const document = await mr.cases.uploadDocument(kase.id, {
    file: new TextEncoder().encode(text),
    file_name,
    file_type: "text/plain",
  });
  return { kase, document };
}

const requestIdOf = (pathEnd: string) =>
  mock.requests.filter((r) => r.path.endsWith(pathEnd)).at(-1)?.requestId;

describe("downloads", () => {
  it("documents.content appends one entry with the file's facts once the body is read", async () => {
    const { kase, document } = await caseDocument(client(), "%PDF-1.7 chart of Jane Doe");
    const log = memoryCustodyLog();
    const mr = client(log);
    const response = await mr.documents.content(document.id);
    expect(log.stored).toHaveLength(0); // not before the stream completes
    expect(await response.text()).toBe("%PDF-1.7 chart of Jane Doe");
    expect(log.stored).toHaveLength(1);
    const entry = log.stored[0] as Record<string, unknown>;
    expect(entry).toMatchObject({
      seq: 1,
      action: "download",
      document_id: document.id,
      retrieval_request_id: null,
      case_id: kase.id,
      file_name: "Jane Doe chart.txt",
      file_type: "text/plain",
      bytes: 26,
      sha256: sha("%PDF-1.7 chart of Jane Doe"),
      request_id: requestIdOf(`/v2/documents/${document.id}/download`),
      prev_hash: "0".repeat(64),
    });
    expect(entry.request_id).toMatch(/\S/);
    expect(Date.parse(entry.at as string)).not.toBeNaN();
    expect(await verifyCustodyLog(log)).toMatchObject({ ok: true, entries: 1 });
  });

  it("retrievalRequests.documentContent names the request and its case", async () => {
    const kase = mock.seed.case();
    const request = mock.seed.retrievalRequest({
      case_id: kase.id,
      status: "completed",
      records: 2,
    });
    const record = request.documents[1]!;
    const log = memoryCustodyLog();
    const mr = client(log);
    const bytes = new Uint8Array(
      await (await mr.retrievalRequests.documentContent(request.id, record.id)).arrayBuffer(),
    );
    expect(log.stored[0]).toMatchObject({
      action: "download",
      document_id: record.id,
      retrieval_request_id: request.id,
      case_id: kase.id,
      file_name: record.file_name,
      file_type: record.file_type,
      bytes: bytes.byteLength,
      sha256: sha(bytes),
    });
  });

  it("a body cut short appends nothing: cancelled by the reader, or dropped by the connection", async () => {
    const { document } = await caseDocument(client(), "x".repeat(100_000));
    const log = memoryCustodyLog();
    const mr = client(log);
    const response = await mr.documents.content(document.id);
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    storageAnswer = (r) => {
      const source = r.body!.getReader();
      let sent = 0;
      const dropping = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (sent > 0) return controller.error(new TypeError("terminated: other side closed"));
          const { value } = await source.read();
          sent++;
          controller.enqueue(value!.subarray(0, 10));
        },
      });
      return new Response(dropping, { headers: r.headers });
    };
    await expect((await mr.documents.content(document.id)).arrayBuffer()).rejects.toThrow(
      /terminated/,
    );
    await expect(
      mr.documents.save(document.id, { path: join(tempDir(), "cut.txt") }),
    ).rejects.toThrow(/terminated/);
    expect(log.stored).toHaveLength(0);
  });

  it("a log that cannot be written fails the body at its end, never a clean end", async () => {
    const { document } = await caseDocument(client(), "the records");
    const failing: CustodyLog = {
      description: "a full disk",
      append: async () => {
        throw new Error("ENOSPC: no space left on device");
      },
      entries: async function* () {},
    };
    const mr = client(failing);
    const error = await (await mr.documents.content(document.id)).text().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CustodyLogError);
    expect((error as Error).message).toMatch(/a full disk: cannot append: ENOSPC/);
    // A log file in a place that cannot be written (a directory where the file should be).
    const dir = tempDir();
    const blocked = join(dir, "custody.jsonl");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(blocked);
    const fileMr = client(fileCustodyLog(blocked));
    const saved = join(dir, "records.txt");
    const refused = await fileMr.documents.save(document.id, { path: saved }).catch((e) => e);
    expect(refused).toBeInstanceOf(CustodyLogError);
    expect(readdirSync(dir)).toEqual(["custody.jsonl"]); // neither the file nor a temporary one
  });

  it("a download whose metadata cannot be read fails before any bytes are handed over", async () => {
    const log = memoryCustodyLog();
    await expect(client(log).documents.content("doc_missing")).rejects.toThrow(MedRecordsError);
    expect(log.stored).toHaveLength(0);
  });
});

describe("save helpers", () => {
  it("documents.save writes atomically and resolves { path, bytes, sha256 }, with or without a log", async () => {
    const { document } = await caseDocument(client(), "chart text");
    const dir = tempDir();
    const path = join(dir, "chart.txt");
    writeFileSync(path, "an older version");
    const saved = await client().documents.save(document.id, { path });
    expect(saved).toEqual({ path, bytes: 10, sha256: sha("chart text") });
    expect(readFileSync(path, "utf8")).toBe("chart text");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(["chart.txt"]);

    const log = memoryCustodyLog();
    const again = await client(log).documents.save(document.id, { path });
    expect(again.sha256).toBe(sha("chart text"));
    expect(log.stored[0]).toMatchObject({ sha256: again.sha256, bytes: 10 });
  });

  it("retrievalRequests.saveDocument saves a record; a failed save leaves the old file", async () => {
    const request = mock.seed.retrievalRequest({ status: "completed", records: 1 });
    const record = request.documents[0]!;
    const dir = tempDir();
    const path = join(dir, "record.pdf");
    const log = memoryCustodyLog();
    const saved = await client(log).retrievalRequests.saveDocument(request.id, record.id, { path });
    const bytes = readFileSync(path);
    expect(saved).toEqual({ path, bytes: bytes.byteLength, sha256: sha(bytes) });
    expect(log.stored[0]).toMatchObject({ retrieval_request_id: request.id, sha256: saved.sha256 });

    storageAnswer = () => new Response("nope", { status: 500 });
    await expect(
      client(log).retrievalRequests.saveDocument(request.id, record.id, { path }),
    ).rejects.toThrow(/answered 500/);
    expect(readFileSync(path)).toEqual(bytes);
    expect(readdirSync(dir)).toEqual(["record.pdf"]);
    await expect(client().documents.save("doc_1", { path: "" })).rejects.toThrow(/`path`/);
  });
});

describe("uploads", () => {
  it("cases.uploadDocument and retrievalRequests.uploadFile append an upload entry each", async () => {
    const log = memoryCustodyLog();
    const mr = client(log);
    const { kase, document } = await caseDocument(mr, "intake form");
    const signed = requestIdOf(`/v2/cases/${kase.id}/sign-upload`);
    const blobText = "authorization, signed";
    await mr.retrievalRequests.uploadFile({
      file: new Blob([blobText], { type: "application/pdf" }),
      file_name: "hipaa.pdf",
    });
    const chunks = ["a stream ", "of bytes"];
    await mr.retrievalRequests.uploadFile({
      file: new Blob(chunks).stream(),
      size: 17,
      file_name: "notes.txt",
      file_type: "text/plain",
      case_id: kase.id,
    });
    expect(log.stored).toMatchObject([
      {
        seq: 1,
        action: "upload",
        document_id: document.id,
        case_id: kase.id,
        file_name: "Jane Doe chart.txt",
        file_type: "text/plain",
        bytes: 11,
        sha256: sha("intake form"),
        request_id: signed,
      },
      {
        seq: 2,
        action: "upload",
        document_id: null,
        case_id: null,
        file_name: "hipaa.pdf",
        file_type: "application/pdf",
        bytes: blobText.length,
        sha256: sha(blobText),
      },
      { seq: 3, case_id: kase.id, bytes: 17, sha256: sha(chunks.join("")) },
    ]);
    expect(await verifyCustodyLog(log)).toMatchObject({ ok: true, entries: 3 });
  });

  it("a failed upload appends nothing", async () => {
    const log = memoryCustodyLog();
    const failingFetch: typeof fetch = async (input, init) =>
      new URL(urlOf(input)).origin === mock.storageUrl
        ? new Response("", { status: 500 })
        : mock.fetch(input, init);
    const failing = new MedRecords({
      apiKey,
      baseUrl: mock.baseUrl,
      fetch: failingFetch,
      maxRetries: 0,
      custodyLog: log,
    });
    await expect(
      failing.retrievalRequests.uploadFile({
        file: new Blob(["x"]),
        file_name: "a.pdf",
        file_type: "application/pdf",
      }),
    ).rejects.toThrow(/answered 500/);
    expect(log.stored).toHaveLength(0);
  });
});

describe("who acted, and the key", () => {
  it("actor is the key's redacted identity by default, custodyActor when given; the key is never written", async () => {
    const log = memoryCustodyLog();
    const { document } = await caseDocument(client(log), "x");
    await (
      await client(log, { custodyActor: "paralegal:jdoe" }).documents.content(document.id)
    ).text();
    // A careless actor holding the key has it replaced.
    await (
      await client(log, { custodyActor: `service ${apiKey}` }).documents.content(document.id)
    ).text();
    const [first, second, third] = log.stored as { actor: string }[];
    expect(first!.actor).toBe(`medrecords_sk_live_...${apiKey.slice(-4)}`);
    expect(second!.actor).toBe("paralegal:jdoe");
    expect(third!.actor).toBe("service [redacted]");
    const text = JSON.stringify(log.stored);
    expect(text).not.toContain(apiKey);
    expect(text).not.toContain(apiKey.slice("medrecords_sk_live_".length, -4));
  });

  it("a short key shows none of its secret part", async () => {
    const shortKey = mock.apiKeys.create();
    expect(
      new MedRecords({ apiKey: "medrecords_sk_live_abc", baseUrl: mock.baseUrl }),
    ).toBeDefined();
    const { keyHint } = await import("../../src/internal/key-hint.js");
    expect(keyHint("medrecords_sk_live_abcdefghijklmno")).toBe("medrecords_sk_live_...");
    expect(keyHint("medrecords_sk_live_abcdefghijklmnop")).toBe("medrecords_sk_live_...mnop");
    expect(keyHint("k")).toBe("...");
    expect(keyHint(shortKey)).toBe(`medrecords_sk_live_...${shortKey.slice(-4)}`);
  });

  it("redactFileNames writes [redacted] as the file name", async () => {
    const log = memoryCustodyLog();
    await caseDocument(client(log, { redactFileNames: true }), "x", "Jane Doe MRI.pdf");
    expect(log.stored[0]).toMatchObject({ file_name: "[redacted]" });
  });

  it("refuses custody options that could only fail later", () => {
    expect(() => client({} as CustodyLog)).toThrow(/`custodyLog` must be a custody log/);
    expect(() => client(memoryCustodyLog(), { custodyActor: " " })).toThrow(/`custodyActor`/);
    expect(() => client(memoryCustodyLog(), { redactFileNames: "yes" })).toThrow(
      /`redactFileNames`/,
    );
  });
});

describe("as a firm runs it", () => {
  it("two clients on one file log, days apart on the mock's clock, keep one chain", async () => {
    const path = join(tempDir(), "custody.jsonl");
    const first = client(fileCustodyLog(path));
    const { document } = await caseDocument(first, "chart");
    mock.clock.advance("3d");
    const second = client(fileCustodyLog(path));
    await second.documents.save(document.id, { path: join(tempDir(), "chart.txt") });
    await (await first.documents.content(document.id)).text();
    const lines = readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.seq, l.action])).toEqual([
      [1, "upload"],
      [2, "download"],
      [3, "download"],
    ]);
    expect(await verifyCustodyLog(fileCustodyLog(path))).toEqual({
      ok: true,
      entries: 3,
      firstBadSeq: null,
      reason: null,
      head: lines[2].hash,
      checkpoints: [],
      unwitnessed: 3,
    });
  });
});
