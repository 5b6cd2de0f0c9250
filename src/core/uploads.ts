import * as z from "zod";
import { discardBody } from "../internal/discard-body.js";
import type { SignUploadResponse } from "../schemas/uploads.js";
import type { APIPromise } from "./api-promise.js";
import { UploadError } from "./errors.js";
import { isNode, nodePut } from "./node-put.js";
import type { Core } from "./request.js";
import { validateInput } from "./request.js";
import type { CustodyIds, TransferRecorder } from "./transfer-recorder.js";

/**
 * What an upload accepts. Streams are sent as they are read, never buffered
 * whole, so they need a known `size` for the `Content-Length` the presigned
 * address requires.
 */
export type Uploadable =
  | Blob
  | Uint8Array
  | ArrayBuffer
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array>;

/** A file to upload, and the name and type it is signed with. */
export interface UploadParams {
  /** The bytes: a `Blob`/`File`, bytes, a web `ReadableStream`, a Node stream, or `await fileFromPath(path)`. */
  file: Uploadable;
  /** @default the `File`'s name */
  file_name?: string;
  /** MIME type, sent as `Content-Type` of the PUT. @default the `Blob`'s type */
  file_type?: string;
  /** Byte length; required for streams, checked against the bytes sent. */
  size?: number;
}

const Size = z.number().int().nonnegative();

interface PreparedBody {
  /** Makes the body afresh; undefined when it can be sent only once (a stream). */
  replay: (() => BodyInit) | undefined;
  first: BodyInit;
  length: number;
}

/** Resolves name, type and length of an upload, refusing what cannot be sent. */
function prepareUpload(params: UploadParams, where: string) {
  const { file } = params;
  const file_name =
    params.file_name ??
    (typeof File !== "undefined" && file instanceof File ? file.name : undefined);
  const file_type =
    params.file_type ?? (file instanceof Blob && file.type !== "" ? file.type : undefined);
  const names = validateInput(
    z.object({ file_name: z.string().min(1), file_type: z.string().min(1) }),
    { file_name, file_type },
    where,
  );
  return { ...names, body: prepareBody(params, where) };
}

function prepareBody({ file, size }: UploadParams, where: string): PreparedBody {
  const declared = size === undefined ? undefined : validateInput(Size, size, where);
  const check = (actual: number) => {
    if (declared !== undefined && declared !== actual) {
      throw new UploadError(
        `${where}: size ${declared} does not match the file's ${actual} bytes.`,
      );
    }
    return actual;
  };
  if (file instanceof Blob) return { first: file, replay: () => file, length: check(file.size) };
  if (file instanceof ArrayBuffer || ArrayBuffer.isView(file)) {
    const bytes = file instanceof ArrayBuffer ? new Uint8Array(file) : (file as Uint8Array);
    return {
      first: bytes as BodyInit,
      replay: () => bytes as BodyInit,
      length: check(bytes.byteLength),
    };
  }
  const stream = toReadableStream(file);
  if (!stream) {
    throw new UploadError(
      `${where}: \`file\` must be a Blob, bytes, a ReadableStream, a Node stream or fileFromPath(path).`,
    );
  }
  if (declared === undefined) {
    throw new UploadError(
      `${where}: \`size\` is required for a stream (the upload address needs Content-Length).`,
    );
  }
  return { first: stream, replay: undefined, length: declared };
}

function toReadableStream(file: unknown): ReadableStream<Uint8Array> | undefined {
  if (typeof ReadableStream !== "undefined" && file instanceof ReadableStream) return file;
  if (file && typeof (file as AsyncIterable<Uint8Array>)[Symbol.asyncIterator] === "function") {
    const iterator = (file as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    // pull-based, so a Node stream is read only as fast as the socket drains.
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { value, done } = await iterator.next();
        if (done) controller.close();
        else
          controller.enqueue(typeof value === "string" ? new TextEncoder().encode(value) : value);
      },
      async cancel(reason) {
        await iterator.return?.(reason);
      },
    });
  }
  return undefined;
}

/** The `error.code` of a JSON error body, if it has one. */
export async function errorCode(response: Response): Promise<string | undefined> {
  try {
    const data = (await response.json()) as { error?: { code?: unknown } };
    return typeof data?.error?.code === "string" ? data.error.code : undefined;
  } catch {
    return undefined;
  }
}

/** The file name and type a signing endpoint takes. */
export interface UploadNames {
  file_name: string;
  file_type: string;
}

/** A completed PUT: the `upload_id` to consume, and how to log it. */
export interface SentUpload {
  upload_id: string;
  /**
   * Appends the upload's custody entry naming `ids` (a no-op without a
   * custody log): called by the resource once it knows them (the document
   * `uploadDocument` created), so that the entry names what the file became.
   */
  record(ids: CustodyIds): Promise<void>;
}

/**
 * The whole upload flow over any signing endpoint: resolve name and type,
 * sign, PUT the bytes, and return the `upload_id` to consume. The PUT carries
 * `Content-Type` and `Content-Length` and no `Authorization`, through the
 * caller's `fetch` when one was given, else (in Node) through node:http for
 * bounded memory. A 403 means the address expired (`UPLOAD_URL_TTL_MINUTES`); a replayable
 * body is re-signed and sent once more. With a `recorder` (the resource
 * passes src/custody's when a custody log is attached), each attempt's bytes
 * are seen as they are sent and the one that succeeded is recorded.
 */
export async function signAndPut(
  core: Core,
  sign: (names: UploadNames) => APIPromise<SignUploadResponse>,
  params: UploadParams,
  where: string,
  signal?: AbortSignal,
  recorder?: TransferRecorder,
): Promise<SentUpload> {
  const prepared = prepareUpload(params, where);
  const names = { file_name: prepared.file_name, file_type: prepared.file_type };
  const fetchFn = core.customFetch;
  let { data: signed, requestId } = await sign(names).withResponse();
  let body = prepared.body.first;
  for (let attempt = 1; ; attempt++) {
    if (recorder) body = await recorder.body(body);
    const headers = {
      "content-type": prepared.file_type,
      "content-length": String(prepared.body.length),
    };
    const response =
      fetchFn === undefined && core.options.fetchOptions?.dispatcher === undefined && isNode()
        ? await nodePut(core, signed.upload_url, body, headers, signal)
        : await core.storageFetch(signed.upload_url, {
            method: "PUT",
            body,
            headers,
            signal,
            // Streams need half duplex in Node's fetch; ignored elsewhere.
            duplex: "half",
          } as RequestInit);
    if (response.ok) {
      discardBody(response);
      const upload_id = signed.upload_id;
      return {
        upload_id,
        record: (ids) => recorder?.finish({ ...names, requestId }, ids, where) ?? Promise.resolve(),
      };
    }
    const code = await errorCode(response);
    if (response.status !== 403 || attempt > 1) {
      throw new UploadError(
        `${where}: the upload address answered ${response.status}${code ? ` ${code}` : ""}.`,
        response.status,
        code,
      );
    }
    if (!prepared.body.replay) {
      throw new UploadError(
        `${where}: the upload address expired (403) and a stream cannot be sent twice; pass a Blob, bytes or fileFromPath(path) to let the SDK re-sign, or start the upload sooner.`,
        response.status,
        code,
      );
    }
    ({ data: signed, requestId } = await sign(names).withResponse());
    body = prepared.body.replay();
  }
}
