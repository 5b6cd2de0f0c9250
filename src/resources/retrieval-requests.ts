import * as retrievalRequests from "../contract/retrieval-requests.js";
import * as uploads from "../contract/uploads.js";
import type { APIPromise } from "../core/api-promise.js";
import type { RequestOptions } from "../core/options.js";
import { type PagePromise, paginate } from "../core/pagination.js";
import { type CreateOptions, reconciledCreate } from "../core/reconcile.js";
import { type Core, describeOperation } from "../core/request.js";
import { APIResource } from "../core/resource.js";
import { signAndPut, type UploadNames, type UploadParams } from "../core/uploads.js";
import type { DownloadSource } from "../custody/record.js";
import type { SavedFile, SaveOptions } from "../custody/save.js";
import { downloadContent, saveContent, uploadRecorder } from "../custody/transfer.js";
import type { DownloadResponse } from "../schemas/documents.js";
import {
  type ActionRequestAnswer,
  type ActionResponse,
  type RetrievalDocument,
  type RetrievalDocumentListParams,
  type RetrievalRequest,
  type RetrievalRequestCreate,
  type RetrievalRequestList,
  RetrievalRequestListParams,
} from "../schemas/retrieval-requests.js";
import type { RetrievalSignUploadRequest, SignUploadResponse } from "../schemas/uploads.js";
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
   * Only requests whose `public_updated_at` is after this instant: an ISO
   * 8601 date-time or a `Date`. Omit it (or pass null) on the very first poll
   * to get every request.
   */
  since?: string | Date | null | undefined;
  /** Page size, 1 to `PAGE_LIMIT_MAX`. */
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
  /** The `since` as given: validated (a bad one is a `ValidationError`) when the first page is fetched. */
  readonly #sinceParam: string | Date;
  /** The `since` as an ISO string, for comparisons. */
  readonly #since: string;
  /**
   * The `since` of the next poll, an ISO string; equals the given `since`
   * (a `Date` as its ISO string) until a change has been passed.
   */
  nextSince: string;

  /** @internal Made by `mr.retrievalRequests.changes()`, over the client's internals. */
  constructor(core: Core, params: RetrievalRequestChangesParams, options?: RequestOptions) {
    this.#core = core;
    this.#params = params;
    this.#options = options;
    this.#sinceParam = params.since ?? CHANGES_FROM_START;
    // The wire form; an invalid `Date` stays as given here and is refused with
    // a ValidationError by the query's validation, before anything is sent.
    const parsed = RetrievalRequestListParams.shape.updated_since.safeParse(this.#sinceParam);
    this.#since =
      parsed.success && parsed.data !== undefined ? parsed.data : String(this.#sinceParam);
    this.nextSince = this.#since;
  }

  #advance(to: string): void {
    if (after(to, this.nextSince)) this.nextSince = to;
  }

  async *#walk(): AsyncGenerator<RetrievalRequestChangesPage, void, undefined> {
    const { limit, case_id, status } = this.#params;
    // undefined: the first page, by query; then each `next` link until null.
    let next: string | null | undefined;
    while (next !== null) {
      const page: RetrievalRequestList = await this.#core.call(
        retrievalRequests.list,
        next === undefined
          ? { query: { updated_since: this.#sinceParam, limit, case_id, status } }
          : { url: next },
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
   * after a timeout, a reset or a 5xx, which could create it twice and send
   * the provider a second request (the error's `mayHaveSucceeded` says so);
   * with `{ reconcile: true }` and an `external_id`, such a request is looked
   * up by it and returned, or created again when it does not exist.
   *
   * @example await mr.retrievalRequests.create({ ...body, external_id: "rr-1042" }, { reconcile: true })
   */
  create(
    body: RetrievalRequestCreate,
    options?: CreateOptions,
  ): APIPromise<RetrievalRequest, "createRetrievalRequest"> {
    return reconciledCreate(
      this.core,
      retrievalRequests.create,
      retrievalRequests.list,
      body,
      options,
    );
  }

  /**
   * One retrieval request by id; a `NotFoundError` when there is none. What
   * a webhook receiver fetches on each event, since deliveries carry no state.
   */
  retrieve(
    retrievalRequestId: string,
    options?: RequestOptions,
  ): APIPromise<RetrievalRequest, "getRetrievalRequest"> {
    const params = { retrieval_request_id: retrievalRequestId };
    return this.core.call(retrievalRequests.retrieve, { params }, options);
  }

  /**
   * Retrieval requests, newest created first; with `updated_since`, those
   * changed after it, oldest change first. For polling, `changes` does the bookkeeping.
   */
  list(
    query: RetrievalRequestListParams = {},
    options?: RequestOptions,
  ): PagePromise<RetrievalRequest, "listRetrievalRequests"> {
    return paginate(this.core, retrievalRequests.list, { query }, options);
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
  ): PagePromise<RetrievalDocument, "listRetrievalDocuments"> {
    const params = { retrieval_request_id: retrievalRequestId };
    return paginate(this.core, retrievalRequests.listDocuments, { params, query }, options);
  }

  /**
   * A presigned address for a record or invoice file (`download_url`), valid
   * for `expires_in` seconds (3600); fetch it without the API key. An invoice
   * that is not `ready` yet is refused with a `ConflictError`
   * (`document_not_ready`). For the bytes themselves, {@link RetrievalRequests.documentContent}.
   */
  documentDownloadUrl(
    retrievalRequestId: string,
    documentId: string,
    options?: RequestOptions,
  ): APIPromise<DownloadResponse, "downloadRetrievalDocument"> {
    const params = { retrieval_request_id: retrievalRequestId, document_id: documentId };
    return this.core.call(retrievalRequests.downloadDocument, { params }, options);
  }

  /**
   * @deprecated Use {@link RetrievalRequests.documentDownloadUrl}, the same
   * call under a name that says it gives an address (and
   * {@link RetrievalRequests.documentContent} for the bytes).
   */
  downloadDocument(
    retrievalRequestId: string,
    documentId: string,
    options?: RequestOptions,
  ): APIPromise<DownloadResponse, "downloadRetrievalDocument"> {
    return this.documentDownloadUrl(retrievalRequestId, documentId, options);
  }

  /**
   * A record or invoice file as a streaming `Response`, from a fresh presigned
   * address fetched without the API key (re-signed once if it has expired).
   * A refusal of the address is a `DownloadError`; an invoice not `ready` yet,
   * a `ConflictError` (`document_not_ready`).
   * @example
   * const pdf = await (await mr.retrievalRequests.documentContent(requestId, documentId)).arrayBuffer();
   */
  documentContent(
    retrievalRequestId: string,
    documentId: string,
    options?: RequestOptions,
  ): Promise<Response> {
    return downloadContent(this.core, this.#file(retrievalRequestId, documentId, options), options);
  }

  /**
   * Downloads a record or invoice to `path` atomically (a temporary file
   * beside it, renamed once the whole file came) and resolves its size and
   * SHA-256. With a custody log, the entry is appended before the file is
   * renamed into place; if it cannot be, nothing is written. Node, Bun and Deno.
   * @example await mr.retrievalRequests.saveDocument(requestId, documentId, { path: "./records.pdf" })
   */
  saveDocument(
    retrievalRequestId: string,
    documentId: string,
    to: SaveOptions,
    options?: RequestOptions,
  ): Promise<SavedFile> {
    return saveContent(this.core, this.#file(retrievalRequestId, documentId, options), to, options);
  }

  /** A retrieval document's download, and (read only for a custody log) its name, type and case. */
  #file(
    retrievalRequestId: string,
    documentId: string,
    options: RequestOptions | undefined,
  ): DownloadSource {
    return {
      where: describeOperation(retrievalRequests.downloadDocument),
      sign: () => this.documentDownloadUrl(retrievalRequestId, documentId, options),
      describe: async () => {
        const request = await this.retrieve(retrievalRequestId, options);
        const document = request.documents.find((d) => d.id === documentId);
        return {
          document_id: documentId,
          retrieval_request_id: retrievalRequestId,
          case_id: request.case_id,
          file_name: document?.file_name,
          file_type: document?.file_type,
        };
      },
    };
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
  ): APIPromise<ActionRequestAnswer, "respondToActionRequest"> {
    const params = { retrieval_request_id: retrievalRequestId };
    return this.core.call(retrievalRequests.respondToActionRequest, { params, body }, options);
  }

  /**
   * Signs a retrieval-level upload (usable before a case exists): PUT the
   * bytes to `upload_url` within `UPLOAD_URL_TTL_MINUTES`, then use
   * `upload_id` as `auth_form` or in `attachments` within `UPLOAD_ID_TTL_MS`.
   * `uploadFile` does both.
   */
  signUpload(
    body: RetrievalSignUploadRequest,
    options?: RequestOptions,
  ): APIPromise<SignUploadResponse, "signRetrievalUpload"> {
    return this.core.call(uploads.signRetrieval, { body }, options);
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
    const where = describeOperation(
      case_id === undefined ? uploads.signRetrieval : uploads.signCase,
    );
    const recorder = await uploadRecorder(this.core);
    const sent = await signAndPut(this.core, sign, upload, where, options?.signal, recorder);
    await sent.record({ case_id: case_id ?? null });
    return sent.upload_id;
  }
}
