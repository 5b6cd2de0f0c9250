import { describe, expect, it } from "vitest";
import type { Document } from "../../src/schemas/documents.js";
import type { SignUploadResponse } from "../../src/schemas/uploads.js";
import {
  type Api,
  bytesOf,
  createCase,
  expectError,
  putBytes,
  setup,
  signUpload,
} from "./helpers.js";

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function storageError(response: Response, status: number, code: string): Promise<string> {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toBe("application/json");
  const body = (await response.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe(code);
  return body.error.message;
}

const createDocument = (api: Api, caseId: string, body: Record<string, unknown>) =>
  api.post<Document>(`/v2/cases/${caseId}/documents`, body);

describe("POST /v2/cases/{case_id}/sign-upload", () => {
  it("answers 200 with a uuid v4 upload_id, a storage-origin upload_url and expires_at one hour on", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const response = await api.post<SignUploadResponse>(`/v2/cases/${c.id}/sign-upload`, {
      file_name: "records.pdf",
      file_type: "application/pdf",
    });
    expect(response.status).toBe(200);
    expect(response.body.upload_id).toMatch(UUID_V4);
    expect(response.body.upload_url.startsWith(`${mock.storageUrl}/uploads/`)).toBe(true);
    expect(response.body.expires_at).toBe("2026-03-01T11:00:00.000Z");
  });

  it("validates the body: both fields required, file_type a MIME type", async () => {
    const { api } = setup();
    const c = await createCase(api);
    const missing = await api.post(`/v2/cases/${c.id}/sign-upload`, { file_name: "a.pdf" });
    expect(expectError(missing, 400, "validation_error")).toMatch(/^file_type: /);
    const notMime = await api.post(`/v2/cases/${c.id}/sign-upload`, {
      file_name: "a.pdf",
      file_type: "pdf",
    });
    expect(expectError(notMime, 400, "validation_error")).toMatch(/^file_type: /);
  });
});

describe("POST /v2/retrieval-requests/sign-upload", () => {
  it("answers 200 with the same shape, tied to no case", async () => {
    const { mock, api } = setup();
    const response = await api.post<SignUploadResponse>("/v2/retrieval-requests/sign-upload", {
      file_name: "auth.pdf",
      file_type: "application/pdf",
    });
    expect(response.status).toBe(200);
    expect(response.body.upload_id).toMatch(UUID_V4);
    expect(response.body.upload_url.startsWith(`${mock.storageUrl}/uploads/`)).toBe(true);
    expect(response.body.expires_at).toBe("2026-03-01T11:00:00.000Z");
  });

  it("its upload_id cannot become a case document: 400 upload_not_found", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const signed = await api.post<SignUploadResponse>("/v2/retrieval-requests/sign-upload", {
      file_name: "auth.pdf",
      file_type: "application/pdf",
    });
    expect((await putBytes(mock, signed.body.upload_url, bytesOf("x"))).status).toBe(200);
    const response = await createDocument(api, c.id, { upload_id: signed.body.upload_id });
    expectError(response, 400, "upload_not_found");
  });
});

