/**
 * Delivery bodies for the verify suites: a `retrieval_request.status_changed`
 * event as the service sends it, padded with realistic fields (the new
 * status, the facility, the status history) to an exact size in bytes.
 */

// The repo's one seeded PRNG (mulberry32): deterministic, so every run signs the same bytes.
import { seededRandom as prng } from "../../src/internal/seeded-random.ts";

export const KiB = 1024;

const STATUSES = ["submitted", "in_progress", "action_required", "completed"] as const;
const STAGES = [
  "request_sent",
  "provider_acknowledged",
  "records_located",
  "records_in_review",
  "records_delivered",
] as const;
const NOTES = [
  "Provider confirmed receipt of the HIPAA authorization.",
  "Records custodian requested a signed patient authorization dated within 90 days.",
  "Fee of $24.50 invoiced by the facility for 212 pages.",
  "Imaging on CD requested separately from the radiology department.",
  "Follow-up call: the custodian expects to release the records within 5 business days.",
];

/** The body of one event, `size` bytes of UTF-8 JSON exactly (size >= 600). */
export function statusChangedBody(size: number): string {
  const random = prng(size);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const hex = (n: number) =>
    Array.from({ length: n }, () => Math.floor(random() * 16).toString(16)).join("");
  const history: Record<string, unknown>[] = [];
  const event = {
    id: `rr-${hex(64)}`,
    type: "retrieval_request.status_changed",
    created_at: "2026-03-14T09:26:53.589Z",
    data: {
      retrieval_request_id: `rr_01J${hex(23).toUpperCase()}`,
      case_id: `case_01J${hex(23).toUpperCase()}`,
      public_updated_at: "2026-03-14T09:26:53.412Z",
      status: "in_progress",
      stage: "records_located",
      action_required_reason: null,
      facility: {
        id: `fac_${hex(16)}`,
        name: "St. Mary's Regional Medical Center",
        city: "Springfield",
        state: "IL",
        records_department_phone: "+1-217-555-0142",
      },
      status_history: history,
      custodian_reference: "",
    },
  };
  let day = 1;
  const entry = () => ({
    at: `2026-02-${String((day++ % 28) + 1).padStart(2, "0")}T1${Math.floor(random() * 10)}:0${Math.floor(random() * 10)}:00.000Z`,
    status: pick(STATUSES),
    stage: pick(STAGES),
    actor: random() < 0.5 ? "provider" : "retrieval_agent",
    note: pick(NOTES),
  });
  const length = () => Buffer.byteLength(JSON.stringify(event));
  while (length() < size) history.push(entry());
  while (length() > size && history.length > 0) history.pop();
  const missing = size - length();
  if (missing < 0) throw new Error(`statusChangedBody: ${size} bytes is too small`);
  // The last few bytes go to a free-text reference field, so the size is exact.
  event.data.custodian_reference = `MRD-${hex(missing)}`.slice(0, missing);
  const body = JSON.stringify(event);
  if (Buffer.byteLength(body) !== size) throw new Error("statusChangedBody: size mismatch");
  return body;
}
