import type { APIPromise } from "../core/api-promise.js";
import type { RequestOptions } from "../core/options.js";
import { type PagePromise, paginate } from "../core/pagination.js";
import type { Core } from "../core/request.js";
import { APIResource } from "../core/resource.js";
import { signAndPut, type UploadNames, type UploadParams } from "../core/uploads.js";
import { DownloadResponse } from "../schemas/documents.js";
import {
  ActionRequestAnswer,
  ActionResponse,
  RetrievalDocument,
  RetrievalDocumentListParams,
  RetrievalRequest,
  RetrievalRequestCreate,
  RetrievalRequestList,
  RetrievalRequestListParams,
} from "../schemas/retrieval-requests.js";
import { RetrievalSignUploadRequest, SignUploadResponse } from "../schemas/uploads.js";
import { Cases } from "./cases.js";

/** What `mr.retrievalRequests.uploadFile()` takes: the file, and optionally the case to sign under. */
export interface RetrievalUploadParams extends UploadParams {
  /**
   * Sign under this case (case-level signing, needs documents:write) instead
   * of at retrieval level: what an action-response `attachment` needs.
   */
  case_id?: string;
}

/** Filters of `changes`; `since` is the value stored after the previous poll. */
export interface RetrievalRequestChangesParams {
  /**
   * Only requests whose `public_updated_at` is after this instant. Omit it
   * (or pass null) on the very first poll to get every request.
   */
  since?: string | null | undefined;
  /** Page size, 1 to 100. */
  limit?: number;
  /** Only the requests of this case. */
  case_id?: string;
  /** Only requests in this status, one of {@link RETRIEVAL_STATUSES}. */
  status?: RetrievalRequestListParams["status"];
}

/** One page of changes. */
export interface RetrievalRequestChangesPage {
  /** Changed requests, oldest change first. */
  requests: RetrievalRequest[];
  /** What to store once this page is processed: the next poll's `since`. */
  nextSince: string;
}

/** The `since` of a first poll: every request changed after the epoch, i.e. all of them. */
export const CHANGES_FROM_START = "1970-01-01T00:00:00.000Z";

const after = (a: string, b: string): boolean => Date.parse(a) > Date.parse(b);

/**
 * The incremental poll of `retrievalRequests.changes({ since })`. Iterate it
 * for every request changed after `since`, each once, oldest change first
 * (pages are fetched one at a time); then store `nextSince` and pass it as
 * `since` next time. Nothing is fetched until it is iterated; iterating again
 * polls again from the same `since`.
 *
 * `nextSince` only moves past a request once the loop has asked for the next
 * one (or ended): after a `break` or a throw the current request comes again
 * on the next poll, so processing is at-least-once and nothing is skipped.
 *
 * @example
 * const changes = mr.retrievalRequests.changes({ since: await load() });
 * for await (const request of changes) await sync(request);
 * await save(changes.nextSince);
 */
export class RetrievalRequestChanges implements AsyncIterable<RetrievalRequest> {
  readonly #core: Core;
  readonly #params: RetrievalRequestChangesParams;
  readonly #options: RequestOptions | undefined;
  readonly #since: string;
  /** The `since` of the next poll; equals the given `since` until a change has been passed. */
  nextSince: string;

  /** @internal Made by `mr.retrievalRequests.changes()`, over the client's internals. */
  constructor(core: Core, params: RetrievalRequestChangesParams, options?: RequestOptions) {
    this.#core = core;
    this.#params = params;
    this.#options = options;
    this.#since = params.since ?? CHANGES_FROM_START;
    this.nextSince = this.#since;
  }

  #advance(to: string): void {
    if (after(to, this.nextSince)) this.nextSince = to;
  }

  async *#walk(): AsyncGenerator<RetrievalRequestChangesPage, void, undefined> {
    const path = "/v2/retrieval-requests";
    const { limit, case_id, status } = this.#params;
    // undefined: the first page, by query; then each `next` link until null.
    let next: string | null | undefined;
    while (next !== null) {
      const page: RetrievalRequestList = await this.#core.request(
        next === undefined
          ? {
              method: "GET",
              path,
              query: { updated_since: this.#since, limit, case_id, status },
              querySchema: RetrievalRequestListParams,
              responseSchema: RetrievalRequestList,
            }
          : { method: "GET", path, url: next as string, responseSchema: RetrievalRequestList },
        this.#options,
      );
      // The service filters already; a request not newer than `since` is never handed out.
      const requests = page.results.filter((r) => after(r.public_updated_at, this.#since));
      let nextSince = page.next_public_updated_since ?? this.#since;
      for (const r of requests)
        if (after(r.public_updated_at, nextSince)) nextSince = r.public_updated_at;
      yield { requests, nextSince };
      next = page.next;
    }
  }

  /** Every page of changes; store `page.nextSince` once a page is processed. */
  async *pages(): AsyncGenerator<RetrievalRequestChangesPage, void, undefined> {
    for await (const page of this.#walk()) {
      yield page;
      this.#advance(page.nextSince);
    }
  }

  /** Every changed request, each once, oldest change first; moves `nextSince` as the loop goes. */
  async *[Symbol.asyncIterator](): AsyncGenerator<RetrievalRequest, void, undefined> {
    for await (const page of this.#walk()) {
      for (const request of page.requests) {
        yield request;
        this.#advance(request.public_updated_at);
      }
      this.#advance(page.nextSince);
    }
  }
}

/**
 * Requests to obtain records from a provider, their documents (records and
 * invoices) and the client action requests the firm answers.
 */
