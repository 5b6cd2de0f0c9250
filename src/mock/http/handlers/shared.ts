/** What every handler shares: the route shape, JSON replies, body and query parsing. */
import * as z from "zod";
import type { Operation } from "../../../contract/operation.js";
import { DEFAULT_PAGE_LIMIT, requestErrorCode } from "../../../schemas/common.js";
import { MAX_BODY_BYTES } from "../../../shared/request-body.js";
import type { ApiKeyRecord } from "../../model/api-keys.js";
import { MockApiError, validationError } from "../../runtime/http-error.js";
import type { PathParams } from "../router.js";

export interface ApiCall {
  readonly request: Request;
  readonly url: URL;
  readonly params: PathParams;
  readonly apiKey: ApiKeyRecord;
  /** The X-Request-Id this call is answered with, which the events it causes record. */
  readonly requestId: string;
}

/** An operation of the contract bound to the model (see src/mock/http/bind.ts). */
export interface ApiRoute {
  readonly operation: Operation;
  readonly method: string;
  /** The operation's path, e.g. `/v2/cases/{case_id}`. */
  readonly pattern: string;
  handle(call: ApiCall): Response | Promise<Response>;
}

export interface StorageCall {
  readonly request: Request;
  readonly params: PathParams;
}

export interface StorageRoute {
  readonly method: string;
  readonly pattern: string;
  handle(call: StorageCall): Response | Promise<Response>;
}

/** A JSON answer, as `Content-Type: application/json`. */
export function json(status: number, body: unknown): Response {
  return Response.json(body, { status });
}

/** The spec's error body `{ error: { code, message } }` with the error's extra headers. */
export function apiErrorReply(error: MockApiError): Response {
  const answer = json(error.status, { error: { code: error.code, message: error.message } });
  for (const [name, value] of Object.entries(error.headers)) answer.headers.set(name, value);
  return answer;
}

/** For endpoints that take no query parameters: any parameter is unknown. */
export const NoQuery = z.strictObject({});

/**
 * The body as UTF-8 text, as `request.text()` reads it, refusing one over
 * {@link MAX_BODY_BYTES} with 413 `payload_too_large`: by its Content-Length
 * before reading, or once that many bytes have arrived.
 */
export async function readText(request: Request): Promise<string> {
  return new TextDecoder().decode(await readBytes(request));
}

/**
 * Whether a Content-Type names JSON: `application/json` or any
 * `application/<x>+json`, whatever its parameters (charset), in any case.
 */
export function isJsonContentType(contentType: string | null): boolean {
  if (contentType === null) return false;
  const essence = (contentType.split(";", 1)[0] ?? "").trim().toLowerCase();
  return (
    essence === "application/json" || /^application\/[^\s/;+]+(?:\+[^\s/;+]+)*\+json$/.test(essence)
  );
}

/**
 * The body of an API request as text, for JSON parsing: a body of at least
 * one byte must be declared JSON, or the request is refused with 415
 * `unsupported_media_type` (docs/spec-decisions.md, Conventions and errors).
 * A request without a body (no bytes, whatever its Content-Type) passes, so
 * bodiless operations need no header. Storage uploads do not come here.
 */
export async function readJsonText(request: Request): Promise<string> {
  const bytes = await readBytes(request);
  const contentType = request.headers.get("content-type");
  if (bytes.byteLength > 0 && !isJsonContentType(contentType)) {
    const given =
      contentType === null
        ? "no Content-Type"
        : `Content-Type ${JSON.stringify((contentType.split(";", 1)[0] ?? "").trim().slice(0, 100))}`;
    throw new MockApiError(
      415,
      "unsupported_media_type",
      `The request body must be JSON, sent with Content-Type: application/json (or another +json type, any charset); got ${given}.`,
    );
  }
  return new TextDecoder().decode(bytes);
}

async function readBytes(request: Request): Promise<Uint8Array> {
  const tooLarge = () =>
    new MockApiError(
      413,
      "payload_too_large",
      `The request body is larger than ${MAX_BODY_BYTES} bytes.`,
    );
  if (Number(request.headers.get("content-length")) > MAX_BODY_BYTES) throw tooLarge();
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let size = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    size += read.value.byteLength;
    if (size > MAX_BODY_BYTES) {
      // Not cancelled: that would reset the connection before the 413
      // reached the client. The HTTP adapter drops the rest as it arrives.
      reader.releaseLock();
      throw tooLarge();
    }
    chunks.push(read.value);
  }
  return new Uint8Array(await new Blob(chunks).arrayBuffer());
}

/** Parses a body read with {@link readJsonText} against a schema, or throws 400 validation_error (or invalid_request). */
export function parseJsonBody<S extends z.ZodType>(text: string, schema: S): z.output<S> {
  if (text.trim() === "") {
    throw validationError(
      [{ code: "custom", path: [], message: "A JSON body is required" }],
      "body",
    );
  }
  return parseBody(text, schema);
}

/**
 * For operations that take no body (test, redeliver, delete): nothing, or an
 * empty JSON object, is accepted; anything else is an unknown property.
 */
export async function readNoBody(request: Request): Promise<void> {
  const text = await readJsonText(request);
  if (text.trim() !== "") parseBody(text, NoQuery);
}

function parseBody<S extends z.ZodType>(text: string, schema: S): z.output<S> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw validationError([{ code: "custom", path: [], message: "Malformed JSON" }], "body");
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    // Some schemas (webhooks) answer an over-length value with invalid_request.
    throw validationError(
      parsed.error.issues,
      "body",
      requestErrorCode(schema, parsed.error.issues),
    );
  }
  return parsed.data;
}

/** Parses the query string against a strict schema, or throws 400 validation_error. */
export function readQuery<S extends z.ZodType>(url: URL, schema: S): z.output<S> {
  const query: Record<string, string> = {};
  const repeated = new Set<string>();
  for (const [name, value] of url.searchParams) {
    if (Object.hasOwn(query, name)) repeated.add(name);
    query[name] = value;
  }
  if (repeated.size > 0) {
    throw validationError(
      [...repeated].map((name) => ({
        code: "custom",
        path: [name],
        message: "Given more than once",
      })),
      "query",
    );
  }
  const parsed = schema.safeParse(query);
  if (!parsed.success) throw validationError(parsed.error.issues, "query");
  return parsed.data;
}

/** `limit` with its default, and `cursor`: the paging part of any list query. */
export function pageOf(query: { limit?: number | undefined; cursor?: string | undefined }) {
  return { limit: query.limit ?? DEFAULT_PAGE_LIMIT, cursor: query.cursor };
}
