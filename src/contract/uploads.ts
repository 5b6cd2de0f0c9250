/** Signing uploads: the bytes themselves go to the presigned storage origin, not the API. */
import {
  RetrievalSignUploadRequest,
  SignUploadRequest,
  SignUploadResponse,
  UPLOAD_URL_TTL_MINUTES,
} from "../schemas/uploads.js";
import { defineOperation } from "./operation.js";

export const signCase = defineOperation({
  operationId: "signCaseUpload",
  method: "POST",
  path: "/v2/cases/{case_id}/sign-upload",
  summary: "Sign a case-level upload",
  tag: "Documents",
  description: `PUT the bytes to \`upload_url\` within ${UPLOAD_URL_TTL_MINUTES} minutes with \`Content-Type\` equal to \`file_type\`, then use \`upload_id\` within one hour: to create a case document, or as \`auth_form\`, an item of \`attachments\` or an action-response attachment.`,
  body: SignUploadRequest,
  status: 200,
  response: SignUploadResponse,
  scope: "documents:write",
  // Signing twice only makes a second unused upload address.
  idempotent: true,
} as const);

export const signRetrieval = defineOperation({
  operationId: "signRetrievalUpload",
  method: "POST",
  path: "/v2/retrieval-requests/sign-upload",
  summary: "Sign a retrieval-level upload",
  tag: "Retrieval requests",
  description:
    "May be used before a case exists; the upload_id goes into `auth_form` or `attachments` of a new retrieval request.",
  body: RetrievalSignUploadRequest,
  status: 200,
  response: SignUploadResponse,
  scope: "retrievals:write",
  idempotent: true,
} as const);

/**
 * This module's operations keyed by operationId, in the order the OpenAPI
 * document lists them: `CONTRACT` (./index.ts) is these records in turn.
 */
export const operations = {
  signCaseUpload: signCase,
  signRetrievalUpload: signRetrieval,
} as const;
