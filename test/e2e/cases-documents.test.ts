import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { beforeEach, describe, expect, it } from "vitest";
import {
  AuthenticationError,
  BadRequestError,
  fileFromPath,
  MedRecords,
  NotFoundError,
  PermissionError,
  UploadError,
  ValidationError,
} from "../../src/index.js";
import { presignedPut, useReferenceServers } from "./transport.js";

const {
  services: { mock },
} = await useReferenceServers({ mock: { now: "2026-06-15T12:00:00.000Z" } });
const apiKey = mock.apiKeys.create();
let requests: string[] = [];
const mr = new MedRecords({
  apiKey,
  baseUrl: mock.baseUrl,
  validateResponses: true,
  hooks: { onRequest: (info) => requests.push(`${info.method} ${info.path}`) },
});

beforeEach(() => {
  mock.reset();
  requests = [];
});

const newCase = (title = "Doe v. Acme") => mr.cases.create({ title, client_name: "Jane Doe" });
const bytes = (text: string) => new TextEncoder().encode(text);

async function download(documentId: string): Promise<string> {
  const { download_url, expires_in } = await mr.documents.downloadUrl(documentId);
  expect(expires_in).toBe(3600);
  const response = await fetch(download_url);
  expect(response.status).toBe(200);
  return response.text();
}

describe("cases end to end", () => {
  it("create, retrieve, update and list a case", async () => {
    const created = await mr.cases.create({
      title: "Doe v. Acme",
      client_name: "Jane Doe",
      client_email: "jane@example.com",
      date_of_injury: "2026-01-02",
      case_category: "motor_vehicle_accident",
    });
    expect(created).toMatchObject({ status: "active", case_category: "motor_vehicle_accident" });
    expect(created.case_number).toMatch(/\S/);
    await expect(mr.cases.retrieve(created.id)).resolves.toEqual(created);

    mock.clock.advance("1m");
    const updated = await mr.cases.update(created.id, { status: "archived", description: null });
    expect(updated.status).toBe("archived");
    expect(updated.title).toBe("Doe v. Acme");
    expect(Date.parse(updated.updated_at)).toBeGreaterThan(Date.parse(created.updated_at));

    const page = await mr.cases.list();
    expect(page.results.map((c) => c.id)).toEqual([created.id]);
    expect(page.hasNextPage()).toBe(false);
  });

  it("withResponse() gives the raw response and its request id", async () => {
    const { data, response, requestId } = await newCase().withResponse();
    expect(response.status).toBe(201);
    expect(requestId).toMatch(/^req_/);
    expect(requestId).toBe(response.headers.get("x-request-id"));
    expect(data.title).toBe("Doe v. Acme");
  });

  it("an absent case is a NotFoundError", async () => {
    await expect(mr.cases.retrieve("case_missing")).rejects.toBeInstanceOf(NotFoundError);
  });

  it("more than three pages iterate item by item and page by page, one request per page", async () => {
    for (let i = 0; i < 7; i++) await newCase(`Case ${i}`);
    requests = [];
    const titles: string[] = [];
    for await (const c of mr.cases.list({ limit: 2 })) titles.push(c.title);
    expect(titles).toEqual(["Case 6", "Case 5", "Case 4", "Case 3", "Case 2", "Case 1", "Case 0"]);
    expect(requests).toHaveLength(4);

    requests = [];
    const sizes: number[] = [];
    for await (const page of mr.cases.list({ limit: 2 }).pages()) sizes.push(page.results.length);
    expect(sizes).toEqual([2, 2, 2, 1]);
    expect(requests).toHaveLength(4);
  });

  it("a page's cursor resumes the walk where it stopped", async () => {
    for (let i = 0; i < 5; i++) await newCase(`Case ${i}`);
    const first = await mr.cases.list({ limit: 2 });
    expect(first.cursor).toBeNull();
    const resumed = await mr.cases.list({ limit: 2, cursor: first.nextCursor! });
    expect(resumed.results.map((c) => c.title)).toEqual(["Case 2", "Case 1"]);
    expect(resumed.cursor).toBe(first.nextCursor);
    const viaLink = await first.getNextPage();
    expect(viaLink.results).toEqual(resumed.results);
  });
});

