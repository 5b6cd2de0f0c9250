import { DocumentCreate, DocumentListParams, DocumentUpdate } from "../../schemas/documents.js";
import {
  createDocument,
  downloadDocument,
  getDocument,
  listDocuments,
  updateDocument,
} from "../model/documents.js";
import type { ModelContext } from "../model/state.js";
import { type ApiRoute, json, listJson, NoQuery, pageOf, readBody, readQuery } from "./shared.js";

export function documentRoutes(ctx: ModelContext): ApiRoute[] {
  return [
    {
      method: "POST",
      pattern: "/v2/cases/:case_id/documents",
      scope: "documents:write",
      async handle({ request, url, params }) {
        readQuery(url, NoQuery);
        const body = await readBody(request, DocumentCreate);
        return json(201, createDocument(ctx, params.case_id as string, body));
      },
    },
    {
      method: "GET",
      pattern: "/v2/documents",
      scope: "documents:read",
      handle({ url }) {
        const query = readQuery(url, DocumentListParams);
        const page = listDocuments(
          ctx,
          { case_id: query.case_id, archived: query.archived },
          { ...pageOf(query) },
        );
        return listJson(ctx, url, page);
      },
    },
    {
      method: "GET",
      pattern: "/v2/documents/:document_id",
      scope: "documents:read",
      handle({ url, params }) {
        readQuery(url, NoQuery);
        return json(200, getDocument(ctx, params.document_id as string));
      },
    },
    {
      method: "PATCH",
      pattern: "/v2/documents/:document_id",
      scope: "documents:write",
      async handle({ request, url, params }) {
        readQuery(url, NoQuery);
        const patch = await readBody(request, DocumentUpdate);
        return json(200, updateDocument(ctx, params.document_id as string, patch));
      },
    },
    {
      method: "GET",
      pattern: "/v2/documents/:document_id/download",
      scope: "documents:read",
      handle({ url, params }) {
        readQuery(url, NoQuery);
        return json(200, downloadDocument(ctx, params.document_id as string));
      },
    },
  ];
}
