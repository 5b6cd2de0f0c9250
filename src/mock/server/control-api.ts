/**
 * The control API under `/__mock/` (docs/spec-decisions.md, "Reference server conventions", over HTTP): the same
 * calls a JavaScript test makes on the service object, as JSON endpoints, so
 * a test suite in any language can drive the clock, the provider's side of
 * retrieval requests, faults, keys and the delivery inbox.
 *
 * No authentication: it listens on loopback, like any test double. Bodies are
 * validated here only as far as JSON goes; the service's own methods check
 * their arguments (TypeError, answered 400) and the moves they allow (Error,
 * answered 409), so the two surfaces cannot drift apart.
 */
import * as z from "zod";
import { SCOPES } from "../../schemas/scopes.js";
import type { MockRetrievalRequests } from "../controls/retrieval-control.js";
import type { MockSeed } from "../controls/seed.js";
import type { MockSnapshot } from "../controls/snapshot.js";
import { apiErrorReply, json, readText } from "../http/handlers/shared.js";
import { Router } from "../http/router.js";
import { redeliver } from "../model/webhooks.js";
import type { MockClockAdvanceResult } from "../runtime/clock.js";
import type { MockFaultOptions } from "../runtime/fault-options.js";
import { MockApiError, notFound, validationError } from "../runtime/http-error.js";
import { contextOf, type MockServiceCore } from "../service/service.js";
import { INSPECTOR_FILES, INSPECTOR_PATH, inspectorFile } from "./inspector-page.js";
import { inspectorView } from "./inspector-view.js";

type ControlHandler = (call: {
  request: Request;
  params: Record<string, string>;
}) => Promise<Response> | Response;

const ApiKeyInput = z.strictObject({ scopes: z.array(z.enum(SCOPES)).optional() });
const AdvanceInput = z.strictObject({ by: z.union([z.number(), z.string()]) });
const SetClockInput = z.strictObject({ now: z.union([z.string(), z.number()]) });
const RecordFileInput = z
  .strictObject({
    file_name: z.string(),
    file_type: z.string(),
    /** UTF-8 text. */
    content: z.string().optional(),
    /** Binary bytes, base64. */
    content_base64: z.base64().optional(),
  })
  .refine((file) => (file.content === undefined) !== (file.content_base64 === undefined), {
    message: "Give exactly one of content (UTF-8 text) and content_base64",
  });
const ReleaseInput = z.strictObject({ files: z.array(RecordFileInput) });
const InvoiceInput = z.strictObject({
  file_name: z.string(),
  ready: z.boolean().optional(),
  file_type: z.string().optional(),
  content: z.string().optional(),
  amount: z.number().nullable().optional(),
  records_fee: z.number().nullable().optional(),
});

/** Every endpoint, for `GET /__mock` and docs/reference-server.md. */
export const CONTROL_ENDPOINTS = [
  "GET    /__mock",
  "POST   /__mock/api-keys",
  "GET    /__mock/clock",
  "POST   /__mock/clock/advance",
  "POST   /__mock/clock/set",
  "POST   /__mock/retrieval-requests/{id}/status",
  "POST   /__mock/retrieval-requests/{id}/action-requests",
  "GET    /__mock/retrieval-requests/{id}/action-requests",
  "POST   /__mock/retrieval-requests/{id}/records",
  "POST   /__mock/retrieval-requests/{id}/invoices",
  "POST   /__mock/retrieval-requests/{id}/invoices/{invoice_id}/ready",
  "POST   /__mock/retrieval-requests/{id}/complete",
  "POST   /__mock/retrieval-requests/{id}/cancel",
  "POST   /__mock/deliveries/flush",
  "GET    /__mock/deliveries/inbox",
  "GET    /__mock/faults",
  "PUT    /__mock/faults",
  "DELETE /__mock/faults",
  "POST   /__mock/reset",
  "POST   /__mock/seed/cases",
  "POST   /__mock/seed/retrieval-requests",
  "POST   /__mock/snapshots",
  "POST   /__mock/snapshots/{id}/restore",
  "DELETE /__mock/snapshots/{id}",
  "GET    /__mock/requests",
  "DELETE /__mock/requests",
  "POST   /__mock/webhooks/{id}/deliveries/{delivery_id}/redeliver",
  "GET    /__mock/state",
  "GET    /__mock/ui",
] as const;

/** An advance's result as JSON: the time as an ISO string. */
function windowJson(result: MockClockAdvanceResult) {
  return { ...result, now: result.now.toISOString() };
}

/** Snapshots the control API holds at once; `DELETE /__mock/snapshots/{id}` frees a place. */
export const CONTROL_SNAPSHOTS_MAX = 100;

export function createControlApi(
  service: MockServiceCore,
): (request: Request, url: URL) => Promise<Response> {
  const api = new ControlApi(service);
  return (request, url) => api.serve(request, url);
}

