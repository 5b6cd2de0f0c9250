import type { APIPromise } from "../core/api-promise.js";
import type { RequestOptions } from "../core/options.js";
import { type PagePromise, paginate } from "../core/pagination.js";
import { APIResource } from "../core/resource.js";
import {
  Document,
  DocumentListParams,
  DocumentUpdate,
  DownloadResponse,
} from "../schemas/documents.js";

/** Files attached to cases. */
export class Documents extends APIResource {
  /** Documents newest first, optionally of one case and by archived status. */
  list(query: DocumentListParams = {}, options?: RequestOptions): PagePromise<Document> {
    return paginate(
      this.core,
      { path: "/v2/documents", query, querySchema: DocumentListParams, item: Document },
      options,
    );
  }

  /** One document by id; a `NotFoundError` when there is none. */
  retrieve(documentId: string, options?: RequestOptions): APIPromise<Document> {
    return this.core.request(
      {
        method: "GET",
        path: "/v2/documents/{document_id}",
        params: { document_id: documentId },
        responseSchema: Document,
      },
      options,
    );
  }

  /** Moves it to another virtual `path`, or archives (`archived: true`) and unarchives it. */
  update(documentId: string, body: DocumentUpdate, options?: RequestOptions): APIPromise<Document> {
    return this.core.request(
      {
        method: "PATCH",
        path: "/v2/documents/{document_id}",
        params: { document_id: documentId },
        body,
        bodySchema: DocumentUpdate,
        responseSchema: Document,
      },
      options,
    );
  }

  /** A presigned address for the bytes, valid for `expires_in` seconds (3600); fetch it without the API key. */
  download(documentId: string, options?: RequestOptions): APIPromise<DownloadResponse> {
    return this.core.request(
      {
        method: "GET",
        path: "/v2/documents/{document_id}/download",
        params: { document_id: documentId },
        responseSchema: DownloadResponse,
      },
      options,
    );
  }
}
