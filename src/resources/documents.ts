import * as documents from "../contract/documents.js";
import type { APIPromise } from "../core/api-promise.js";
import type { RequestOptions } from "../core/options.js";
import { type PagePromise, paginate } from "../core/pagination.js";
import { describeOperation } from "../core/request.js";
import { APIResource } from "../core/resource.js";
import type { DownloadSource } from "../custody/record.js";
import type { SavedFile, SaveOptions } from "../custody/save.js";
import { downloadContent, saveContent } from "../custody/transfer.js";
import type {
  Document,
  DocumentListParams,
  DocumentUpdate,
  DownloadResponse,
} from "../schemas/documents.js";

/** Files attached to cases. */
export class Documents extends APIResource {
  /** Documents newest first, optionally of one case and by archived status. */
  list(
    query: DocumentListParams = {},
    options?: RequestOptions,
  ): PagePromise<Document, "listDocuments"> {
    return paginate(this.core, documents.list, { query }, options);
  }

  /** One document by id; a `NotFoundError` when there is none. */
  retrieve(documentId: string, options?: RequestOptions): APIPromise<Document, "getDocument"> {
    return this.core.call(documents.retrieve, { params: { document_id: documentId } }, options);
  }

  /** Moves it to another virtual `path`, or archives (`archived: true`) and unarchives it. */
  update(
    documentId: string,
    body: DocumentUpdate,
    options?: RequestOptions,
  ): APIPromise<Document, "updateDocument"> {
    return this.core.call(documents.update, { params: { document_id: documentId }, body }, options);
  }

  /**
   * A presigned address for the bytes (`download_url`), valid for
   * `expires_in` seconds (3600); fetch it without the API key. For the bytes
   * themselves, {@link Documents.content}.
   */
  downloadUrl(
    documentId: string,
    options?: RequestOptions,
  ): APIPromise<DownloadResponse, "downloadDocument"> {
    return this.core.call(documents.download, { params: { document_id: documentId } }, options);
  }

  /**
   * @deprecated Use {@link Documents.downloadUrl}, the same call under a name
   * that says it gives an address (and {@link Documents.content} for the bytes).
   */
  download(
    documentId: string,
    options?: RequestOptions,
  ): APIPromise<DownloadResponse, "downloadDocument"> {
    return this.downloadUrl(documentId, options);
  }

  /**
   * The document's bytes as a streaming `Response`, from a fresh presigned
   * address fetched without the API key (re-signed once if it has expired).
   * A refusal of the address is a `DownloadError`; no answer, a `ConnectionError`.
   * With a custody log, the body is hashed as it is read and the entry appended
   * when it ends (the document's name, type and case are read alongside the
   * signing call); a body cut short appends nothing, and an entry that cannot
   * be appended errors the body at its end (a `CustodyLogError`).
   * @example
   * const response = await mr.documents.content(documentId);
   * await pipeline(Readable.fromWeb(response.body!), createWriteStream("records.pdf"));
   */
  content(documentId: string, options?: RequestOptions): Promise<Response> {
    return downloadContent(this.core, this.#file(documentId, options), options);
  }

  /**
   * Downloads the document to `path` atomically (a temporary file beside it,
   * renamed once the whole file came) and resolves its size and SHA-256.
   * With a custody log, the entry is appended before the file is renamed
   * into place; if it cannot be, nothing is written. Node, Bun and Deno.
   * @example const { sha256 } = await mr.documents.save(documentId, { path: "./records.pdf" });
   */
  save(documentId: string, to: SaveOptions, options?: RequestOptions): Promise<SavedFile> {
    return saveContent(this.core, this.#file(documentId, options), to, options);
  }

  /** The document's download, and (read only for a custody log) its name, type and case. */
  #file(documentId: string, options: RequestOptions | undefined): DownloadSource {
    return {
      where: describeOperation(documents.download),
      sign: () => this.downloadUrl(documentId, options),
      describe: async () => {
        const { case_id, file_name, file_type } = await this.retrieve(documentId, options);
        return { document_id: documentId, case_id, file_name, file_type };
      },
    };
  }
}
