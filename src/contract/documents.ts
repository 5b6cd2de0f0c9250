/** Case documents: files attached to a case. */
import { ListEnvelope } from "../schemas/common.js";
import {
  Document,
  DocumentCreate,
  DocumentListParams,
  DocumentUpdate,
  DownloadResponse,
} from "../schemas/documents.js";
import { uploadErrors } from "./errors.js";
import { defineOperation } from "./operation.js";

export const DocumentList = ListEnvelope(Document);

export const create = defineOperation({
  operationId: "createDocument",
  method: "POST",
  path: "/v2/cases/{case_id}/documents",
  summary: "Attach an uploaded file to a case",
  tag: "Documents",
  body: DocumentCreate,
  status: 201,
  response: Document,
  scope: "documents:write",
  errors: { 400: uploadErrors },
} as const);

export const list = defineOperation({
  operationId: "listDocuments",
  method: "GET",
  path: "/v2/documents",
  summary: "List case documents, newest first",
  tag: "Documents",
  query: DocumentListParams,
  parameters: {
    case_id: "Only the documents of this case.",
    archived: "`true` for archived documents only, `false` for the others.",
  },
  status: 200,
  response: DocumentList,
  list: true,
  scope: "documents:read",
} as const);

export const retrieve = defineOperation({
  operationId: "getDocument",
  method: "GET",
  path: "/v2/documents/{document_id}",
  summary: "Read a case document",
  tag: "Documents",
  status: 200,
  response: Document,
  scope: "documents:read",
} as const);

export const update = defineOperation({
  operationId: "updateDocument",
  method: "PATCH",
  path: "/v2/documents/{document_id}",
  summary: "Update a case document",
  tag: "Documents",
  description: "`archived: true` archives, `false` unarchives.",
  body: DocumentUpdate,
  status: 200,
  response: Document,
  scope: "documents:write",
} as const);

export const download = defineOperation({
  operationId: "downloadDocument",
  method: "GET",
  path: "/v2/documents/{document_id}/download",
  summary: "Get a download address for a case document",
  tag: "Documents",
  status: 200,
  response: DownloadResponse,
  scope: "documents:read",
} as const);

/**
 * This module's operations keyed by operationId, in the order the OpenAPI
 * document lists them: `CONTRACT` (./index.ts) is these records in turn.
 */
export const operations = {
  createDocument: create,
  listDocuments: list,
  getDocument: retrieve,
  updateDocument: update,
  downloadDocument: download,
} as const;
