/**
 * `createMockService({ msw })`: the handlers are built with the msw module
 * given, as a browser (no synchronous module loader) must do for
 * `setupWorker`; without it, msw is loaded on the first read of `handlers`.
 */
import * as msw from "msw";
import { setupServer } from "msw/node";
import { describe, expect, it } from "vitest";
import { MedRecords } from "../../src/index.js";
import { createMockService } from "../../src/mock/index.js";

describe("createMockService({ msw })", () => {
  it("builds the handlers with the msw module given, one for the API and one for storage", () => {
    const routes: string[] = [];
    const given = {
      http: {
        ...msw.http,
        all: ((path: string, resolver: never) => {
          routes.push(path);
          return msw.http.all(path, resolver);
        }) as typeof msw.http.all,
      },
    };
    const mock = createMockService({ msw: given });
    expect(mock.handlers).toHaveLength(2);
    expect(routes).toEqual([`${mock.baseUrl}/*`, `${mock.storageUrl}/*`]);
  });

  it("serves the API through handlers built that way", async () => {
    const mock = createMockService({ msw });
    const server = setupServer(...mock.handlers);
    server.listen();
    try {
      const mr = new MedRecords({ apiKey: mock.apiKeys.create(), baseUrl: mock.baseUrl });
      const created = await mr.cases.create({ title: "Doe v. Acme", client_name: "Jane Doe" });
      expect((await mr.cases.retrieve(created.id)).id).toBe(created.id);
    } finally {
      server.close();
    }
  });
});
