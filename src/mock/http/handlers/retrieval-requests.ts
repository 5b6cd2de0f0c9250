import { makeRetrievalRequestCreate } from "../../../schemas/retrieval-requests.js";
import { respondToActionRequest } from "../../model/action-requests.js";
import {
  createRetrievalRequest,
  downloadRetrievalDocument,
  getRetrievalRequest,
  listRetrievalDocuments,
  listRetrievalRequests,
} from "../../model/retrieval-requests.js";
import type { ModelContext } from "../../model/state.js";
import type { Handlers } from "../bind.js";
import { pageOf } from "./shared.js";

export function retrievalRequestHandlers(ctx: ModelContext) {
  // An inline case's "date_of_injury in the past" follows the mock clock.
  const RetrievalRequestCreate = makeRetrievalRequestCreate(() => ctx.clock.now().getTime());
  return {
    createRetrievalRequest: {
      handle: ({ body }) => createRetrievalRequest(ctx, body),
      body: RetrievalRequestCreate,
    },
    listRetrievalRequests: ({ query }) => {
      const { case_id, status, updated_since, external_id } = query;
      const filters = { case_id, status, updated_since, external_id };
      const page = listRetrievalRequests(ctx, filters, pageOf(query));
      return { ...page, extra: { next_public_updated_since: page.nextPublicUpdatedSince } };
    },
    getRetrievalRequest: ({ params }) => getRetrievalRequest(ctx, params.retrieval_request_id),
    listRetrievalDocuments: ({ params, query }) =>
      listRetrievalDocuments(ctx, params.retrieval_request_id, pageOf(query)),
    downloadRetrievalDocument: ({ params }) =>
      downloadRetrievalDocument(ctx, params.retrieval_request_id, params.document_id),
    respondToActionRequest: ({ params, body, apiKey, requestId }) =>
      respondToActionRequest(ctx, params.retrieval_request_id, body, {
        apiKeyId: apiKey.id,
        requestId,
      }),
  } satisfies Partial<Handlers>;
}