export class RetrievalRequests extends APIResource {
  /**
   * Creates a retrieval request. Give exactly one of `case_id`/`case`,
   * `facility_id`/`facility` and `requestor_id`/`requestor`; an inline `case`
   * also needs cases:write, an inline `requestor` requestors:write.
   * `auth_form` and `attachments` are upload ids (`uploadFile`). Not repeated
   * after a timeout or a 5xx, which could create it twice.
   */
  create(body: RetrievalRequestCreate, options?: RequestOptions): APIPromise<RetrievalRequest> {
    return this.core.request(
      {
        method: "POST",
        path: "/v2/retrieval-requests",
        body,
        bodySchema: RetrievalRequestCreate,
        responseSchema: RetrievalRequest,
      },
      options,
    );
  }

  /**
   * One retrieval request by id; a `NotFoundError` when there is none. What
   * a webhook receiver fetches on each event, since deliveries carry no state.
   */
  retrieve(retrievalRequestId: string, options?: RequestOptions): APIPromise<RetrievalRequest> {
    return this.core.request(
      {
        method: "GET",
        path: "/v2/retrieval-requests/{id}",
        params: { id: retrievalRequestId },
        responseSchema: RetrievalRequest,
      },
      options,
    );
  }

  /**
   * Retrieval requests, newest created first; with `updated_since`, those
   * changed after it, oldest change first. For polling, `changes` does the bookkeeping.
   */
  list(
    query: RetrievalRequestListParams = {},
    options?: RequestOptions,
  ): PagePromise<RetrievalRequest> {
    return paginate(
      this.core,
      {
        path: "/v2/retrieval-requests",
        query,
        querySchema: RetrievalRequestListParams,
        item: RetrievalRequest,
        envelope: RetrievalRequestList,
      },
      options,
    );
  }

  /**
   * The incremental poll: every request whose `public_updated_at` is after
   * `since`, each once, oldest change first; afterwards `.nextSince` is the
   * value to store for the next poll. See `RetrievalRequestChanges`.
   */
  changes(
    params: RetrievalRequestChangesParams = {},
    options?: RequestOptions,
  ): RetrievalRequestChanges {
    return new RetrievalRequestChanges(this.core, params, options);
  }

  /** Records and invoices of the request, newest first; an invoice not yet `ready` is listed too. */
  listDocuments(
    retrievalRequestId: string,
    query: RetrievalDocumentListParams = {},
    options?: RequestOptions,
  ): PagePromise<RetrievalDocument> {
    return paginate(
      this.core,
      {
        path: "/v2/retrieval-requests/{id}/documents",
        params: { id: retrievalRequestId },
        query,
        querySchema: RetrievalDocumentListParams,
        item: RetrievalDocument,
      },
      options,
    );
  }

  /**
   * A presigned address for a record or invoice file, valid for `expires_in`
   * seconds (3600); fetch it without the API key. An invoice that is not
   * `ready` yet is refused with a `ConflictError` (`document_not_ready`).
   */
  downloadDocument(
    retrievalRequestId: string,
    documentId: string,
    options?: RequestOptions,
  ): APIPromise<DownloadResponse> {
    return this.core.request(
      {
        method: "GET",
        path: "/v2/retrieval-requests/{id}/documents/{document_id}/download",
        params: { id: retrievalRequestId, document_id: documentId },
        responseSchema: DownloadResponse,
      },
      options,
    );
  }

  /**
   * Answers the request's open action request. `message` is trimmed and must
   * then be 1 to 10000 characters; `attachment.upload_id` is a case-level
   * upload under the request's case (`uploadFile({ ..., case_id })`). A
   * rejected answer is a `BadRequestError` with code `action_response_rejected`
   * and leaves the action request open. Not repeated after a timeout or a
   * 5xx, which could answer twice.
   */
  respondToAction(
    retrievalRequestId: string,
    body: ActionResponse,
    options?: RequestOptions,
  ): APIPromise<ActionRequestAnswer> {
    return this.core.request(
      {
        method: "POST",
        path: "/v2/retrieval-requests/{id}/action-response",
        params: { id: retrievalRequestId },
        body,
        bodySchema: ActionResponse,
        responseSchema: ActionRequestAnswer,
      },
      options,
    );
  }

  /**
   * Signs a retrieval-level upload (usable before a case exists): PUT the
   * bytes to `upload_url` within 15 minutes, then use `upload_id` as
   * `auth_form` or in `attachments` within an hour. `uploadFile` does both.
   */
  signUpload(
    body: RetrievalSignUploadRequest,
    options?: RequestOptions,
  ): APIPromise<SignUploadResponse> {
    // Repeating a signing only leaves an unused upload id behind, so it is retried like a read.
    return this.core.request(
      {
        method: "POST",
        path: "/v2/retrieval-requests/sign-upload",
        body,
        bodySchema: RetrievalSignUploadRequest,
        responseSchema: SignUploadResponse,
        idempotent: true,
      },
      options,
    );
  }

  /**
   * Signs and PUTs a file (streamed, never buffered whole) and returns its
   * `upload_id`: at retrieval level, or under `case_id` when given (for an
   * action-response attachment). An address that expired before the PUT is
   * re-signed once.
   *
   * @example const auth_form = await mr.retrievalRequests.uploadFile({ file: await fileFromPath("./hipaa.pdf") })
   */
  async uploadFile(params: RetrievalUploadParams, options?: RequestOptions): Promise<string> {
    const { case_id, ...upload } = params;
    const sign = (names: UploadNames) =>
      case_id === undefined
        ? this.signUpload(names, options)
        : new Cases(this.core).signUpload(case_id, names, options);
    const where =
      case_id === undefined
        ? "POST /v2/retrieval-requests/sign-upload"
        : "POST /v2/cases/{case_id}/sign-upload";
    return signAndPut(this.core, sign, upload, where, options?.signal);
  }
}