describe("documents end to end", () => {
  it("uploads a Blob, lists, archives and downloads it", async () => {
    const c = await newCase();
    const doc = await mr.cases.uploadDocument(c.id, {
      file: new File(["%PDF-1.7 records"], "records.pdf", { type: "application/pdf" }),
      path: "/medical",
    });
    expect(doc).toMatchObject({
      case_id: c.id,
      file_name: "records.pdf",
      file_type: "application/pdf",
      file_size: 16,
      archived: false,
      path: "/medical",
    });
    await expect(mr.documents.retrieve(doc.id)).resolves.toEqual(doc);
    expect(await download(doc.id)).toBe("%PDF-1.7 records");

    const archived = await mr.documents.update(doc.id, { archived: true, path: null });
    expect(archived).toMatchObject({ archived: true, path: null });
    expect((await mr.documents.list({ case_id: c.id, archived: false })).results).toEqual([]);
    expect(
      (await mr.documents.list({ case_id: c.id, archived: true })).results.map((d) => d.id),
    ).toEqual([doc.id]);
  });

  it("uploads bytes, a web stream, a Node stream and a file from disk", async () => {
    const c = await newCase();
    const dir = await mkdtemp(join(tmpdir(), "medrecords-"));
    try {
      await writeFile(join(dir, "intake.pdf"), "from disk");
      const fromBytes = await mr.cases.uploadDocument(c.id, {
        file: bytes("bytes!"),
        file_name: "a.txt",
        file_type: "text/plain",
      });
      const fromWeb = await mr.cases.uploadDocument(c.id, {
        file: new Blob(["web stream"]).stream(),
        size: 10,
        file_name: "b.txt",
        file_type: "text/plain",
      });
      const fromNode = await mr.cases.uploadDocument(c.id, {
        file: Readable.from([bytes("node "), bytes("stream")]),
        size: 11,
        file_name: "c.txt",
        file_type: "text/plain",
      });
      const fromDisk = await mr.cases.uploadDocument(c.id, {
        file: await fileFromPath(join(dir, "intake.pdf")),
      });
      expect(fromDisk).toMatchObject({
        file_name: "intake.pdf",
        file_type: "application/pdf",
        file_size: 9,
      });
      expect(await download(fromBytes.id)).toBe("bytes!");
      expect(await download(fromWeb.id)).toBe("web stream");
      expect(await download(fromNode.id)).toBe("node stream");
      expect(await download(fromDisk.id)).toBe("from disk");
      const all = [];
      for await (const d of mr.documents.list({ case_id: c.id })) all.push(d.id);
      expect(all).toHaveLength(4);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a stream without a size is refused before anything is sent", async () => {
    const c = await newCase();
    requests = [];
    const error = await mr.cases
      .uploadDocument(c.id, {
        file: new Blob(["x"]).stream(),
        file_name: "x.txt",
        file_type: "text/plain",
      })
      .catch((e) => e);
    expect(error).toBeInstanceOf(UploadError);
    expect(error.message).toMatch(/size/);
    expect(requests).toEqual([]);
  });

  it("a missing file_type is a ValidationError naming it", async () => {
    const c = await newCase();
    const error = await mr.cases
      .uploadDocument(c.id, { file: bytes("x"), file_name: "x" })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues.map((i: { path: string }) => i.path)).toEqual(["file_type"]);
  });
});

