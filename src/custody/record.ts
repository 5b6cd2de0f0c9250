/**
 * The client's side of the custody log: downloads and uploads hashed as they
 * stream, and the entry each appends. Loaded (by ./transfer.ts) only when a
 * log is attached or a file is saved, so a client without one carries none of it.
 */
import type { APIPromise } from "../core/api-promise.js";
import { fetchContent } from "../core/download.js";
import { CustodyLogError, UploadError } from "../core/errors.js";
import type { RequestOptions } from "../core/options.js";
import type { Core } from "../core/request.js";
import type { CustodyIds, TransferRecorder, UploadFacts } from "../core/transfer-recorder.js";
import type { DownloadResponse } from "../schemas/documents.js";
import type { CustodyRecord } from "./entry.js";
import { hashingStream, type StreamDigest } from "./hashing-stream.js";
import { sha256Hasher } from "./sha256.js";

/** What the custody log records of a file beyond its bytes: ids, name and type. */
export interface CustodyFacts extends CustodyIds {
  file_name?: string | undefined;
  file_type?: string | undefined;
}

/** A file to download: how to sign its address, and (for the log) what it is. */
export interface DownloadSource {
  /** `GET /v2/documents/{document_id}/download`: how messages name the operation. */
  where: string;
  sign: () => APIPromise<DownloadResponse>;
  /** The file's ids, name and type from its metadata: read only when a log is attached. */
  describe: () => Promise<CustodyFacts>;
}

/** Appends the entry of a completed transfer to the client's log, failing with a `CustodyLogError`. */
async function append(
  core: Core,
  action: "download" | "upload",
  facts: CustodyFacts,
  digest: StreamDigest,
  requestId: string | undefined,
): Promise<void> {
  const log = core.options.custodyLog;
  if (log === undefined) return;
  const name = facts.file_name ?? "";
  const id = (value: string | null | undefined) => (value == null ? null : core.redact(value));
  // Every text passes through `redact`: whatever a caller or a server put there, the key never
  // reaches the log.
  const record: CustodyRecord = {
    at: new Date().toISOString(),
    action,
    document_id: id(facts.document_id),
    retrieval_request_id: id(facts.retrieval_request_id),
    case_id: id(facts.case_id),
    file_name: core.options.redactFileNames ? "[redacted]" : core.redact(name),
    file_type: core.redact(facts.file_type ?? "application/octet-stream"),
    bytes: digest.bytes,
    sha256: digest.sha256,
    request_id: requestId === undefined ? null : core.redact(requestId),
    actor: core.redact(core.options.custodyActor ?? core.keyHint),
  };
  try {
    await log.append(record);
  } catch (error) {
    if (error instanceof CustodyLogError) throw error;
    const what = typeof log.description === "string" ? log.description : "custodyLog";
    throw new CustodyLogError(
      what,
      `cannot append: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/**
 * The file behind `source` as a streaming `Response` whose body is hashed
 * as it is read; when it has been read to the end, the entry is appended (if
 * the client has a log) and `onDigest` told, before the body ends. With a log,
 * the file's metadata is read alongside the signing call.
 */
export async function recordedContent(
  core: Core,
  source: DownloadSource,
  options: RequestOptions | undefined,
  onDigest?: (digest: StreamDigest) => void,
): Promise<Response> {
  let requestId: string | undefined;
  const sign = () =>
    source
      .sign()
      .withResponse()
      .then((signed) => {
        requestId = signed.requestId;
        return signed.data;
      });
  const describing = core.options.custodyLog === undefined ? undefined : source.describe();
  // Settled below in every case; never an unhandled rejection when the download fails first.
  describing?.catch(() => undefined);
  const [response, hasher] = await Promise.all([
    fetchContent(core, sign, source.where, options),
    sha256Hasher(),
  ]);
  let facts: CustodyFacts = {};
  try {
    facts = { ...(await describing) };
  } catch (error) {
    await response.body?.cancel().catch(() => undefined);
    throw error;
  }
  facts.file_type ??= response.headers.get("content-type") ?? undefined;
  const body = hashingStream(
    response.body ?? new Blob([]).stream(),
    hasher,
    async (digest: StreamDigest) => {
      await append(core, "download", facts, digest, requestId);
      onDigest?.(digest);
    },
  );
  const recorded = new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  Object.defineProperty(recorded, "url", { value: response.url });
  return recorded;
}

/**
 * Hashes each attempt's body of one upload as it is sent. `body(first)`
 * wraps a body for sending; `finish(ids)` appends the entry of the attempt
 * that succeeded. Core's upload knows it only as a `TransferRecorder`.
 */
export class UploadRecorder implements TransferRecorder {
  readonly #core: Core;
  #digest: StreamDigest | undefined;

  constructor(core: Core) {
    this.#core = core;
  }

  /** `body` as sent, hashed on its way out; bytes in memory are hashed at once. */
  async body(body: BodyInit): Promise<BodyInit> {
    const hasher = await sha256Hasher();
    this.#digest = undefined;
    if (body instanceof Uint8Array) {
      hasher.update(body);
      this.#digest = { bytes: body.byteLength, sha256: hasher.digestHex() };
      return body;
    }
    const stream = body instanceof Blob ? body.stream() : (body as ReadableStream<Uint8Array>);
    return hashingStream(stream, hasher, (digest) => {
      this.#digest = digest;
    });
  }

  /** Appends the entry of the upload that succeeded, naming `ids`. */
  async finish(facts: UploadFacts, ids: CustodyIds, where: string): Promise<void> {
    const digest = this.#digest;
    if (digest === undefined) {
      throw new UploadError(
        `${where}: the upload address answered before the whole file was sent; not recorded as uploaded.`,
      );
    }
    await append(
      this.#core,
      "upload",
      { ...ids, file_name: facts.file_name, file_type: facts.file_type },
      digest,
      facts.requestId,
    );
  }
}