/** The control endpoints of one service, routed; the snapshots it holds by id. */
class ControlApi {
  readonly #service: MockServiceCore;
  readonly #router = new Router<ControlHandler>();
  // Held here by id, as a snapshot is an in-process value; ids are never reused.
  readonly #snapshots = new Map<string, MockSnapshot>();
  #snapshotCount = 0;

  constructor(service: MockServiceCore) {
    this.#service = service;
    this.#serviceRoutes();
    this.#clockRoutes();
    this.#retrievalRoutes();
    this.#deliveryAndFaultRoutes();
    this.#seedRoutes();
    this.#snapshotRoutes();
    this.#inspectorRoutes();
  }

  async serve(request: Request, url: URL): Promise<Response> {
    try {
      const match = this.#router.match(request.method, url.pathname);
      if (match === undefined) {
        throw notFound(
          `No control endpoint ${request.method} ${url.pathname}; GET /__mock lists them.`,
        );
      }
      return await match.route({ request, params: match.params });
    } catch (error) {
      return controlError(error);
    }
  }

  #route(method: string, pattern: string, handler: ControlHandler): void {
    this.#router.add(method, `/__mock${pattern}`, handler);
  }

  #now() {
    return { now: this.#service.clock.now().toISOString() };
  }

  #serviceRoutes(): void {
    const service = this.#service;
    this.#route("GET", "", () =>
      json(200, {
        base_url: service.baseUrl,
        storage_url: service.storageUrl,
        ...this.#now(),
        endpoints: CONTROL_ENDPOINTS,
      }),
    );
    this.#route("POST", "/api-keys", async ({ request }) => {
      const { scopes } = await readJson(request, ApiKeyInput, {});
      const api_key = service.apiKeys.create(scopes === undefined ? {} : { scopes });
      return json(201, { api_key, scopes: scopes ?? SCOPES });
    });
    this.#route("POST", "/reset", () => {
      service.reset();
      return new Response(null, { status: 204 });
    });
    this.#route("GET", "/requests", () => json(200, { results: service.requests }));
    this.#route("DELETE", "/requests", () => {
      service.requests.clear();
      return new Response(null, { status: 204 });
    });
  }

  #clockRoutes(): void {
    const clock = this.#service.clock;
    this.#route("GET", "/clock", () => json(200, this.#now()));
    // Answered once the window's deliveries were made, with what they came to.
    this.#route("POST", "/clock/advance", async ({ request }) =>
      json(200, windowJson(await clock.advance((await readJson(request, AdvanceInput)).by))),
    );
    this.#route("POST", "/clock/set", async ({ request }) =>
      json(200, windowJson(await clock.set((await readJson(request, SetClockInput)).now))),
    );
  }

  #retrievalRoutes(): void {
    const rr = this.#service.retrievalRequests;
    const base = "/retrieval-requests/:id";
    this.#route("POST", `${base}/status`, async ({ request, params }) =>
      json(200, rr.setStatus(id(params), await readJson(request, checkedBy<StatusInput>()))),
    );
    this.#route("POST", `${base}/action-requests`, async ({ request, params }) =>
      json(
        201,
        rr.openActionRequest(id(params), await readJson(request, checkedBy<ActionRequestInput>())),
      ),
    );
    this.#route("GET", `${base}/action-requests`, ({ params }) =>
      json(200, { results: rr.actionRequests(id(params)) }),
    );
    this.#route("POST", `${base}/records`, async ({ request, params }) => {
      const { files } = await readJson(request, ReleaseInput);
      return json(201, { document_ids: rr.releaseRecords(id(params), files.map(recordFile)) });
    });
    this.#route("POST", `${base}/invoices`, async ({ request, params }) =>
      json(201, { document_id: rr.addInvoice(id(params), await readJson(request, InvoiceInput)) }),
    );
    this.#route("POST", `${base}/invoices/:invoice_id/ready`, ({ params }) =>
      json(200, rr.markInvoiceReady(id(params), params.invoice_id as string)),
    );
    this.#route("POST", `${base}/complete`, ({ params }) => json(200, rr.complete(id(params))));
    this.#route("POST", `${base}/cancel`, ({ params }) => json(200, rr.cancel(id(params))));
  }

  #deliveryAndFaultRoutes(): void {
    const { deliveries, faults } = this.#service;
    this.#route("POST", "/deliveries/flush", async () => {
      const result = await deliveries.flush();
      return json(200, { flushed: true, ...result });
    });
    this.#route("GET", "/deliveries/inbox", () => json(200, { results: deliveries.inbox }));
    this.#route("GET", "/faults", () => json(200, faults.current()));
    this.#route("PUT", "/faults", async ({ request }) => {
      faults.set(await readJson(request, checkedBy<MockFaultOptions>()));
      return json(200, faults.current());
    });
    this.#route("DELETE", "/faults", () => {
      faults.clear();
      return json(200, faults.current());
    });
    // The API's redelivery, for the inspector page, which holds no API key.
    this.#route("POST", "/webhooks/:id/deliveries/:delivery_id/redeliver", async ({ params }) =>
      json(
        200,
        await redeliver(contextOf(this.#service), id(params), params.delivery_id as string),
      ),
    );
  }

  #seedRoutes(): void {
    const seed = this.#service.seed;
    this.#route("POST", "/seed/cases", async ({ request }) =>
      json(201, seed.case(await readJson(request, checkedBy<SeedCaseInput>(), {}))),
    );
    this.#route("POST", "/seed/retrieval-requests", async ({ request }) => {
      const emit = new URL(request.url).searchParams.get("emit");
      if (emit !== null && emit !== "true" && emit !== "false") {
        throw new MockApiError(400, "validation_error", "emit: expected true or false.");
      }
      const input = await readJson(request, checkedBy<SeedRetrievalInput>());
      return json(201, seed.retrievalRequest(input, { emit: emit === "true" }));
    });
  }

  #snapshotRoutes(): void {
    this.#route("POST", "/snapshots", () =>
      json(201, { id: this.#takeSnapshot(), ...this.#now() }),
    );
    this.#route("POST", "/snapshots/:id/restore", ({ params }) => {
      this.#service.restore(this.#snapshotOf(params));
      return json(200, this.#now());
    });
    this.#route("DELETE", "/snapshots/:id", ({ params }) => {
      this.#snapshotOf(params);
      this.#snapshots.delete(id(params));
      return new Response(null, { status: 204 });
    });
  }

  #takeSnapshot(): string {
    if (this.#snapshots.size >= CONTROL_SNAPSHOTS_MAX) {
      throw new MockApiError(
        409,
        "conflict",
        `The control API holds up to ${CONTROL_SNAPSHOTS_MAX} snapshots; DELETE /__mock/snapshots/{id} one first.`,
      );
    }
    this.#snapshotCount += 1;
    const snapshotId = `snap_${this.#snapshotCount}`;
    this.#snapshots.set(snapshotId, this.#service.snapshot());
    return snapshotId;
  }

  #snapshotOf(params: Record<string, string>): MockSnapshot {
    const snapshot = this.#snapshots.get(id(params));
    if (snapshot === undefined) throw notFound(`No snapshot ${id(params)}.`);
    return snapshot;
  }

  #inspectorRoutes(): void {
    this.#route("GET", "/state", () => {
      // Read by the inspector's page like its own files, and with their headers: never
      // sniffed as anything but JSON, never kept by a cache (it shows the mock's whole state).
      const answer = json(200, inspectorView(this.#service));
      answer.headers.set("x-content-type-options", "nosniff");
      answer.headers.set("cache-control", "no-store");
      return answer;
    });
    for (const file of INSPECTOR_FILES) {
      this.#router.add("GET", `${INSPECTOR_PATH}${file}`, () => inspectorFile(file));
    }
  }
}