describe("upload flow rules", () => {
  it("the presigned PUT refuses a Content-Type other than the signed one", async () => {
    const c = await newCase();
    const signed = await mr.cases.signUpload(c.id, {
      file_name: "a.pdf",
      file_type: "application/pdf",
    });
    const put = await presignedPut(signed.upload_url, "x", "text/plain");
    expect(put.status).toBe(400);
    expect(((await put.json()) as { error: { code: string } }).error.code).toBe(
      "content_type_mismatch",
    );
  });

  it("a PUT after 15 minutes is refused and the helper re-signs once", async () => {
    const c = await newCase();
    const seen: string[] = [];
    let firstPut = true;
    const client = new MedRecords({
      apiKey,
      baseUrl: mock.baseUrl,
      validateResponses: true,
      fetch: async (input, init) => {
        const request = new Request(input, init);
        seen.push(`${request.method} ${new URL(request.url).pathname}`);
        if (request.method === "PUT" && firstPut) {
          firstPut = false;
          mock.clock.advance("15m");
          mock.clock.advance("1s");
        }
        return mock.fetch(request);
      },
    });
    const doc = await client.cases.uploadDocument(c.id, {
      file: bytes("late"),
      file_name: "l.txt",
      file_type: "text/plain",
    });
    expect(doc.file_size).toBe(4);
    expect(seen.filter((s) => s.endsWith("/sign-upload"))).toHaveLength(2);
    expect(seen.filter((s) => s.startsWith("PUT"))).toHaveLength(2);
  });

  it("a PUT at exactly 15 minutes is still accepted", async () => {
    const c = await newCase();
    const signed = await mr.cases.signUpload(c.id, { file_name: "a.txt", file_type: "text/plain" });
    mock.clock.advance("15m");
    const put = await presignedPut(signed.upload_url, "x", "text/plain");
    expect(put.status).toBe(200);
  });

  it("a stream cannot be re-sent after the address expired: UploadError says why", async () => {
    const c = await newCase();
    const client = new MedRecords({
      apiKey,
      baseUrl: mock.baseUrl,
      fetch: async (input, init) => {
        const request = new Request(input, init);
        if (request.method === "PUT") mock.clock.advance("16m");
        return mock.fetch(request);
      },
    });
    const error = await client.cases
      .uploadDocument(c.id, {
        file: new Blob(["abc"]).stream(),
        size: 3,
        file_name: "s.txt",
        file_type: "text/plain",
      })
      .catch((e) => e);
    expect(error).toBeInstanceOf(UploadError);
    expect(error.status).toBe(403);
    expect(error.message).toMatch(/stream cannot be sent twice/);
  });

  async function uploaded(caseId: string) {
    const signed = await mr.cases.signUpload(caseId, {
      file_name: "a.txt",
      file_type: "text/plain",
    });
    const put = await presignedPut(signed.upload_url, "abc", "text/plain");
    expect(put.status).toBe(200);
    return signed.upload_id;
  }

  it("creating a document one hour after signing passes; one second later gives upload_expired", async () => {
    const c = await newCase();
    const onTime = await uploaded(c.id);
    const late = await uploaded(c.id);
    mock.clock.advance("1h");
    await expect(mr.cases.createDocument(c.id, { upload_id: onTime })).resolves.toMatchObject({
      file_size: 3,
    });
    mock.clock.advance("1s");
    const error = await mr.cases.createDocument(c.id, { upload_id: late }).catch((e) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ status: 400, code: "upload_expired" });
  });

  it("a consumed upload_id gives upload_consumed", async () => {
    const c = await newCase();
    const id = await uploaded(c.id);
    await mr.cases.createDocument(c.id, { upload_id: id });
    await expect(mr.cases.createDocument(c.id, { upload_id: id })).rejects.toMatchObject({
      code: "upload_consumed",
    });
  });

  it("an upload_id whose bytes never arrived gives upload_incomplete", async () => {
    const c = await newCase();
    const signed = await mr.cases.signUpload(c.id, { file_name: "a.txt", file_type: "text/plain" });
    await expect(
      mr.cases.createDocument(c.id, { upload_id: signed.upload_id }),
    ).rejects.toMatchObject({ code: "upload_incomplete" });
  });

  it("a download address expires after 3600 seconds", async () => {
    const c = await newCase();
    const doc = await mr.cases.uploadDocument(c.id, {
      file: bytes("x"),
      file_name: "x.txt",
      file_type: "text/plain",
    });
    // `download`, the deprecated name of `downloadUrl`, still works.
    const { download_url } = await mr.documents.download(doc.id);
    mock.clock.advance("3600s");
    expect((await fetch(download_url)).status).toBe(200);
    mock.clock.advance("1s");
    expect((await fetch(download_url)).status).toBe(403);
  });
});

describe("authentication and scopes", () => {
  it("a request without a key gets 401 invalid_api_key", async () => {
    const response = await fetch(`${mock.baseUrl}/v2/cases`);
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      "invalid_api_key",
    );
  });

  it("an unknown key gets AuthenticationError invalid_api_key", async () => {
    const stranger = new MedRecords({
      apiKey: "medrecords_sk_live_unknown",
      baseUrl: mock.baseUrl,
    });
    const error = await stranger.cases.list().catch((e) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, code: "invalid_api_key" });
  });

  it("a key without cases:write gets 403 insufficient_scope naming cases:write", async () => {
    const reader = new MedRecords({
      apiKey: mock.apiKeys.create({ scopes: ["cases:read"] }),
      baseUrl: mock.baseUrl,
    });
    const error = await reader.cases.create({ title: "t", client_name: "c" }).catch((e) => e);
    expect(error).toBeInstanceOf(PermissionError);
    expect(error).toMatchObject({
      status: 403,
      code: "insufficient_scope",
      requiredScope: "cases:write",
    });
    expect(error.message).toContain("cases:write");
    await expect(reader.cases.list()).resolves.toMatchObject({ results: [] });
  });
});
