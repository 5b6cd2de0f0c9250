import { createHmac } from "node:crypto";

/** A secret shaped like the service's: the whole string is the HMAC key. */
export const SECRET = "whsec_c2VjcmV0LWZvci1tZWRyZWNvcmRzLXRlc3Rz";
export const OTHER_SECRET = "whsec_b3RoZXItc2VjcmV0LWZvci10ZXN0cw";

/** 2026-01-01T00:00:00Z in Unix seconds. */
export const TS = 1_767_225_600;
export const NOW_MS = TS * 1000;

export const statusChanged = {
  id: `rr-${"ab".repeat(32)}`,
  type: "retrieval_request.status_changed",
  created_at: "2026-01-01T00:00:00.000Z",
  data: {
    retrieval_request_id: "rr_01J9Z",
    case_id: "case_01J9Y",
    public_updated_at: "2026-01-01T00:00:00.000Z",
  },
} as const;

export const documentsAvailable = {
  id: `rr-${"cd".repeat(32)}`,
  type: "retrieval_request.documents_available",
  created_at: "2026-01-01T00:00:00.000Z",
  data: {
    retrieval_request_id: "rr_01J9Z",
    case_id: null,
    public_updated_at: "2026-01-01T00:00:00.000Z",
    document_ids: ["doc_1", "inv_1"],
    invoice_ids: ["inv_1"],
  },
} as const;

export const webhookTest = {
  id: "evt_test_5b0a5a43-5f52-4a53-9c51-6f2a3f0f7e11",
  type: "webhook.test",
  created_at: "2026-01-01T00:00:00.000Z",
  data: { webhook_id: "wh_01J9X" },
} as const;

/** Hex HMAC-SHA256 by node:crypto, independent of the code under test. */
export function nodeHmac(secret: string, message: string | Uint8Array): string {
  return createHmac("sha256", secret).update(message).digest("hex");
}

/** Headers of a delivery signed with node:crypto, as the service sends them. */
export function nodeSignedHeaders(
  body: string,
  options: { secret?: string; ts?: number; event?: { id: string; type: string } } = {},
): Record<string, string> {
  const ts = options.ts ?? TS;
  const secret = options.secret ?? SECRET;
  const event = options.event ?? (JSON.parse(body) as { id: string; type: string });
  return {
    "x-webhook-event-id": event.id,
    "x-webhook-event-type": event.type,
    "x-service-timestamp": String(ts),
    "x-service-signature-v1": `v1=${nodeHmac(secret, `${ts}.${body}`)}`,
    "x-service-signature": `v0=${nodeHmac(secret, body)}`,
  };
}
