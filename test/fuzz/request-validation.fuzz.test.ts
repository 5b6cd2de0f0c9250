/**
 * Fuzzing of the client's validation before sending. Every resource method
 * that takes a body, a query or an id is called with arbitrary input (any
 * JSON, any JavaScript value, or a valid input with fields replaced, removed
 * or added) through a client whose fetch records each request. Each call
 * must either reject with a `ValidationError` (or, for the webhook fields
 * whose over-length values the spec answers so, an `InvalidRequestError`)
 * with nothing sent, or send exactly one request; never throw synchronously,
 * never reject with any other error. What is sent must pass the same schema
 * again, so the SDK never puts on the wire what it would itself refuse.
 */
import fc from "fast-check";
import { describe, it } from "vitest";
import type { z } from "zod";
import {
  ActionResponse,
  CaseListParams,
  CaseUpdate,
  DocumentCreate,
  DocumentListParams,
  DocumentUpdate,
  EventListParams,
  FacilitySearchParams,
  InvalidRequestError,
  MedRecords,
  RequestorCreate,
  RequestorListParams,
  RequestorUpdate,
  RetrievalDocumentListParams,
  RetrievalRequestListParams,
  RetrievalSignUploadRequest,
  SignUploadRequest,
  ValidationError,
  WebhookCreate,
  WebhookDeliveryListParams,
  WebhookUpdate,
} from "../../src/index.js";
import { makeCaseCreate } from "../../src/schemas/cases.js";
import { SUBSCRIBABLE_EVENT_TYPES } from "../../src/schemas/events.js";
import { makeRetrievalRequestCreate } from "../../src/schemas/retrieval-requests.js";
import { API_KEY, BASE_URL, json, scriptedFetch } from "../helpers/scripted-fetch.js";
import { anything, nearValid, show, utf16, VALID_BODIES } from "./arbitraries.js";
import { FULL, fuzzParams } from "./runs.js";

const { fetch, seen } = scriptedFetch([], () =>
  json(200, { results: [], next: null, previous: null }),
);
const mr = new MedRecords({ apiKey: API_KEY, baseUrl: BASE_URL, fetch, maxRetries: 0 });

interface Target {
  name: string;
  /** Where the input goes: the JSON body, the query string, or only the path. */
  kind: "body" | "query" | "id";
  schema?: z.ZodType;
  /** Inputs the schema accepts, to be taken apart by the fuzzer. */
  valid: Record<string, unknown>[];
  /** Whether an over-length value is refused as invalid_request (webhooks). */
  invalidRequest?: boolean;
  call(input: never, id: string): PromiseLike<unknown>;
}

const bodies = (operation: string) => VALID_BODIES[operation] ?? [];

