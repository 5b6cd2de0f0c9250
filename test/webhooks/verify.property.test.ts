import fc from "fast-check";
import { describe, it } from "vitest";
import { SUBSCRIBABLE_EVENT_TYPES } from "../../src/schemas/events.js";
import { verifyWebhook, WebhookVerificationError } from "../../src/webhooks/index.js";
import { fuzzParams } from "../fuzz/runs.js";
import { nodeHmac } from "./fixtures.js";

// A few fixed secrets so that the imported-key cache is reused across runs;
// their bytes cover ASCII, whitespace inside the key and multi-byte UTF-8.
const SECRETS = [
  "whsec_c2VjcmV0LWZvci1tZWRyZWNvcmRzLXRlc3Rz",
  "whsec_x",
  "whsec_with inner space",
  "whsec_ünïcödé-🔑",
  `whsec_${"k".repeat(200)}`,
];

const HEX_DIGITS = "0123456789abcdef";

type Mutation =
  | { kind: "flip-byte"; index: number; mask: number }
  | { kind: "drop-byte"; index: number }
  | { kind: "duplicate-byte"; index: number }
  | { kind: "shift-timestamp"; delta: number }
  | { kind: "pad-timestamp" }
  | { kind: "change-hex-digit"; index: number; step: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    kind: fc.constant("flip-byte" as const),
    index: fc.nat(),
    mask: fc.integer({ min: 1, max: 255 }),
  }),
  fc.record({ kind: fc.constant("drop-byte" as const), index: fc.nat() }),
  fc.record({ kind: fc.constant("duplicate-byte" as const), index: fc.nat() }),
  fc.record({
    kind: fc.constant("shift-timestamp" as const),
    delta: fc.integer({ min: -300, max: 300 }).filter((d) => d !== 0),
  }),
  fc.record({ kind: fc.constant("pad-timestamp" as const) }),
  fc.record({
    kind: fc.constant("change-hex-digit" as const),
    index: fc.integer({ min: 0, max: 63 }),
    step: fc.integer({ min: 1, max: 15 }),
  }),
);

interface Delivery {
  body: Uint8Array;
  timestamp: string;
  signature: string;
}

function mutate(d: Delivery, m: Mutation): Delivery {
  const { body } = d;
  switch (m.kind) {
    case "flip-byte": {
      const copy = body.slice();
      const i = m.index % copy.length;
      copy[i] = (copy[i] ?? 0) ^ m.mask;
      return { ...d, body: copy };
    }
    case "drop-byte": {
      const i = m.index % body.length;
      return { ...d, body: new Uint8Array([...body.subarray(0, i), ...body.subarray(i + 1)]) };
    }
    case "duplicate-byte": {
      const i = m.index % body.length;
      return { ...d, body: new Uint8Array([...body.subarray(0, i + 1), ...body.subarray(i)]) };
    }
    case "shift-timestamp":
      return { ...d, timestamp: String(Number(d.timestamp) + m.delta) };
    case "pad-timestamp":
      // The same instant written differently is a different signed text.
      return { ...d, timestamp: `0${d.timestamp}` };
    case "change-hex-digit": {
      const digit = d.signature[m.index] ?? "0";
      const next = HEX_DIGITS[(HEX_DIGITS.indexOf(digit) + m.step) % 16] ?? "0";
      const signature = d.signature.slice(0, m.index) + next + d.signature.slice(m.index + 1);
      return { ...d, signature };
    }
  }
}

const event = fc.record({
  id: fc.string({ minLength: 1, maxLength: 70 }),
  type: fc.constantFrom(...SUBSCRIBABLE_EVENT_TYPES),
  created_at: fc.constant("2026-01-01T00:00:00.000Z"),
  data: fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), {
    maxKeys: 4,
  }),
});

describe("verifyWebhook property", () => {
  it("accepts every signed delivery and refuses every single mutation of it", async () => {
    await fc.assert(
      fc.asyncProperty(
        event,
        fc.nat({ max: SECRETS.length - 1 }),
        fc.integer({ min: 1_000_000_000, max: 4_000_000_000 }),
        mutation,
        async (e, secretIndex, ts, m) => {
          const secret = SECRETS[secretIndex] ?? "";
          const text = JSON.stringify(e);
          const body = new TextEncoder().encode(text);
          const signed: Delivery = {
            body,
            timestamp: String(ts),
            signature: nodeHmac(secret, `${ts}.${text}`),
          };
          const verify = (d: Delivery) =>
            verifyWebhook({
              payload: d.body,
              headers: {
                "x-service-timestamp": d.timestamp,
                "x-service-signature-v1": `v1=${d.signature}`,
              },
              secret,
              now: ts * 1000,
            });

          // Plain checks rather than expect(): the full pass's 20,000 verifications stay within a few seconds.
          const accepted = await verify(signed);
          if (accepted.id !== e.id) throw new Error("the signed delivery returned another event");

          const mutated = mutate(signed, m);
          const error = await verify(mutated).then(
            () => undefined,
            (err: unknown) => err,
          );
          if (
            !(error instanceof WebhookVerificationError) ||
            error.reason !== "signature_mismatch"
          ) {
            throw new Error(
              `mutation ${m.kind} was not refused as signature_mismatch: ${String(error)}`,
            );
          }
        },
      ),
      fuzzParams(10_000),
    );
  });
});
