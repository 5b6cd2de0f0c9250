import { loadMsw } from "./load-msw.js";
import {
  createMockServiceCore,
  type InternalMockServiceOptions,
  type MockService,
  type MockServiceOptions,
} from "./service.js";

/**
 * The reference server for MSW: `setupServer(...mock.handlers)` (or
 * `setupWorker` in a browser) serves the API origin and the presigned storage
 * origin from one in-memory state.
 *
 * @example
 * const mock = createMockService({ allowPrivateWebhookUrls: true });
 * const apiKey = mock.apiKeys.create({ scopes: ["cases:read", "cases:write"] });
 * setupServer(...mock.handlers).listen();
 */
export function createMockService(options: MockServiceOptions = {}): MockService {
  return createMockServiceInternal(options, {});
}

/**
 * The service, with `handlers` built on first read: msw is loaded then
 * (load-msw.ts), so a project that never reads them needs no msw.
 */
export function createMockServiceInternal(
  options: MockServiceOptions,
  internal: InternalMockServiceOptions,
): MockService {
  const core = createMockServiceCore(options, internal);
  let handlers: MockService["handlers"] | undefined;
  return Object.defineProperty(core, "handlers", {
    enumerable: true,
    get() {
      if (handlers === undefined) {
        const { http } = options.msw ?? loadMsw();
        handlers = [
          http.all(`${core.baseUrl}/*`, ({ request }) => core.handle(request)),
          http.all(`${core.storageUrl}/*`, ({ request }) => core.handle(request)),
        ];
      }
      return handlers;
    },
  }) as MockService;
}
