/**
 * The custody log over real HTTP, as a firm's service runs it: no custom
 * `fetch`, so uploads go through node:http (the streaming PUT) and downloads
 * through Node's fetch, against `startMockServer` on loopback.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  fileCustodyLog,
  fileFromPath,
  MedRecords,
  memoryCustodyLog,
  verifyCustodyLog,
} from "../../src/index.js";
import { type MockServer, startMockServer } from "../../src/mock/index.js";

let server: MockServer;
beforeAll(async () => {
  server = await startMockServer();
});
afterAll(() => server.close());

const sha = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

it("uploads through node:http and downloads through fetch are hashed and logged as they stream", async () => {
  const dir = mkdtempSync(join(tmpdir(), "medrecords-custody-http-"));
  const custodyLog = fileCustodyLog(join(dir, "custody.jsonl"));
  const mr = new MedRecords({ apiKey: server.apiKeys.create(), baseUrl: server.url, custodyLog });
  const kase = await mr.cases.create({ title: "Doe v. Acme", client_name: "Jane Doe" });

  // A file on disk (a Blob read as it is sent), and a Node stream of 3 MiB.
  const onDisk = join(dir, "intake.pdf");
  writeFileSync(onDisk, "%PDF-1.7 intake form");
  const fromDisk = await mr.cases.uploadDocument(kase.id, { file: await fileFromPath(onDisk) });
  const big = new Uint8Array(3 * 1024 * 1024).map((_, i) => (i * 31) & 0xff);
  const chunks = Array.from({ length: 48 }, (_, i) => big.subarray(i * 65536, (i + 1) * 65536));
  const streamed = await mr.cases.uploadDocument(kase.id, {
    file: Readable.from(chunks),
    size: big.byteLength,
    file_name: "scan.bin",
    file_type: "application/octet-stream",
  });

  const saved = await mr.documents.save(streamed.id, { path: join(dir, "scan.bin") });
  expect(saved.sha256).toBe(sha(big));
  expect(sha(readFileSync(join(dir, "scan.bin")))).toBe(sha(big));

  const entries = readFileSync(join(dir, "custody.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(entries).toMatchObject([
    {
      seq: 1,
      action: "upload",
      document_id: fromDisk.id,
      file_name: "intake.pdf",
      file_type: "application/pdf",
      sha256: sha("%PDF-1.7 intake form"),
    },
    { seq: 2, action: "upload", document_id: streamed.id, bytes: big.byteLength, sha256: sha(big) },
    {
      seq: 3,
      action: "download",
      document_id: streamed.id,
      case_id: kase.id,
      bytes: big.byteLength,
      sha256: sha(big),
    },
  ]);
  expect(await verifyCustodyLog(custodyLog)).toMatchObject({ ok: true, entries: 3 });
});

it("an upload whose stream fails midway appends nothing", async () => {
  const log = memoryCustodyLog();
  const mr = new MedRecords({
    apiKey: server.apiKeys.create(),
    baseUrl: server.url,
    custodyLog: log,
    maxRetries: 0,
  });
  async function* failing() {
    yield new Uint8Array(1000);
    throw new Error("disk read error");
  }
  await expect(
    mr.retrievalRequests.uploadFile({
      file: failing(),
      size: 2000,
      file_name: "a.pdf",
      file_type: "application/pdf",
    }),
  ).rejects.toThrow();
  expect(log.stored).toHaveLength(0);
});