const TARGETS: Target[] = [
  {
    name: "cases.create",
    kind: "body",
    schema: makeCaseCreate(),
    valid: bodies("POST /v2/cases"),
    call: (body) => mr.cases.create(body),
  },
  {
    name: "cases.update",
    kind: "body",
    schema: CaseUpdate,
    valid: bodies("PATCH /v2/cases/:case_id"),
    call: (body, id) => mr.cases.update(id, body),
  },
  {
    name: "cases.list",
    kind: "query",
    schema: CaseListParams,
    valid: [{}, { limit: 100, cursor: "abc" }],
    call: (query) => mr.cases.list(query),
  },
  {
    name: "cases.signUpload",
    kind: "body",
    schema: SignUploadRequest,
    valid: bodies("POST /v2/cases/:case_id/sign-upload"),
    call: (body, id) => mr.cases.signUpload(id, body),
  },
  {
    name: "cases.createDocument",
    kind: "body",
    schema: DocumentCreate,
    valid: bodies("POST /v2/cases/:case_id/documents"),
    call: (body, id) => mr.cases.createDocument(id, body),
  },
  {
    name: "documents.list",
    kind: "query",
    schema: DocumentListParams,
    valid: [{}, { case_id: "case_1", archived: true, limit: 5 }, { archived: "false" }],
    call: (query) => mr.documents.list(query),
  },
  {
    name: "documents.update",
    kind: "body",
    schema: DocumentUpdate,
    valid: bodies("PATCH /v2/documents/:document_id"),
    call: (body, id) => mr.documents.update(id, body),
  },
  {
    name: "webhooks.create",
    kind: "body",
    schema: WebhookCreate,
    invalidRequest: true,
    valid: bodies("POST /v2/webhooks"),
    call: (body) => mr.webhooks.create(body),
  },
  {
    name: "webhooks.update",
    kind: "body",
    schema: WebhookUpdate,
    invalidRequest: true,
    valid: bodies("PATCH /v2/webhooks/:id"),
    call: (body, id) => mr.webhooks.update(id, body),
  },
  {
    name: "webhooks.listDeliveries",
    kind: "query",
    schema: WebhookDeliveryListParams,
    valid: [{}, { limit: 1 }],
    call: (query, id) => mr.webhooks.listDeliveries(id, query),
  },
  {
    name: "retrievalRequests.create",
    kind: "body",
    schema: makeRetrievalRequestCreate(),
    valid: bodies("POST /v2/retrieval-requests"),
    call: (body) => mr.retrievalRequests.create(body),
  },
  {
    name: "retrievalRequests.list",
    kind: "query",
    schema: RetrievalRequestListParams,
    valid: [
      {},
      { case_id: "case_1", status: "pending", updated_since: "2026-01-01T00:00:00.000Z", limit: 2 },
    ],
    call: (query) => mr.retrievalRequests.list(query),
  },
  {
    name: "retrievalRequests.respondToAction",
    kind: "body",
    schema: ActionResponse,
    valid: bodies("POST /v2/retrieval-requests/:retrieval_request_id/action-response"),
    call: (body, id) => mr.retrievalRequests.respondToAction(id, body),
  },
  {
    name: "retrievalRequests.listDocuments",
    kind: "query",
    schema: RetrievalDocumentListParams,
    valid: [{}, { limit: 50, cursor: "c" }],
    call: (query, id) => mr.retrievalRequests.listDocuments(id, query),
  },
  {
    name: "retrievalRequests.signUpload",
    kind: "body",
    schema: RetrievalSignUploadRequest,
    valid: bodies("POST /v2/retrieval-requests/sign-upload"),
    call: (body) => mr.retrievalRequests.signUpload(body),
  },
  {
    name: "events.list",
    kind: "query",
    schema: EventListParams,
    valid: [
      {},
      {
        type: SUBSCRIBABLE_EVENT_TYPES,
        created_after: "2026-01-01T00:00:00.000Z",
        created_before: new Date("2026-02-01T00:00:00.000Z"),
        object_id: "rr_1",
        limit: 3,
      },
      { type: "webhook.test,retrieval_request.status_changed" },
    ],
    call: (query) => mr.events.list(query),
  },
  {
    name: "requestors.create",
    kind: "body",
    schema: RequestorCreate,
    valid: bodies("POST /v2/requestors"),
    call: (body) => mr.requestors.create(body),
  },
  {
    name: "requestors.update",
    kind: "body",
    schema: RequestorUpdate,
    valid: bodies("PATCH /v2/requestors/:id"),
    call: (body, id) => mr.requestors.update(id, body),
  },
  {
    name: "requestors.list",
    kind: "query",
    schema: RequestorListParams,
    valid: [{}, { limit: 10 }],
    call: (query) => mr.requestors.list(query),
  },
  {
    name: "facilities.search",
    kind: "query",
    schema: FacilitySearchParams,
    valid: [{ query: "clinic" }, { query: " harbor  bay ", limit: 100 }],
    call: (query) => mr.facilities.search(query),
  },
  // Only an id: a path segment, whatever its characters.
  ...(
    [
      ["cases.retrieve", (id: string) => mr.cases.retrieve(id)],
      ["documents.retrieve", (id: string) => mr.documents.retrieve(id)],
      ["documents.download", (id: string) => mr.documents.download(id)],
      ["webhooks.retrieve", (id: string) => mr.webhooks.retrieve(id)],
      ["webhooks.delete", (id: string) => mr.webhooks.delete(id)],
      ["webhooks.test", (id: string) => mr.webhooks.test(id)],
      ["webhooks.redeliver", (id: string) => mr.webhooks.redeliver(id, id)],
      ["retrievalRequests.retrieve", (id: string) => mr.retrievalRequests.retrieve(id)],
      [
        "retrievalRequests.downloadDocument",
        (id: string) => mr.retrievalRequests.downloadDocument(id, id),
      ],
      ["events.retrieve", (id: string) => mr.events.retrieve(id)],
      ["requestors.retrieve", (id: string) => mr.requestors.retrieve(id)],
    ] as const
  ).map(
    ([name, call]): Target => ({
      name,
      kind: "id",
      valid: [],
      call: (_input, id) => call(id),
    }),
  ),
];

