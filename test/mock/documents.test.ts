import { describe, expect, it } from "vitest";
import type { Document, DownloadResponse } from "../../src/schemas/documents.js";
import { createCase, expectError, setup, uploadDocument } from "./helpers.js";

describe("GET /v2/documents/{document_id}", () => {
  it("returns the document with 200", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const doc = await uploadDocument(mock, api, c.id);
    const response = await api.get(`/v2/documents/${doc.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(doc);
  });
});

describe("PATCH /v2/documents/{document_id}", () => {
  it("archives and unarchives with 200, moving updated_at forward", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const doc = await uploadDocument(mock, api, c.id, { path: "/a" });
    mock.clock.advance("10s");
    const archived = await api.patch<Document>(`/v2/documents/${doc.id}`, { archived: true });
    expect(archived.status).toBe(200);
    expect(archived.body).toEqual({
      ...doc,
      archived: true,
      updated_at: "2026-03-01T10:00:10.000Z",
    });
    const restored = await api.patch<Document>(`/v2/documents/${doc.id}`, { archived: false });
    expect(restored.body.archived).toBe(false);
    expect(restored.body.updated_at).toBe("2026-03-01T10:00:10.001Z");
  });

  it("changes and clears the path, leaving archived alone", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const doc = await uploadDocument(mock, api, c.id);
    const moved = await api.patch<Document>(`/v2/documents/${doc.id}`, { path: "/billing" });
    expect(moved.body).toMatchObject({ path: "/billing", archived: false });
    const cleared = await api.patch<Document>(`/v2/documents/${doc.id}`, { path: null });
    expect(cleared.body.path).toBeNull();
  });

  it("refuses a non-boolean archived and unknown properties with 400 validation_error", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const doc = await uploadDocument(mock, api, c.id);
    const text = await api.patch(`/v2/documents/${doc.id}`, { archived: "true" });
    expect(expectError(text, 400, "validation_error")).toMatch(/^archived: /);
    const unknown = await api.patch(`/v2/documents/${doc.id}`, { file_name: "x.pdf" });
    expect(expectError(unknown, 400, "validation_error")).toBe("file_name: Unknown property");
    const malformed = await api.call("PATCH", `/v2/documents/${doc.id}`, {
      raw: "{archived:true}",
    });
    expectError(malformed, 400, "validation_error");
  });
});

describe("document download", () => {
  it("answers 200 with a storage-origin download_url valid 3600 seconds", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const doc = await uploadDocument(mock, api, c.id);
    const response = await api.get<DownloadResponse>(`/v2/documents/${doc.id}/download`);
    expect(response.status).toBe(200);
    expect(response.body.expires_in).toBe(3600);
    expect(response.body.download_url.startsWith(`${mock.storageUrl}/downloads/`)).toBe(true);
  });

  it("round-trips the uploaded bytes with their Content-Type and Content-Length", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const content = "%PDF-1.7\nbinary \u00e9\u00e8 stuff";
    const doc = await uploadDocument(mock, api, c.id, { content });
    const { body } = await api.get<DownloadResponse>(`/v2/documents/${doc.id}/download`);
    const file = await mock.fetch(body.download_url);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("application/pdf");
    const bytes = new Uint8Array(await file.arrayBuffer());
    expect(file.headers.get("content-length")).toBe(String(bytes.byteLength));
    expect(bytes).toEqual(new TextEncoder().encode(content));
    expect(doc.file_size).toBe(bytes.byteLength);
  });

  it("still serves the bytes at exactly 3600 seconds", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const doc = await uploadDocument(mock, api, c.id);
    const { body } = await api.get<DownloadResponse>(`/v2/documents/${doc.id}/download`);
    mock.clock.advance("3600s");
    expect((await mock.fetch(body.download_url)).status).toBe(200);
  });

  it("refuses at 3601 seconds: 403 download_url_expired, and a fresh download works again", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const doc = await uploadDocument(mock, api, c.id);
    const { body } = await api.get<DownloadResponse>(`/v2/documents/${doc.id}/download`);
    mock.clock.advance("3601s");
    const expired = await mock.fetch(body.download_url);
    expect(expired.status).toBe(403);
    expect(await expired.json()).toMatchObject({ error: { code: "download_url_expired" } });
    const fresh = await api.get<DownloadResponse>(`/v2/documents/${doc.id}/download`);
    expect((await mock.fetch(fresh.body.download_url)).status).toBe(200);
  });

  it("answers 404 not_found for an unknown download address", async () => {
    const { mock } = setup();
    const response = await mock.fetch(`${mock.storageUrl}/downloads/unknown`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: "not_found" } });
  });

  it("keeps the bytes the document was created from, even if the upload address is PUT again", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const signed = await api.post<{ upload_id: string; upload_url: string }>(
      `/v2/cases/${c.id}/sign-upload`,
      {
        file_name: "a.txt",
        file_type: "text/plain",
      },
    );
    const put = (text: string) =>
      mock.fetch(signed.body.upload_url, {
        method: "PUT",
        headers: { "content-type": "text/plain", "content-length": String(text.length) },
        body: text,
      });
    await put("original");
    const doc = await api.post<Document>(`/v2/cases/${c.id}/documents`, {
      upload_id: signed.body.upload_id,
    });
    await put("replaced");
    const { body } = await api.get<DownloadResponse>(`/v2/documents/${doc.body.id}/download`);
    expect(await (await mock.fetch(body.download_url)).text()).toBe("original");
  });
});
