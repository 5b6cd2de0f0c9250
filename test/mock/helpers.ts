/** Plain-fetch helpers for the mock's tests: no SDK, just Requests and JSON. */
import { expect } from "vitest";
import {
  createMockService,
  type MockService,
  type MockServiceOptions,
} from "../../src/mock/index.js";
import type { Case } from "../../src/schemas/cases.js";
import type { Document } from "../../src/schemas/documents.js";
import type { SignUploadResponse } from "../../src/schemas/uploads.js";

export const START = "2026-03-01T10:00:00.000Z";
export const REQUEST_ID = /^req_[0-9a-f]{24}$/;

export interface JsonResponse<T> {
  status: number;
  headers: Headers;
  body: T;
}

export interface ErrorResponseBody {
  error: { code: string; message: string };
}

export interface CallOptions {
  /** Serialized as JSON. */
  body?: unknown;
  /** Sent verbatim instead of `body`, as `application/json` unless `headers` say otherwise. */
  raw?: string;
  /** Overrides the key; null sends no Authorization header. */
  key?: string | null;
  headers?: Record<string, string>;
}

export type Api = ReturnType<typeof createApi>;

export function createApi(mock: MockService, key: string) {
  async function call<T = unknown>(
    method: string,
    path: string,
    options: CallOptions = {},
  ): Promise<JsonResponse<T>> {
    const headers = new Headers(options.headers);
    const apiKey = options.key === undefined ? key : options.key;
    if (apiKey !== null) headers.set("authorization", `Bearer ${apiKey}`);
    let body: string | undefined;
    if (options.raw !== undefined) {
      body = options.raw;
      if (!headers.has("content-type")) headers.set("content-type", "application/json");
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers.set("content-type", "application/json");
    }
    const url = /^https?:/.test(path) ? path : `${mock.baseUrl}${path}`;
    const response = await mock.fetch(url, { method, headers, body });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body: (text === "" ? undefined : JSON.parse(text)) as T,
    };
  }
  return {
    call,
    get: <T = unknown>(path: string, options?: CallOptions) => call<T>("GET", path, options),
    post: <T = unknown>(path: string, body?: unknown, options?: CallOptions) =>
      call<T>("POST", path, { ...options, body }),
    patch: <T = unknown>(path: string, body?: unknown, options?: CallOptions) =>
      call<T>("PATCH", path, { ...options, body }),
  };
}

export function setup(options: MockServiceOptions = {}) {
  const mock = createMockService({ now: START, ...options });
  const key = mock.apiKeys.create();
  return { mock, key, api: createApi(mock, key) };
}

/** Asserts an error response and returns its message. */
export function expectError(response: JsonResponse<unknown>, status: number, code: string): string {
  expect({ status: response.status, body: response.body }).toMatchObject({
    status,
    body: { error: { code } },
  });
  expect(response.headers.get("content-type")).toBe("application/json");
  return (response.body as ErrorResponseBody).error.message;
}

export async function createCase(api: Api, fields: Record<string, unknown> = {}): Promise<Case> {
  const response = await api.post<Case>("/v2/cases", {
    title: "Doe v. Acme",
    client_name: "Jane Doe",
    ...fields,
  });
  expect(response.status).toBe(201);
  return response.body;
}

export async function signUpload(
  api: Api,
  caseId: string,
  file: { file_name?: string; file_type?: string } = {},
): Promise<SignUploadResponse> {
  const response = await api.post<SignUploadResponse>(`/v2/cases/${caseId}/sign-upload`, {
    file_name: file.file_name ?? "records.pdf",
    file_type: file.file_type ?? "application/pdf",
  });
  expect(response.status).toBe(200);
  return response.body;
}

/** PUTs bytes to a presigned address with a correct Content-Type and Content-Length unless overridden. */
export function putBytes(
  mock: MockService,
  uploadUrl: string,
  bytes: Uint8Array<ArrayBuffer>,
  headers: Record<string, string | null> = {},
): Promise<Response> {
  const sent = new Headers({
    "content-type": "application/pdf",
    "content-length": String(bytes.byteLength),
  });
  for (const [name, value] of Object.entries(headers)) {
    if (value === null) sent.delete(name);
    else sent.set(name, value);
  }
  return mock.fetch(uploadUrl, { method: "PUT", headers: sent, body: bytes });
}

export const bytesOf = (text: string): Uint8Array<ArrayBuffer> => new TextEncoder().encode(text);

/** Signs, PUTs and creates a case document in one go. */
export async function uploadDocument(
  mock: MockService,
  api: Api,
  caseId: string,
  options: { content?: string; path?: string | null; file_name?: string } = {},
): Promise<Document> {
  const signed = await signUpload(api, caseId, { file_name: options.file_name ?? "records.pdf" });
  const put = await putBytes(mock, signed.upload_url, bytesOf(options.content ?? "%PDF-1.7"));
  expect(put.status).toBe(200);
  const body: Record<string, unknown> = { upload_id: signed.upload_id };
  if (options.path !== undefined) body.path = options.path;
  const created = await api.post<Document>(`/v2/cases/${caseId}/documents`, body);
  expect(created.status).toBe(201);
  return created.body;
}
