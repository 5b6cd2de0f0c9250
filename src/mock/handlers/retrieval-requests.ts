import { retrievalRequests } from "../../contract/index.js";
import { makeRetrievalRequestCreate } from "../../schemas/retrieval-requests.js";
import { bind } from "../bind.js";
import { respondToActionRequest } from "../model/action-requests.js";
import {
  createRetrievalRequest,
  downloadRetrievalDocument,
  getRetrievalRequest,
  listRetrievalDocuments,
  listRetrievalRequests,
} from "../model/retrieval-requests.js";
import type { ModelContext } from "../model/state.js";
import { type ApiRoute, pageOf } from "./shared.js";

export function retrievalRequestRoutes(ctx: ModelContext): ApiRoute[] {
  // An inline case's "date_of_injury in the past" follows the mock clock.
  const RetrievalRequestCreate = makeRetrievalRequestCreate(() => ctx.clock.now().getTime());
  return [
    bind(ctx, retrievalRequests.create, ({ body }) => createRetrievalRequest(ctx, body), {
      body: RetrievalRequestCreate,
    }),
    bind(ctx, retrievalRequests.list, ({ query }) => {
      const { case_id, status, updated_since, external_id } = query;
      const filters = { case_id, status, updated_since, external_id };
      const page = listRetrievalRequests(ctx, filters, pageOf(query));
      return { ...page, extra: { next_public_updated_since: page.nextPublicUpdatedSince } };
    }),
    bind(ctx, retrievalRequests.retrieve, ({ params }) =>
      getRetrievalRequest(ctx, params.retrieval_request_id),
    ),
    bind(ctx, retrievalRequests.listDocuments, ({ params, query }) =>
      listRetrievalDocuments(ctx, params.retrieval_request_id, pageOf(query)),
    ),
    bind(ctx, retrievalRequests.downloadDocument, ({ params }) =>
      downloadRetrievalDocument(ctx, params.retrieval_request_id, params.document_id),
    ),
    bind(ctx, retrievalRequests.respondToActionRequest, ({ params, body, apiKey, requestId }) =>
      respondToActionRequest(ctx, params.retrieval_request_id, body, {
        apiKeyId: apiKey.id,
        requestId,
      }),
    ),
  ];
}
