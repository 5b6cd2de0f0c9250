import { http } from "msw";
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

// msw is imported here only: the CLI bundle, which never builds MSW handlers, runs without it
// installed. Importing medrecords/mock (this entry) still loads msw.
export function createMockServiceInternal(
  options: MockServiceOptions,
  internal: InternalMockServiceOptions,
): MockService {
  const core = createMockServiceCore(options, internal);
  const handlers = [
    http.all(`${core.baseUrl}/*`, ({ request }) => core.handle(request)),
    http.all(`${core.storageUrl}/*`, ({ request }) => core.handle(request)),
  ];
  return Object.assign(core, { handlers });
}
