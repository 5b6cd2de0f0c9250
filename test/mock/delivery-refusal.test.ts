/**
 * What the mock keeps of a receiver's refusal (DESIGN 12.1, the inspector's
 * "cause in words"): the `error` code of a JSON answer, read from its first
 * KiB, for `flush()` and `advance()` only; never the rest of the answer, and
 * never in the delivery records of the API. Over the mock's own pinned
 * transport (a public name) and over `fetch` (a private address allowed).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createMockServiceForTesting, emitEventForTesting } from "../helpers/mock-internals.js";
import { START } from "./helpers.js";
import { EVENT, statusData } from "./webhook-helpers.js";

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => {
    server?.closeAllConnections();
    if (server === undefined) resolve();
    else server.close(() => resolve());
  });
  server = undefined;
});

/** A receiver that answers every delivery `status` with `body`. */
async function refusing(status: number, body: string): Promise<number> {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(status, { "content-type": "application/json" }).end(body));
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

async function refusalOf(
  transport: "pinned" | "fetch",
  status: number,
  body: string,
): Promise<{ receiver_error: string | null; hint: string; recorded: string }> {
  const port = await refusing(status, body);
  let lookups = 0;
  const mock =
    transport === "pinned"
      ? createMockServiceForTesting({
          now: START,
          // Public at creation; at delivery, the receiver on loopback (taken for public there).
          lookupHost: async () => (lookups++ === 0 ? ["93.184.215.14"] : ["127.0.0.1"]),
          publicAddressesForTesting: ["127.0.0.1"],
        })
      : createMockServiceForTesting({ now: START, allowPrivateWebhookUrls: true });
  const key = mock.apiKeys.create();
  const host = transport === "pinned" ? "hooks.firm.example" : "127.0.0.1";
  const created = await mock.fetch(`${mock.baseUrl}/v2/webhooks`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "h", url: `http://${host}:${port}/hook`, events: [EVENT] }),
  });
  const { id } = (await created.json()) as { id: string };
  emitEventForTesting(mock, EVENT, statusData(1));
  const { failed } = await mock.deliveries.flush();
  const records = await mock.fetch(`${mock.baseUrl}/v2/webhooks/${id}/deliveries`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const text = await records.text();
  expect(failed).toHaveLength(1);
  return { ...failed[0]!, recorded: text };
}

describe.each(["pinned", "fetch"] as const)("a refusal over %s", (transport) => {
  it("keeps the receiver's JSON error code for flush(), and the record only the status", async () => {
    const refusal = await refusalOf(transport, 400, JSON.stringify({ error: "invalid_webhook" }));
    expect(refusal.receiver_error).toBe("invalid_webhook");
    expect(refusal.hint).toContain("this machine's clock");
    expect(refusal.recorded).toContain('"error":"The endpoint answered HTTP 400"');
    expect(refusal.recorded).not.toContain("invalid_webhook");
  });

  it("reads `error.code` too, and nothing that is not one short code", async () => {
    const nested = await refusalOf(
      transport,
      503,
      JSON.stringify({ error: { code: "store_unavailable" } }),
    );
    expect(nested.receiver_error).toBe("store_unavailable");
  });

  it("keeps nothing of prose, or of a code past the first KiB", async () => {
    const prose = await refusalOf(
      transport,
      400,
      JSON.stringify({ error: "Jane Doe's record is not here" }),
    );
    expect(prose.receiver_error).toBeNull();
    const late = await refusalOf(
      transport,
      400,
      JSON.stringify({ padding: "x".repeat(2048), error: "invalid_webhook" }),
    );
    expect(late.receiver_error).toBeNull();
  });
});
