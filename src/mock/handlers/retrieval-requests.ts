import {
  ActionResponse,
  makeRetrievalRequestCreate,
  RetrievalDocumentListParams,
  RetrievalRequestListParams,
} from "../../schemas/retrieval-requests.js";
import { respondToActionRequest } from "../model/action-requests.js";
import { type ApiKeyRecord, requireScope } from "../model/api-keys.js";
import { toListEnvelope } from "../model/paginate.js";
import {
  createRetrievalRequest,
  downloadRetrievalDocument,
  getRetrievalRequest,
  listRetrievalDocuments,
  listRetrievalRequests,
} from "../model/retrieval-requests.js";
import type { ModelContext } from "../model/state.js";
import {
  type AdditionalScope,
  type ApiRoute,
  json,
  listJson,
  NoQuery,
  pageOf,
  parseJsonBody,
  readBody,
  readJsonText,
  readQuery,
} from "./shared.js";

/** Combination rules (spec, Authentication): each inline resource needs its family's write scope. */
const INLINE_CASE: AdditionalScope = { scope: "cases:write", when: "with an inline `case`" };
const INLINE_REQUESTOR: AdditionalScope = {
  scope: "requestors:write",
  when: "with an inline `requestor`",
};

/**
 * The scopes of {@link INLINE_CASE} and {@link INLINE_REQUESTOR}, checked on
 * the raw body before validation, so a key without the scope learns no
 * validation rules.
 */
function requireInlineScopes(text: string, apiKey: ApiKeyRecord): void {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return; // validation answers malformed JSON
  }
  if (typeof body !== "object" || body === null) return;
  if (Object.hasOwn(body, "case")) requireScope(apiKey, INLINE_CASE.scope);
  if (Object.hasOwn(body, "requestor")) requireScope(apiKey, INLINE_REQUESTOR.scope);
}

export function retrievalRequestRoutes(ctx: ModelContext): ApiRoute[] {
  // An inline case's "date_of_injury in the past" follows the mock clock.
  const RetrievalRequestCreate = makeRetrievalRequestCreate(() => ctx.clock.now().getTime());
  return [
    {
      method: "POST",
      pattern: "/v2/retrieval-requests",
      scope: "retrievals:write",
      additionalScopes: [INLINE_CASE, INLINE_REQUESTOR],
      async handle({ request, url, apiKey }) {
        readQuery(url, NoQuery);
        // Read once, within the size limit, for the scope check and then validation.
        const text = await readJsonText(request);
        requireInlineScopes(text, apiKey);
        const body = parseJsonBody(text, RetrievalRequestCreate);
        return json(201, createRetrievalRequest(ctx, body));
      },
    },
    {
      method: "GET",
      pattern: "/v2/retrieval-requests",
      scope: "retrievals:read",
      handle({ url }) {
        const query = readQuery(url, RetrievalRequestListParams);
        const page = listRetrievalRequests(
          ctx,
          { case_id: query.case_id, status: query.status, updated_since: query.updated_since },
          { ...pageOf(query) },
        );
        return json(200, {
          ...toListEnvelope(page, (item) => item, { baseUrl: ctx.baseUrl, url }),
          next_public_updated_since: page.nextPublicUpdatedSince,
        });
      },
    },
    {
      method: "GET",
      pattern: "/v2/retrieval-requests/:retrieval_request_id",
      scope: "retrievals:read",
      handle({ url, params }) {
        readQuery(url, NoQuery);
        return json(200, getRetrievalRequest(ctx, params.retrieval_request_id as string));
      },
    },
    {
      method: "GET",
      pattern: "/v2/retrieval-requests/:retrieval_request_id/documents",
      scope: "retrievals:read",
      handle({ url, params }) {
        const query = readQuery(url, RetrievalDocumentListParams);
        const page = listRetrievalDocuments(ctx, params.retrieval_request_id as string, {
          ...pageOf(query),
        });
        return listJson(ctx, url, page);
      },
    },
    {
      method: "GET",
      pattern: "/v2/retrieval-requests/:retrieval_request_id/documents/:document_id/download",
      scope: "retrievals:read",
      handle({ url, params }) {
        readQuery(url, NoQuery);
        return json(
          200,
          downloadRetrievalDocument(
            ctx,
            params.retrieval_request_id as string,
            params.document_id as string,
          ),
        );
      },
    },
    {
      method: "POST",
      pattern: "/v2/retrieval-requests/:retrieval_request_id/action-response",
      scope: "retrievals:write",
      async handle({ request, url, params, apiKey, requestId }) {
        readQuery(url, NoQuery);
        const body = await readBody(request, ActionResponse);
        return json(
          200,
          respondToActionRequest(ctx, params.retrieval_request_id as string, body, {
            apiKeyId: apiKey.id,
            requestId,
          }),
        );
      },
    },
  ];
}
