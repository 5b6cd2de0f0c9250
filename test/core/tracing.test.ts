import { AsyncLocalStorage } from "node:async_hooks";
import {
  type Context,
  type ContextManager,
  context,
  propagation,
  ROOT_CONTEXT,
  type TextMapPropagator,
  TraceFlags,
  trace,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { MedRecords, NotFoundError } from "../../src/index.js";
import { createMockService } from "../../src/mock/index.js";
import {
  API_KEY,
  apiError,
  BASE_URL,
  json,
  sampleCase,
  scriptedFetch,
} from "../helpers/scripted-fetch.js";

/** The active context across awaits, as @opentelemetry/context-async-hooks keeps it. */
class StorageContextManager implements ContextManager {
  readonly #storage = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.#storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.#storage.run(ctx, () => fn.call(thisArg, ...args));
  }
  bind<T>(_ctx: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.#storage.disable();
    return this;
  }
}
context.setGlobalContextManager(new StorageContextManager());
// What an application's OpenTelemetry setup registers (the Node SDK does by default).
propagation.setGlobalPropagator(new W3CTraceContextPropagator());

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer("medrecords-test");

afterEach(() => {
  exporter.reset();
});

const client = (fetch: typeof globalThis.fetch, extra = {}) =>
  new MedRecords({ apiKey: API_KEY, baseUrl: BASE_URL, fetch, tracer, ...extra });

// @opentelemetry/api's SpanKind.CLIENT and SpanStatusCode.ERROR / UNSET.
const CLIENT = 2;
const ERROR = 2;
const UNSET = 0;

