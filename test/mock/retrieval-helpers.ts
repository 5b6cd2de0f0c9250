/** Shortcuts of the retrieval tests: uploads, a created request, its events. */
import { expect } from "vitest";
import type { MockService } from "../../src/mock/index.js";
import type { RetrievalRequest } from "../../src/schemas/retrieval-requests.js";
import type { SignUploadResponse } from "../../src/schemas/uploads.js";
import { eventLogForTesting } from "../helpers/mock-internals.js";
import { type Api, bytesOf, createCase, putBytes, signUpload } from "./helpers.js";

export const PDF = "%PDF-1.7\nsigned HIPAA authorization\n%%EOF\n";
export const EVENT_ID = /^rr-[0-9a-f]{64}$/;

/** Signs at retrieval level and PUTs the bytes; returns the upload_id. */
export async function retrievalUpload(
  mock: MockService,
  api: Api,
  file: { content?: string; file_type?: string; file_name?: string } = {},
): Promise<string> {
  const fileType = file.file_type ?? "application/pdf";
  const signed = await api.post<SignUploadResponse>("/v2/retrieval-requests/sign-upload", {
    file_name: file.file_name ?? "authorization.pdf",
    file_type: fileType,
  });
  expect(signed.status).toBe(200);
  const put = await putBytes(mock, signed.body.upload_url, bytesOf(file.content ?? PDF), {
    "content-type": fileType,
  });
  expect(put.status).toBe(200);
  return signed.body.upload_id;
}

/** Signs under a case and PUTs the bytes; returns the upload_id. */
export async function caseUpload(
  mock: MockService,
  api: Api,
  caseId: string,
  file: { content?: string; file_type?: string; file_name?: string } = {},
): Promise<string> {
  const fileType = file.file_type ?? "application/pdf";
  const signed = await signUpload(api, caseId, {
    file_name: file.file_name ?? "answer.pdf",
    file_type: fileType,
  });
  const put = await putBytes(mock, signed.upload_url, bytesOf(file.content ?? PDF), {
    "content-type": fileType,
  });
  expect(put.status).toBe(200);
  return signed.upload_id;
}

/** A retrieval request on a new case, at a seeded facility, with an inline requestor. */
export async function createRetrieval(
  mock: MockService,
  api: Api,
  fields: Record<string, unknown> = {},
): Promise<RetrievalRequest> {
  const c = await createCase(api);
  const response = await api.post<RetrievalRequest>("/v2/retrieval-requests", {
    case_id: c.id,
    facility_id: "fac_mercy_general",
    requestor: { name: "Ann Counsel", email: "ann@firm.example" },
    auth_form: await retrievalUpload(mock, api),
    ...fields,
  });
  expect(response.status).toBe(201);
  return response.body;
}

/** Events of the log about one retrieval request, oldest first. */
export function eventsOf(mock: MockService, retrievalRequestId: string) {
  return eventLogForTesting(mock).filter(
    (e) =>
      (e.data as { retrieval_request_id?: string }).retrieval_request_id === retrievalRequestId,
  );
}