/** A released file as the service takes it: text as is, base64 as bytes. */
function recordFile({ content, content_base64, ...file }: z.output<typeof RecordFileInput>) {
  return {
    ...file,
    content:
      content_base64 === undefined
        ? (content as string)
        : Uint8Array.from(Buffer.from(content_base64, "base64")),
  };
}

type StatusInput = Parameters<MockRetrievalRequests["setStatus"]>[1];
type SeedCaseInput = Parameters<MockSeed["case"]>[0];
type SeedRetrievalInput = Parameters<MockSeed["retrievalRequest"]>[0];
type ActionRequestInput = Parameters<MockRetrievalRequests["openActionRequest"]>[1];

/** Any JSON, typed as the argument of the service method that validates it. */
function checkedBy<T>() {
  return z.custom<T>();
}

function id(params: Record<string, string>): string {
  return params.id as string;
}

async function readJson<S extends z.ZodType>(
  request: Request,
  schema: S,
  empty?: z.output<S>,
): Promise<z.output<S>> {
  const text = await readText(request);
  if (text.trim() === "" && empty !== undefined) return empty;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new MockApiError(400, "validation_error", "body: expected a JSON document.");
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) throw validationError(parsed.error.issues, "body");
  return parsed.data;
}

/** The service's own checks: bad arguments are 400, a move the request cannot make is 409. */
function controlError(error: unknown): Response {
  if (error instanceof MockApiError) return apiErrorReply(error);
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof TypeError || error instanceof RangeError) {
    return json(400, { error: { code: "validation_error", message } });
  }
  return json(409, { error: { code: "conflict", message } });
}
