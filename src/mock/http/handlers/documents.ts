import {
  createDocument,
  downloadDocument,
  getDocument,
  listDocuments,
  updateDocument,
} from "../../model/documents.js";
import type { ModelContext } from "../../model/state.js";
import type { Handlers } from "../bind.js";
import { pageOf } from "./shared.js";

export function documentHandlers(ctx: ModelContext) {
  return {
    createDocument: ({ params, body }) => createDocument(ctx, params.case_id, body),
    listDocuments: ({ query }) =>
      listDocuments(ctx, { case_id: query.case_id, archived: query.archived }, pageOf(query)),
    getDocument: ({ params }) => getDocument(ctx, params.document_id),
    updateDocument: ({ params, body }) => updateDocument(ctx, params.document_id, body),
    downloadDocument: ({ params }) => downloadDocument(ctx, params.document_id),
  } satisfies Partial<Handlers>;
}
