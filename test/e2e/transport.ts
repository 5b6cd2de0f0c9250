/**
 * One end-to-end suite, two transports. vitest runs test/e2e twice (see
 * vitest.config.ts): with MEDRECORDS_E2E_TRANSPORT=msw the reference servers
 * answer inside MSW; with =http each is a `startMockServer` on loopback and
 * every call crosses a real socket. Either way, every answer of the API is
 * checked against openapi.json by ajv, and a test fails if one does not match.
 */
import { type HttpHandler, http, passthrough } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { startMockServerInternal } from "../../src/mock/server/http-server.js";
import { createMockServiceInternal } from "../../src/mock/service/create-mock-service.js";
import type {
  InternalMockServiceOptions,
  MockServiceCore,
  MockServiceOptions,
} from "../../src/mock/service/service.js";
import { openApiDocument } from "../../src/openapi/document.js";
import { createOpenApiValidator } from "../helpers/openapi-validator.js";

export type Transport = "msw" | "http";

export const transport: Transport =
  process.env.MEDRECORDS_E2E_TRANSPORT === "http" ? "http" : "msw";

export interface ReferenceServers<N extends string> {
  readonly services: Record<N, MockServiceCore>;
  /**
   * For a test that makes the mock serve a malformed body on purpose: the
   * check then requires that openapi.json rejects it, instead of failing the test.
   */
  expectOpenApiMismatch(): void;
  /** The suite's MSW server: the mock's handlers (msw) or a passthrough to them (http), plus `extraHandlers`. */
  readonly msw: ReturnType<typeof setupServer>;
}

const validator = createOpenApiValidator(openApiDocument());

/**
 * Starts the named reference servers on this run's transport and registers
 * the hooks that start, check and stop them. Over HTTP, `baseUrl` and
 * `storageUrl` are ignored: the servers listen on free loopback ports.
 */
export async function useReferenceServers<N extends string>(
  options: Record<N, MockServiceOptions>,
  { extraHandlers = [] }: { extraHandlers?: HttpHandler[] } = {},
): Promise<ReferenceServers<N>> {
  const checks: Promise<string[]>[] = [];
  let checked = 0;
  let mismatchExpected = false;
  const internal: InternalMockServiceOptions = {
    onApiResponse(request, response) {
      checked += 1;
      const copy = response.clone();
      checks.push(
        (async () => {
          const text = await copy.text();
          return validator.validateResponse({
            method: request.method,
            url: request.url,
            status: copy.status,
            body: text === "" ? undefined : JSON.parse(text),
          });
        })(),
      );
    },
  };

  const services = {} as Record<N, MockServiceCore>;
  const handlers: HttpHandler[] = [];
  const closers: (() => Promise<void>)[] = [];
  for (const [name, serviceOptions] of Object.entries(options) as [N, MockServiceOptions][]) {
    if (transport === "msw") {
      const service = createMockServiceInternal(serviceOptions, internal);
      services[name] = service;
      handlers.push(...service.handlers);
    } else {
      const { baseUrl: _b, storageUrl: _s, ...rest } = serviceOptions;
      const server = await startMockServerInternal(rest, internal);
      services[name] = server;
      closers.push(() => server.close());
      // The client's calls are intercepted by MSW in this process; let them out to the socket.
      handlers.push(
        http.all(`${server.baseUrl}/*`, () => passthrough()),
        http.all(`${server.storageUrl}/*`, () => passthrough()),
      );
    }
  }
  const msw = setupServer(
    ...handlers,
    ...extraHandlers,
    // Deliveries to a receiver this test started on loopback go out for real.
    http.post(/^http:\/\/127\.0\.0\.1:\d+\//, () => passthrough()),
  );

  beforeAll(() => msw.listen({ onUnhandledFrame: "error" }));
  afterEach(async () => {
    const errors = (await Promise.all(checks.splice(0))).flat();
    if (mismatchExpected) {
      mismatchExpected = false;
      expect(errors, "the malformed response this test served").not.toEqual([]);
    } else {
      expect(errors, "responses that do not match openapi.json").toEqual([]);
    }
  });
  afterAll(async () => {
    // A suite whose answers were never seen here would pass the check vacuously.
    expect(checked, "API responses checked against openapi.json").toBeGreaterThan(0);
    msw.close();
    await Promise.all(closers.map((close) => close()));
  });
  return {
    services,
    msw,
    expectOpenApiMismatch() {
      mismatchExpected = true;
    },
  };
}

/**
 * PUTs `body` to a presigned address with plain fetch, as an application
 * without the SDK would. Content-Length is given explicitly: fetch adds it on
 * the wire, but msw 2 hands the handler fetch's own arguments, without it.
 */
export function presignedPut(url: string, body: string, contentType: string): Promise<Response> {
  const length = new TextEncoder().encode(body).byteLength;
  return fetch(url, {
    method: "PUT",
    body,
    headers: { "content-type": contentType, "content-length": String(length) },
  });
}
