/**
 * examples/cloudflare-worker.ts, called as the Workers runtime calls it:
 * `worker.fetch(request, env, ctx)`.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import worker, { type Env, type ExecutionContext } from "../../examples/cloudflare-worker.js";
import {
  CANONICAL_BODY,
  type Delivery,
  EVENT_ID,
  EVENT_TYPE,
  expectReserializingChanges,
  NON_CANONICAL_BODY,
  OTHER_SECRET,
  requestInit,
  SECRET,
  signed,
  tampered,
  WEBHOOK_PATH,
} from "./recipes.js";

const ORIGIN = "https://receiver.example.workers.dev";

afterEach(() => {
  vi.restoreAllMocks();
});

/** A fresh event id per test: the Worker's dedupe store lives as long as the module. */
let sequence = 0;
function uniqueBody(body: string): string {
  sequence += 1;
  return body.replace(EVENT_ID, `${EVENT_ID.slice(0, -4)}${String(sequence).padStart(4, "0")}`);
}

function start(env: Env = { MEDRECORDS_WEBHOOK_SECRET: SECRET }) {
  const log = vi.spyOn(console, "log").mockImplementation(() => {});
  const error = vi.spyOn(console, "error").mockImplementation(() => {});
  const pending: Promise<unknown>[] = [];
  const ctx = { waitUntil: vi.fn((promise: Promise<unknown>) => void pending.push(promise)) };
  const deliver = (delivery: Delivery, path = WEBHOOK_PATH) =>
    worker.fetch(new Request(`${ORIGIN}${path}`, requestInit(delivery)), env, ctx);
  /** The lines the Worker's own code logged. */
  const lines = () => log.mock.calls.map(([line]) => String(line));
  return { ctx: ctx satisfies ExecutionContext, pending, deliver, lines, error };
}

describe("examples/cloudflare-worker.ts", () => {
  it("accepts a signed delivery and runs the status change code before answering", async () => {
    const { deliver, lines } = start();
    const body = uniqueBody(CANONICAL_BODY);
    const id = JSON.parse(body).id;
    const response = await deliver(await signed(body));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true });
    expect(lines()).toEqual([`${EVENT_TYPE} ${id}: retrieval request rr_01J9Z`]);
  });

  it("verifies the bytes as sent: a body that re-serializing would change still verifies", async () => {
    expectReserializingChanges(NON_CANONICAL_BODY);
    const { deliver, lines } = start();
    const body = uniqueBody(NON_CANONICAL_BODY);
    const response = await deliver(await signed(body));
    expect(response.status).toBe(200);
    expect(lines()).toEqual([`${EVENT_TYPE} ${JSON.parse(body).id}: retrieval request rr_01J9Z`]);
  });

  it("refuses a tampered body and a wrong secret with 400, without running the Worker's code", async () => {
    const { deliver, lines, error } = start();
    for (const delivery of [await tampered(), await signed(CANONICAL_BODY, OTHER_SECRET)]) {
      const response = await deliver(delivery);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: "invalid_webhook" });
    }
    expect(lines()).toEqual([]);
    expect(error.mock.calls).toEqual([
      [expect.stringContaining("delivery refused at verify: signature_mismatch")],
      [expect.stringContaining("delivery refused at verify: signature_mismatch")],
    ]);
  });

  it("acknowledges a repeated delivery without running the code again", async () => {
    const { deliver, lines } = start();
    const body = uniqueBody(CANONICAL_BODY);
    expect((await deliver(await signed(body))).status).toBe(200);
    const again = await deliver(await signed(body));
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    expect(lines()).toHaveLength(1);
  });

  it("answers documents_available at once and syncs under ctx.waitUntil", async () => {
    const { deliver, lines, pending, ctx } = start();
    const event = {
      id: `rr-${"d0c5".repeat(16)}`,
      type: "retrieval_request.documents_available",
      created_at: "2026-01-01T00:00:00.000Z",
      data: {
        retrieval_request_id: "rr_01J9Z",
        case_id: null,
        public_updated_at: "2026-01-01T00:00:00.000Z",
        document_ids: ["doc_1", "doc_2"],
      },
    };
    const response = await deliver(await signed(JSON.stringify(event)));
    expect(response.status).toBe(200);
    expect(ctx.waitUntil).toHaveBeenCalledTimes(1);
    await Promise.all(pending);
    expect(lines()).toEqual([`${event.type} ${event.id}: 2 document(s) to fetch`]);
  });

  it("answers 404 off the webhook path and 500 without the secret binding", async () => {
    const { deliver, lines, error } = start({ MEDRECORDS_WEBHOOK_SECRET: "" });
    const delivery = await signed(uniqueBody(CANONICAL_BODY));
    expect((await deliver(delivery, "/")).status).toBe(404);
    const response = await deliver(delivery);
    expect(response.status).toBe(500);
    expect(error.mock.calls[0]?.[0]).toContain("MEDRECORDS_WEBHOOK_SECRET");
    expect(lines()).toEqual([]);
  });
});