// ------------------------------------------------------------------ inputs

const idArb = fc.oneof(
  { arbitrary: fc.constantFrom("case_1", "rr_1", "wh_1"), weight: 3 },
  fc.string({ unit: "binary", maxLength: 30 }),
  utf16,
  fc.constantFrom("", " ", "/", "..", "?a=1", "#x", "%", "%2F", "\0", "\uD800"),
  anything,
);

function inputFor(target: Target): fc.Arbitrary<unknown> {
  if (target.kind === "id") return fc.constant(undefined);
  return fc.oneof(
    { arbitrary: nearValid(target.valid), weight: 4 },
    { arbitrary: fc.constantFrom(...target.valid), weight: 1 },
    fc.jsonValue(),
    anything,
  );
}

const call = fc
  .constantFrom(...TARGETS)
  .chain((target) => fc.tuple(fc.constant(target), inputFor(target), idArb));

// ------------------------------------------------------------------ property

/** What reached the wire must pass the schema that let it through. */
function checkSent(target: Target, input: unknown): void {
  const [request] = seen;
  if (request === undefined || seen.length !== 1) {
    throw new Error(`${target.name}: ${seen.length} requests sent for one call`);
  }
  if (!target.schema) return;
  if (target.kind === "body") {
    const result = target.schema.safeParse(JSON.parse(request.body ?? "null"));
    if (!result.success) {
      throw new Error(
        `${target.name} sent a body its own schema refuses: ${request.body}\ninput: ${show(input)}`,
      );
    }
  } else if (target.kind === "query") {
    const query = Object.fromEntries(new URL(request.url).searchParams);
    const result = target.schema.safeParse(query);
    if (!result.success) {
      throw new Error(
        `${target.name} sent a query its own schema refuses: ${request.url}\ninput: ${show(input)}`,
      );
    }
  }
}

describe("request validation fuzzing", () => {
  it(
    "refuses bad input with a ValidationError before sending, and sends good input once",
    async () => {
      await fc.assert(
        fc.asyncProperty(call, async ([target, input, id]) => {
          seen.length = 0;
          let pending: PromiseLike<unknown>;
          try {
            pending = target.call(input as never, id as string);
          } catch (error) {
            throw new Error(`${target.name} threw synchronously: ${String(error)}`);
          }
          let error: unknown;
          try {
            await pending;
          } catch (e) {
            error = e;
          }
          if (error === undefined) return checkSent(target, input);

          const expected =
            error instanceof ValidationError ||
            (target.invalidRequest === true && error instanceof InvalidRequestError);
          if (!expected) {
            throw new Error(
              `${target.name} rejected with ${String(error)}\ninput: ${show(input)}\nid: ${show(id)}`,
            );
          }
          const refusal = error as ValidationError;
          if (seen.length !== 0 || refusal.requestId !== undefined || refusal.status !== 400) {
            throw new Error(`${target.name}: a refused input was sent (${seen.length} requests)`);
          }
          if (refusal.issues.length === 0 || !refusal.message.includes("(not sent)")) {
            throw new Error(`${target.name}: a refusal without issues: ${refusal.message}`);
          }
        }),
        fuzzParams(50_000),
      );
    },
    FULL ? 600_000 : 60_000,
  );
});