describe("tracer", () => {
  it("makes one client span per call named by method and path template, with the HTTP attributes", async () => {
    const { fetch, seen } = scriptedFetch([json(200, sampleCase)]);
    await client(fetch).cases.retrieve("case_secret_1");
    const [span, ...others] = exporter.getFinishedSpans();
    expect(others).toEqual([]);
    expect(span?.name).toBe("GET /v2/cases/{case_id}");
    expect(span?.kind).toBe(CLIENT);
    expect(span?.attributes).toEqual({
      "http.request.method": "GET",
      "url.template": "/v2/cases/{case_id}",
      "server.address": "api.medrecords.test",
      "http.response.status_code": 200,
      "medrecords.request_id": "req_test_200",
    });
    expect(span?.status.code).toBe(UNSET);
    // The W3C trace context of this very span, on the API request.
    const { traceId, spanId } = span!.spanContext();
    expect(seen[0]?.headers.get("traceparent")).toBe(`00-${traceId}-${spanId}-01`);
    expect(JSON.stringify([span?.name, span?.attributes, span?.events])).not.toContain(
      "case_secret_1",
    );
  });

  it("names a non-default port, and no port for the scheme's default", async () => {
    const { fetch } = scriptedFetch([json(200, sampleCase), json(200, sampleCase)]);
    await client(fetch, { baseUrl: "https://api.medrecords.test:8443" }).cases.retrieve("c");
    await client(fetch, { baseUrl: "https://api.medrecords.test:443" }).cases.retrieve("c");
    const [custom, standard] = exporter.getFinishedSpans();
    expect(custom?.attributes["server.port"]).toBe(8443);
    expect(standard?.attributes).not.toHaveProperty("server.port");
  });

  it("is a child of the active span, and passes its tracestate on", async () => {
    const { fetch, seen } = scriptedFetch([json(200, sampleCase)]);
    const parent = trace.wrapSpanContext({
      traceId: "0af7651916cd43dd8448eb211c80319c",
      spanId: "b7ad6b7169203331",
      traceFlags: TraceFlags.SAMPLED,
      traceState: { serialize: () => "vendor=opaque" } as never,
    });
    await context.with(trace.setSpan(ROOT_CONTEXT, parent), () =>
      client(fetch).cases.retrieve("case_secret_3"),
    );
    const [span] = exporter.getFinishedSpans();
    expect(span?.spanContext().traceId).toBe("0af7651916cd43dd8448eb211c80319c");
    expect(span?.parentSpanContext?.spanId).toBe("b7ad6b7169203331");
    expect(seen[0]?.headers.get("traceparent")).toBe(
      `00-0af7651916cd43dd8448eb211c80319c-${span?.spanContext().spanId}-01`,
    );
    expect(seen[0]?.headers.get("tracestate")).toBe("vendor=opaque");
    expect(JSON.stringify(span?.attributes)).not.toContain("case_secret_3");
  });

  it("records each retry as an event and the final answer on the one span", async () => {
    const { fetch } = scriptedFetch([
      apiError(503, "unavailable", "down", { "retry-after": "0" }),
      json(200, sampleCase),
    ]);
    await client(fetch).cases.retrieve("case_1");
    const [span, ...others] = exporter.getFinishedSpans();
    expect(others).toEqual([]);
    expect(span?.events.map((e) => [e.name, e.attributes])).toEqual([
      ["retry", { "http.request.resend_count": 1, "http.response.status_code": 503 }],
    ]);
    expect(span?.attributes["http.response.status_code"]).toBe(200);
  });

  it("records a failure: status error, an exception event without the message, the status", async () => {
    const { fetch } = scriptedFetch([
      apiError(404, "not_found", "Case case_secret_2 does not exist"),
    ]);
    const error = await client(fetch)
      .cases.retrieve("case_secret_2")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    const [span] = exporter.getFinishedSpans();
    expect(span?.status.code).toBe(ERROR);
    expect(span?.attributes["http.response.status_code"]).toBe(404);
    expect(span?.attributes["error.type"]).toBe("not_found");
    expect(span?.events.map((e) => e.name)).toEqual(["exception"]);
    expect(JSON.stringify(span?.events)).not.toContain("case_secret_2");
    expect(JSON.stringify(span?.status)).not.toContain("case_secret_2");
  });

  it("never sends trace headers to a presigned storage address, nor the key", async () => {
    const mock = createMockService();
    const mr = new MedRecords({
      apiKey: mock.apiKeys.create(),
      baseUrl: mock.baseUrl,
      tracer,
      fetch: mock.fetch,
    });
    const storage: Headers[] = [];
    const api: Headers[] = [];
    const recording = new MedRecords({
      apiKey: mock.apiKeys.create(),
      baseUrl: mock.baseUrl,
      tracer,
      fetch: async (input, init) => {
        const request = new Request(input, init);
        (request.url.startsWith(mock.storageUrl) ? storage : api).push(request.headers);
        return mock.fetch(request);
      },
    });
    const kase = await mr.cases.create({ title: "Doe v. Acme", client_name: "Jane Doe" });
    const doc = await recording.cases.uploadDocument(kase.id, {
      file: new TextEncoder().encode("bytes"),
      file_name: "a.txt",
      file_type: "text/plain",
    });
    expect(await (await recording.documents.content(doc.id)).text()).toBe("bytes");
    expect(storage).toHaveLength(2); // the PUT and the GET
    for (const headers of storage) {
      expect(headers.has("traceparent")).toBe(false);
      expect(headers.has("tracestate")).toBe(false);
      expect(headers.has("authorization")).toBe(false);
    }
    expect(api.every((headers) => headers.has("traceparent"))).toBe(true);
  });

  it("writes the headers of whatever propagator the application registered (B3 here), not its own", async () => {
    const b3: TextMapPropagator = {
      inject(ctx, carrier, setter) {
        const span = trace.getSpanContext(ctx);
        if (span === undefined) return;
        setter.set(carrier, "x-b3-traceid", span.traceId);
        setter.set(carrier, "x-b3-spanid", span.spanId);
      },
      extract: (ctx) => ctx,
      fields: () => ["x-b3-traceid", "x-b3-spanid"],
    };
    propagation.disable();
    propagation.setGlobalPropagator(b3);
    try {
      const { fetch, seen } = scriptedFetch([json(200, sampleCase)]);
      await client(fetch).cases.retrieve("c");
      const [span] = exporter.getFinishedSpans();
      expect(seen[0]?.headers.get("x-b3-traceid")).toBe(span?.spanContext().traceId);
      expect(seen[0]?.headers.get("x-b3-spanid")).toBe(span?.spanContext().spanId);
      expect(seen[0]?.headers.has("traceparent")).toBe(false);
    } finally {
      propagation.disable();
      propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    }
  });

  it("without a tracer, sends no trace headers", async () => {
    const { fetch, seen } = scriptedFetch([json(200, sampleCase)]);
    await new MedRecords({ apiKey: API_KEY, baseUrl: BASE_URL, fetch }).cases.retrieve("c");
    expect(seen[0]?.headers.has("traceparent")).toBe(false);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