describe("PUT to the presigned upload address", () => {
  it("accepts bytes without Authorization: 200 with an ETag", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const signed = await signUpload(api, c.id);
    const response = await putBytes(mock, signed.upload_url, bytesOf("%PDF-1.7 hello"));
    expect(response.status).toBe(200);
    expect(response.headers.get("etag")).toMatch(/^"[0-9a-f]{32}"$/);
  });

  it("ignores an Authorization header if one is sent", async () => {
    const { mock, api, key } = setup();
    const c = await createCase(api);
    const signed = await signUpload(api, c.id);
    const response = await putBytes(mock, signed.upload_url, bytesOf("x"), {
      authorization: `Bearer ${key}`,
    });
    expect(response.status).toBe(200);
  });

  it("accepts a PUT at exactly 15 minutes after signing", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const signed = await signUpload(api, c.id);
    mock.clock.advance("15m");
    expect((await putBytes(mock, signed.upload_url, bytesOf("x"))).status).toBe(200);
  });

  it("refuses a PUT at 15 minutes and 1 second: 403 upload_url_expired", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const signed = await signUpload(api, c.id);
    mock.clock.advance(15 * 60_000 + 1000);
    await storageError(
      await putBytes(mock, signed.upload_url, bytesOf("x")),
      403,
      "upload_url_expired",
    );
  });

  it("refuses a Content-Type other than the signed file_type: 400 content_type_mismatch", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const signed = await signUpload(api, c.id);
    const wrong = await putBytes(mock, signed.upload_url, bytesOf("x"), {
      "content-type": "image/png",
    });
    expect(await storageError(wrong, 400, "content_type_mismatch")).toBe(
      'Content-Type must equal the file_type given when signing: expected "application/pdf", got "image/png".',
    );
    const missing = await putBytes(mock, signed.upload_url, bytesOf("x"), { "content-type": null });
    expect(await storageError(missing, 400, "content_type_mismatch")).toMatch(
      /expected "application\/pdf", no Content-Type was sent\.$/,
    );
  });

  it("requires Content-Length: 411 content_length_required", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const signed = await signUpload(api, c.id);
    const response = await putBytes(mock, signed.upload_url, bytesOf("abc"), {
      "content-length": null,
    });
    await storageError(response, 411, "content_length_required");
  });

  it("refuses a body whose length differs from Content-Length: 400 content_length_mismatch", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const signed = await signUpload(api, c.id);
    const response = await putBytes(mock, signed.upload_url, bytesOf("abc"), {
      "content-length": "4",
    });
    await storageError(response, 400, "content_length_mismatch");
  });

  it("answers 404 not_found for an unknown upload address", async () => {
    const { mock } = setup();
    const response = await putBytes(mock, `${mock.storageUrl}/uploads/unknown-token`, bytesOf("x"));
    await storageError(response, 404, "not_found");
  });

  it("answers 404 not_found for other methods and paths on the storage origin", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const signed = await signUpload(api, c.id);
    await storageError(await mock.fetch(signed.upload_url), 404, "not_found");
    await storageError(await mock.fetch(`${mock.storageUrl}/elsewhere`), 404, "not_found");
  });

  it("lets a second PUT overwrite the bytes", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const signed = await signUpload(api, c.id);
    await putBytes(mock, signed.upload_url, bytesOf("first version"));
    await putBytes(mock, signed.upload_url, bytesOf("v2"));
    const created = await createDocument(api, c.id, { upload_id: signed.upload_id });
    expect(created.body.file_size).toBe(2);
  });
});

