/**
 * The private-address rule where it binds: each delivery attempt resolves the
 * webhook's host name once, checks every address it got, and connects only to
 * a checked address (DNS rebinding between a check and the connection cannot
 * slip a private address in); a lookup that fails, or finds nothing, sends
 * nothing. A loopback receiver stands in for a public host: the project's
 * internal `publicAddressesForTesting` takes 127.0.0.1 for public at delivery
 * (never at creation), so no test reaches the internet.
 */

import { HttpResponse, http } from "msw";
import { setupServer } from "msw/node";
import { afterEach, describe, expect, it } from "vitest";
import { createMockService } from "../../src/mock/index.js";
import { createMockServiceForTesting, emitEventForTesting } from "../helpers/mock-internals.js";
import { type Receiver, startReceiver } from "../mock/webhook-helpers.js";

const EVENT = "retrieval_request.status_changed";
const PUBLIC = "93.184.215.14";
const START = Date.parse("2026-03-01T10:00:00.000Z");

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

/** A resolver answering from a script, one answer per call (the last one repeats), counting calls. */
function scriptedLookup(...answers: Array<readonly string[] | Error>) {
  const calls: string[] = [];
  const lookupHost = async (host: string) => {
    calls.push(host);
    const answer = answers[Math.min(calls.length - 1, answers.length - 1)]!;
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { calls, lookupHost };
}

async function setup(
  lookupHost: (host: string) => Promise<readonly string[]>,
  deliveryTimeoutMs = 2_000,
) {
  receiver = await startReceiver(200);
  const port = new URL(receiver.url).port;
  const mock = createMockServiceForTesting({
    now: START,
    lookupHost,
    publicAddressesForTesting: ["127.0.0.1"],
    deliveryTimeoutMs,
  });
  const key = mock.apiKeys.create();
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await mock.fetch(`${mock.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const url = `http://hooks.firm.example:${port}/medrecords`;
  const created = await api("POST", "/v2/webhooks", { name: "h", url, events: [EVENT] });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  const emit = async () => {
    emitEventForTesting(mock, EVENT, {
      retrieval_request_id: "rr_1",
      case_id: null,
      public_updated_at: new Date(START).toISOString(),
    });
    await mock.deliveries.flush();
  };
  const deliveries = async () =>
    (await api("GET", `/v2/webhooks/${id}/deliveries`)).body.results as Array<{
      success: boolean;
      status_code: number | null;
      error: string | null;
    }>;
  return { mock, emit, deliveries, received: receiver.received, port };
}

describe("a delivery connects only to the address it checked", () => {
  it("resolves once per attempt and connects to that answer, not a later one (rebinding)", async () => {
    // Creation: public. The attempt's one lookup: the receiver. Any later lookup: private.
    const { calls, lookupHost } = scriptedLookup([PUBLIC], ["127.0.0.1"], ["10.0.0.1"]);
    const { emit, deliveries, received, port } = await setup(lookupHost);
    await emit();
    expect(calls).toEqual(["hooks.firm.example", "hooks.firm.example"]);
    expect(received).toHaveLength(1);
    // The name stays the Host: only the address was chosen by the check.
    expect(received[0]?.headers.host).toBe(`hooks.firm.example:${port}`);
    expect(await deliveries()).toEqual([
      expect.objectContaining({ success: true, status_code: 200, error: null }),
    ]);
  });

  it("checks again at the next attempt: a name turned private is not connected to", async () => {
    const { calls, lookupHost } = scriptedLookup([PUBLIC], ["127.0.0.1"], ["10.0.0.1"]);
    const { mock, emit, deliveries, received } = await setup(lookupHost);
    receiver!.answer(500);
    await emit();
    expect(received).toHaveLength(1);
    mock.clock.advance(60_000);
    await mock.deliveries.flush();
    expect(calls).toHaveLength(3);
    expect(received).toHaveLength(1);
    expect((await deliveries())[0]).toEqual(
      expect.objectContaining({
        success: false,
        status_code: null,
        error: "Not sent: the host is a name that resolves to a private address",
      }),
    );
  });

  it.each([
    [
      "a failed lookup",
      new Error("EAI_AGAIN"),
      /^Not sent: the host is a name that could not be resolved/,
    ],
    ["no address", [], /^Not sent: the host is a name that does not resolve$/],
    ["a public then a private address", ["127.0.0.1", "10.0.0.1"], /resolves to a private address/],
    [
      "a private then a public address",
      ["fd00::1", "127.0.0.1"],
      /resolves to a unique-local address/,
    ],
    ["a mapped loopback among public ones", ["127.0.0.1", "::ffff:127.0.0.1"], /IPv4-mapped/],
  ] as const)("sends nothing for %s (fail closed)", async (_, answer, error) => {
    const { lookupHost } = scriptedLookup([PUBLIC], answer instanceof Error ? answer : [...answer]);
    const { emit, deliveries, received } = await setup(lookupHost);
    await emit();
    expect(received).toHaveLength(0);
    expect(await deliveries()).toEqual([
      expect.objectContaining({
        success: false,
        status_code: null,
        error: expect.stringMatching(error),
      }),
    ]);
  });

  it("reports a receiver that does not answer, or refuses the connection, as fetch would", async () => {
    const { lookupHost } = scriptedLookup([PUBLIC], ["127.0.0.1"]);
    const { emit, deliveries } = await setup(lookupHost, 300);
    receiver!.answer("hang");
    await emit();
    await receiver!.close();
    receiver = undefined;
    await emit();
    const [refused, hung] = await deliveries();
    expect(hung).toEqual(
      expect.objectContaining({
        success: false,
        status_code: null,
        error: "No response within 300 ms",
      }),
    );
    expect(refused).toEqual(
      expect.objectContaining({
        success: false,
        status_code: null,
        error: "Connection failed (ECONNREFUSED)",
      }),
    );
  });

  it("looks up names reserved for testing too when it really connects", async () => {
    const { calls, lookupHost } = scriptedLookup([PUBLIC], ["127.0.0.1"]);
    receiver = await startReceiver(200);
    const mock = createMockServiceForTesting({
      now: START,
      lookupHost,
      publicAddressesForTesting: ["127.0.0.1"],
    });
    const key = mock.apiKeys.create();
    const response = await mock.fetch(`${mock.baseUrl}/v2/webhooks`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        name: "h",
        url: `http://receiver.test:${new URL(receiver.url).port}/h`,
        events: [EVENT],
      }),
    });
    expect(response.status).toBe(201);
    emitEventForTesting(mock, EVENT, {
      retrieval_request_id: "rr_1",
      case_id: null,
      public_updated_at: new Date(START).toISOString(),
    });
    await mock.deliveries.flush();
    expect(calls).toEqual(["receiver.test", "receiver.test"]);
    expect(receiver.received).toHaveLength(1);
  });

  it("under MSW, a receiver gets its delivery with no lookup at delivery", async () => {
    // Public at creation; any lookup after that fails, and would leave the delivery unsent.
    const { calls, lookupHost } = scriptedLookup([PUBLIC], new Error("no DNS in this test"));
    const bodies: string[] = [];
    const server = setupServer(
      http.post("https://receiver.firm.example/hook", async ({ request }) => {
        bodies.push(await request.text());
        return new HttpResponse(null, { status: 204 });
      }),
    );
    server.listen({ onUnhandledFrame: "error" });
    try {
      const mock = createMockService({ now: START, lookupHost });
      const created = await mock.fetch(`${mock.baseUrl}/v2/webhooks`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${mock.apiKeys.create()}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({
          name: "h",
          url: "https://receiver.firm.example/hook",
          events: [EVENT],
        }),
      });
      expect(created.status).toBe(201);
      emitEventForTesting(mock, EVENT, {
        retrieval_request_id: "rr_1",
        case_id: null,
        public_updated_at: new Date(START).toISOString(),
      });
      await mock.deliveries.flush();
      expect(bodies).toHaveLength(1);
      expect(calls).toHaveLength(1);
    } finally {
      server.close();
    }
  });
});
