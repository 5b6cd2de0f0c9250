/**
 * examples/nextjs/app/api/webhooks/medrecords/route.ts, called as Next.js
 * calls it: `POST(request)` with a web Request. Its exports are also
 * type-checked against what `next build` accepts for a route module.
 */
// "next/server" in a Next.js app (bundler resolution); `next` has no exports
// map, so NodeNext resolution, this repository's, needs the file name.
import type { NextRequest } from "next/server.js";
import { afterEach, beforeEach, describe, expect, expectTypeOf, it, vi } from "vitest";
import { onStatusChanged } from "../../examples/nextjs/lib/medrecords-events.js";
import {
  CANONICAL_BODY,
  type Delivery,
  EVENT_ID,
  EVENT_TYPE,
  expectRawBytesVerified,
  OTHER_SECRET,
  requestInit,
  SECRET,
  signed,
  tampered,
} from "./recipes.js";

// The app's own code, spied on: it keeps its implementation, calls are recorded.
vi.mock("../../examples/nextjs/lib/medrecords-events.js", { spy: true });

type Route = typeof import("../../examples/nextjs/app/api/webhooks/medrecords/route.js");

const DELIVERY_URL = "https://app.example.test/api/webhooks/medrecords";

/**
 * The shape `next build` checks a route module against: Next.js 16 generates
 * it in .next/types (`RouteHandlerConfig`, next/dist/server/lib/router-utils/typegen.js),
 * plus the `runtime` segment config (`AppSegmentConfig`).
 */
type RouteHandlerConfig = {
  POST?: (
    request: NextRequest,
    context: { params: Promise<Record<string, never>> },
  ) => Promise<Response> | Response; // Next.js also accepts void, which a webhook never answers
  runtime?: "nodejs" | "edge";
};

const ROUTE = "../../examples/nextjs/app/api/webhooks/medrecords/route.js";
let instances = 0;

/**
 * A fresh instance of the route module, as after a deploy (its handler, and
 * so its memory dedupe store, is made on the first delivery), and the spied
 * app code. The query makes a new module id for the route alone: the package
 * and the app code stay the instances this file imported (vi.resetModules
 * would also replace the error classes the leak collector watches).
 */
async function load() {
  instances += 1;
  const route = (await import(/* @vite-ignore */ `${ROUTE}?instance=${instances}`)) as Route;
  vi.mocked(onStatusChanged).mockClear();
  const deliver = (delivery: Delivery) =>
    route.POST(new Request(DELIVERY_URL, requestInit(delivery)));
  return { route, events: vi.mocked(onStatusChanged), deliver };
}

beforeEach(() => {
  vi.stubEnv("MEDRECORDS_WEBHOOK_SECRET", SECRET);
});
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe("examples/nextjs route handler", () => {
  it("exports what Next.js accepts for an App Router route module", async () => {
    const { route } = await load();
    expectTypeOf(route).toExtend<RouteHandlerConfig>();
    expect(Object.keys(route).sort()).toEqual(["POST", "runtime"]);
    expect(route.runtime).toBe("nodejs");
  });

  it("accepts a signed delivery and hands the event to onStatusChanged", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    const { events, deliver } = await load();
    const response = await deliver(await signed(CANONICAL_BODY));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true });
    expect(events).toHaveBeenCalledTimes(1);
    expect(events.mock.calls[0]![0]).toMatchObject({ id: EVENT_ID, type: EVENT_TYPE });
    expect(console.log).toHaveBeenCalledWith(`${EVENT_ID}: retrieval request rr_01J9Z changed`);
  });

  it("verifies the bytes as sent: a body that re-serializing would change still verifies", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    await expectRawBytesVerified(await load());
  });

  it("refuses a tampered body and a wrong secret with 400, without calling onStatusChanged", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const { events, deliver } = await load();
    for (const delivery of [await tampered(), await signed(CANONICAL_BODY, OTHER_SECRET)]) {
      const response = await deliver(delivery);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: "invalid_webhook" });
    }
    expect(events).not.toHaveBeenCalled();
    for (const call of error.mock.calls) {
      expect(call).toEqual([
        expect.stringContaining("delivery refused at verify: signature_mismatch"),
      ]);
    }
    expect(error).toHaveBeenCalledTimes(2);
  });

  it("acknowledges a repeated delivery without running onStatusChanged again", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    const { events, deliver } = await load();
    expect((await deliver(await signed(CANONICAL_BODY))).status).toBe(200);
    const again = await deliver(await signed(CANONICAL_BODY));
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    expect(events).toHaveBeenCalledTimes(1);
  });

  it("answers 500 when onStatusChanged throws, so that the service retries", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const { events, deliver } = await load();
    events.mockRejectedValueOnce(new Error("database down"));
    expect((await deliver(await signed(CANONICAL_BODY))).status).toBe(500);
  });

  it("loads without the secret (next build) and fails each delivery until it is set", async () => {
    vi.stubEnv("MEDRECORDS_WEBHOOK_SECRET", undefined);
    const { deliver } = await load();
    await expect(deliver(await signed(CANONICAL_BODY))).rejects.toThrow(
      /MEDRECORDS_WEBHOOK_SECRET/,
    );
  });
});