describe("POST /v2/cases/{case_id}/documents", () => {
  it("creates the document from the upload: 201, name and type from signing, size from the bytes", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const signed = await signUpload(api, c.id, { file_name: "scan.png", file_type: "image/png" });
    await putBytes(mock, signed.upload_url, bytesOf("PNGDATA"), { "content-type": "image/png" });
    mock.clock.advance("1m");
    const response = await createDocument(api, c.id, {
      upload_id: signed.upload_id,
      path: "/imaging",
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^doc_[0-9A-Za-z]+$/),
      case_id: c.id,
      file_name: "scan.png",
      file_size: 7,
      file_type: "image/png",
      path: "/imaging",
      archived: false,
      created_at: "2026-03-01T10:01:00.000Z",
      updated_at: "2026-03-01T10:01:00.000Z",
    });
  });

  it("sets path to null when the body has none", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const signed = await signUpload(api, c.id);
    await putBytes(mock, signed.upload_url, bytesOf("x"));
    const response = await createDocument(api, c.id, { upload_id: signed.upload_id });
    expect(response.body.path).toBeNull();
  });

  it("accepts the upload_id at exactly one hour after signing", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const signed = await signUpload(api, c.id);
    await putBytes(mock, signed.upload_url, bytesOf("x"));
    mock.clock.advance("1h");
    expect((await createDocument(api, c.id, { upload_id: signed.upload_id })).status).toBe(201);
  });

  it("refuses the upload_id at one hour and 1 second: 400 upload_expired", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const signed = await signUpload(api, c.id);
    await putBytes(mock, signed.upload_url, bytesOf("x"));
    mock.clock.advance(3_601_000);
    expectError(
      await createDocument(api, c.id, { upload_id: signed.upload_id }),
      400,
      "upload_expired",
    );
  });

  it("refuses an upload_id used before: 400 upload_consumed", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const signed = await signUpload(api, c.id);
    await putBytes(mock, signed.upload_url, bytesOf("x"));
    expect((await createDocument(api, c.id, { upload_id: signed.upload_id })).status).toBe(201);
    expectError(
      await createDocument(api, c.id, { upload_id: signed.upload_id }),
      400,
      "upload_consumed",
    );
  });

  it("refuses an upload_id whose bytes never arrived: 400 upload_incomplete", async () => {
    const { api } = setup();
    const c = await createCase(api);
    const signed = await signUpload(api, c.id);
    expectError(
      await createDocument(api, c.id, { upload_id: signed.upload_id }),
      400,
      "upload_incomplete",
    );
  });

  it("a refused PUT leaves the upload incomplete", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const signed = await signUpload(api, c.id);
    await putBytes(mock, signed.upload_url, bytesOf("abc"), { "content-length": "9" });
    expectError(
      await createDocument(api, c.id, { upload_id: signed.upload_id }),
      400,
      "upload_incomplete",
    );
  });

  it("refuses an unknown upload_id or one signed for another case: 400 upload_not_found", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const other = await createCase(api);
    const signed = await signUpload(api, other.id);
    await putBytes(mock, signed.upload_url, bytesOf("x"));
    expectError(
      await createDocument(api, c.id, { upload_id: signed.upload_id }),
      400,
      "upload_not_found",
    );
    expectError(
      await createDocument(api, c.id, { upload_id: crypto.randomUUID() }),
      400,
      "upload_not_found",
    );
    expectError(
      await createDocument(api, c.id, { upload_id: "not-a-uuid" }),
      400,
      "upload_not_found",
    );
    // Refusals do not consume: the rightful case can still use it.
    expect((await createDocument(api, other.id, { upload_id: signed.upload_id })).status).toBe(201);
  });

  it("checks used before expired, and expired before incomplete", async () => {
    const { mock, api } = setup();
    const c = await createCase(api);
    const used = await signUpload(api, c.id);
    await putBytes(mock, used.upload_url, bytesOf("x"));
    await createDocument(api, c.id, { upload_id: used.upload_id });
    const empty = await signUpload(api, c.id);
    mock.clock.advance("2h");
    expectError(
      await createDocument(api, c.id, { upload_id: used.upload_id }),
      400,
      "upload_consumed",
    );
    expectError(
      await createDocument(api, c.id, { upload_id: empty.upload_id }),
      400,
      "upload_expired",
    );
  });

  it("answers 404 for an absent case before looking at the upload", async () => {
    const { api } = setup();
    const response = await createDocument(api, "case_missing", { upload_id: crypto.randomUUID() });
    expectError(response, 404, "not_found");
  });

  it("validates the body: upload_id required, no unknown properties", async () => {
    const { api } = setup();
    const c = await createCase(api);
    expect(expectError(await createDocument(api, c.id, {}), 400, "validation_error")).toMatch(
      /^upload_id: /,
    );
    const extra = await createDocument(api, c.id, {
      upload_id: crypto.randomUUID(),
      file_name: "x",
    });
    expect(expectError(extra, 400, "validation_error")).toBe("file_name: Unknown property");
  });
});
