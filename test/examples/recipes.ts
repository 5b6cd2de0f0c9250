/**
 * Deliveries for the framework recipe tests (examples/express.ts, fastify.ts,
 * hono.ts, nextjs/, cloudflare-worker.ts), signed with the package's own
 * `signWebhook` at the current time, as the service would send them.
 */
import { expect } from "vitest";
import { signWebhook } from "../../src/webhooks/index.js";
import { SENTINEL_WEBHOOK_SECRET } from "../setup/sentinels.js";

/**
 * The receiver's secret. The sentinel is shaped like a real secret, so the
 * leak collector fails the file if a recipe ever logs it.
 */
export const SECRET = SENTINEL_WEBHOOK_SECRET;
export const OTHER_SECRET = "whsec_T3RoZXJTZWNyZXRGb3JSZWNpcGVzMDAwMDAw";

export const WEBHOOK_PATH = "/webhooks/medrecords";

export const EVENT_ID = `rr-${"5e".repeat(32)}`;
export const EVENT_TYPE = "retrieval_request.status_changed";

const statusChanged = {
  id: EVENT_ID,
  type: EVENT_TYPE,
  created_at: "2026-01-01T00:00:00.000Z",
  data: {
    retrieval_request_id: "rr_01J9Z",
    case_id: "case_01J9Y",
    public_updated_at: "2026-01-01T00:00:00.000Z",
  },
};

/** The event as the service sends it: compact JSON. */
export const CANONICAL_BODY = JSON.stringify(statusChanged);

/**
 * The same event, laid out differently: indentation, a CRLF, keys out of
 * order and a `\u00e9` escape. Signed as is, it verifies only when the
 * receiver hashes the bytes it got; parsing and re-serializing changes every
 * one of those.
 */
export const NON_CANONICAL_BODY = [
  "{",
  `  "type" : "${EVENT_TYPE}",`,
  `  "data": { "case_id": "case_01J9Y", "retrieval_request_id": "rr_01J9Z",\r\n    "public_updated_at": "2026-01-01T00:00:00.000Z", "note": "caf\\u00e9" },`,
  `  "id": "${EVENT_ID}",`,
  `  "created_at": "2026-01-01T00:00:00.000Z"`,
  "}",
  "",
].join("\n");

export interface Delivery {
  body: string;
  headers: Record<string, string>;
}

/**
 * A delivery of `body` signed with `secret` now, with the headers the
 * service sends (content type, event id and type, timestamp, signatures).
 */
export async function signed(body: string, secret: string = SECRET): Promise<Delivery> {
  const headers = await signWebhook({ payload: body, secret });
  return { body, headers: { "content-type": "application/json", ...headers } };
}

/** A delivery signed correctly whose body was changed afterwards (same length). */
export async function tampered(): Promise<Delivery> {
  const delivery = await signed(CANONICAL_BODY);
  const body = delivery.body.replace("rr_01J9Z", "rr_01J9A");
  expect(body).not.toBe(delivery.body);
  return { ...delivery, body };
}

/** Checks the premise of the raw-body tests: a parse and re-serialize changes the body. */
export function expectReserializingChanges(body: string): void {
  expect(JSON.stringify(JSON.parse(body))).not.toBe(body);
}

/** `RequestInit` of a delivery, for Fetch-style handlers. */
export function requestInit({ body, headers }: Delivery): RequestInit {
  return { method: "POST", headers, body };
}

/** What a recipe test's `start()` gives: a way to deliver, and the user's code as a mock. */
export interface RecipeUnderTest {
  deliver(delivery: Delivery): Promise<{ status: number } | { statusCode: number }>;
  events: { mock: { calls: unknown[][] } };
}

/**
 * The raw-body check every recipe must pass: a delivery laid out differently
 * from `JSON.stringify`'s output, signed as is, is accepted and reaches the
 * user's code. It fails if the recipe parses and re-serializes the body.
 */
export async function expectRawBytesVerified(recipe: RecipeUnderTest): Promise<void> {
  expectReserializingChanges(NON_CANONICAL_BODY);
  const answer = await recipe.deliver(await signed(NON_CANONICAL_BODY));
  expect("status" in answer ? answer.status : answer.statusCode).toBe(200);
  expect(recipe.events.mock.calls[0]![0]).toMatchObject({
    id: EVENT_ID,
    type: EVENT_TYPE,
    data: { note: "café" },
  });
}
