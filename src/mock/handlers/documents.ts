import { documents } from "../../contract/index.js";
import { bind } from "../bind.js";
import {
  createDocument,
  downloadDocument,
  getDocument,
  listDocuments,
  updateDocument,
} from "../model/documents.js";
import type { ModelContext } from "../model/state.js";
import { type ApiRoute, pageOf } from "./shared.js";

export function documentRoutes(ctx: ModelContext): ApiRoute[] {
  return [
    bind(ctx, documents.create, ({ params, body }) => createDocument(ctx, params.case_id, body)),
    bind(ctx, documents.list, ({ query }) =>
      listDocuments(ctx, { case_id: query.case_id, archived: query.archived }, pageOf(query)),
    ),
    bind(ctx, documents.retrieve, ({ params }) => getDocument(ctx, params.document_id)),
    bind(ctx, documents.update, ({ params, body }) =>
      updateDocument(ctx, params.document_id, body),
    ),
    bind(ctx, documents.download, ({ params }) => downloadDocument(ctx, params.document_id)),
  ];
}
