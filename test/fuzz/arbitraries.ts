/**
 * Inputs shared by the fuzz suites: values at the edges of what the schemas
 * check, any JavaScript value, and valid request bodies taken apart.
 */
import fc from "fast-check";
import { SUBSCRIBABLE_EVENT_TYPES } from "../../src/schemas/events.js";
import { type NestedJsonShape, nestedJson, VERY_DEEP } from "../helpers/nested-json.js";

const case_ = { title: "Doe v. Acme", client_name: "Jane Doe" };
const facility = { name: "Harbor Clinic", address: "1 Pier St, Bay City, CA 94000" };
const requestor = { name: "Ann Counsel", email: "ann@firm.example" };

/** Valid request bodies per operation (`METHOD /path/pattern`, as the reference server's routes). */
export const VALID_BODIES: Record<string, Record<string, unknown>[]> = {
  "POST /v2/cases": [
    case_,
    {
      ...case_,
      description: "d",
      client_email: "jane@example.com",
      date_of_injury: "2020-02-29",
      deposition_date: "2030-01-01",
      case_category: "personal_injury",
      status: "pending",
      external_id: "ext-1",
      client_phone: "+1 555",
      client_address: "1 Main St",
      client_date_of_birth: "1980-01-01",
    },
  ],
  "PATCH /v2/cases/:case_id": [
    {},
    { title: "New", description: null, status: "archived", external_id: null },
  ],
  "POST /v2/cases/:case_id/sign-upload": [{ file_name: "a.pdf", file_type: "application/pdf" }],
  "POST /v2/cases/:case_id/documents": [{ upload_id: "u1" }, { upload_id: "u1", path: "/intake" }],
  "PATCH /v2/documents/:document_id": [{}, { path: null, archived: false }],
  "POST /v2/webhooks": [
    { name: "records", url: "https://hooks.example.test/mr", events: SUBSCRIBABLE_EVENT_TYPES },
    {
      name: "n",
      url: "http://hooks.example.test",
      events: ["retrieval_request.status_changed"],
      description: null,
    },
  ],
  "PATCH /v2/webhooks/:id": [
    { is_enabled: true },
    { name: "m", description: "d", events: SUBSCRIBABLE_EVENT_TYPES },
  ],
  "POST /v2/retrieval-requests": [
    { case_id: "case_1", facility_id: "fac_1", requestor_id: "req_1", auth_form: "up_1" },
    {
      case: case_,
      facility,
      requestor,
      auth_form: "up_1",
      attachments: ["up_2", "up_3"],
      record_types: ["medical_records"],
      date_from: "2020-01-01",
      date_to: "2021-01-01",
      notes: "n",
      external_id: "e",
    },
  ],
  "POST /v2/retrieval-requests/:retrieval_request_id/action-response": [
    { message: "Sending it shortly." },
    { message: "  x  ", requester_email: "a@firm.example", attachment: { upload_id: "u" } },
  ],
  "POST /v2/retrieval-requests/sign-upload": [
    { file_name: "hipaa.pdf", file_type: "application/pdf; charset=binary" },
  ],
  "POST /v2/requestors": [
    requestor,
    { ...requestor, organization: "Firm LLP", phone: "+1 555 0100" },
  ],
  "PATCH /v2/requestors/:id": [{}, { name: "Bea", organization: null, phone: null }],
};

/** Valid queries of the operations that need one (`METHOD /path/pattern`); the others take none. */
export const VALID_QUERIES: Record<string, Record<string, unknown>> = {
  "GET /v2/facilities": { query: "mercy" },
};

/** Strings that are not well-formed UTF-16: lone surrogates among any code units. */
export const utf16 = fc
  .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 12 })
  .map((codes) => String.fromCharCode(...codes));

/** Values at the edges of what the schemas check. */
export const edgeValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "\t\n",
    "0",
    "true",
    "null",
    "NaN",
    "2020-02-30",
    "2026-13-01",
    "9999-12-31",
    "2026-01-01T00:00:00Z",
    "2026-01-01T24:00:00.000Z",
    "http://user:pass@hooks.example.test",
    "http://127.0.0.1/x",
    "javascript:alert(1)",
    "ftp://hooks.example.test",
    "a@b",
    "application/pdf",
    "webhook.test",
    ",,",
    "x".repeat(101),
    "x".repeat(501),
    "x".repeat(2049),
    "x".repeat(10_001),
    "\uD800",
    "\uDC00abc",
    "__proto__",
  ),
  fc.constantFrom(
    0,
    -0,
    1,
    -1,
    0.5,
    100,
    101,
    2 ** 53,
    1e308,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    Number.MIN_VALUE,
  ),
  fc.constantFrom(null, undefined, true, false, [], {}, [""], [null]),
  fc.date({ noInvalidDate: false }),
  fc.bigInt(),
  utf16,
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.jsonValue({ maxDepth: 3 }),
);

const NESTED_SHAPES: readonly NestedJsonShape[] = [
  "arrays",
  "spaced-arrays",
  "objects",
  "event",
  "unclosed",
];

/**
 * JSON text nested deep, in every shape of `nestedJson`: at each of `bounds`
 * (a limit of the code under test) and one level past it, far past any
 * runtime's recursion limit, or anywhere up to where `JSON.stringify`
 * overflows the stack.
 */
export function deeplyNestedJson(bounds: readonly number[] = []): fc.Arbitrary<string> {
  const depth = fc.oneof(
    fc.constantFrom(...bounds.flatMap((b) => [b, b + 1]), VERY_DEEP),
    fc.integer({ min: 1, max: 20_000 }),
  );
  return fc
    .tuple(depth, fc.constantFrom(...NESTED_SHAPES))
    .map(([d, shape]) => nestedJson(d, shape));
}

/** Any JavaScript value, boxed values, Maps, BigInts, null prototypes and sparse arrays included. */
export const anything = fc.anything({
  withBoxedValues: true,
  withMap: true,
  withSet: true,
  withBigInt: true,
  withDate: true,
  withNullPrototype: true,
  withTypedArray: true,
  withSparseArray: true,
  withObjectString: true,
});

type Edit =
  | { k: "set"; key: string; value: unknown }
  | { k: "delete"; key: string }
  | { k: "nested"; key: string; inner: string; value: unknown };

const keyFor = (fields: string[]) =>
  fc.oneof(
    { arbitrary: fc.constantFrom(...fields), weight: 4 },
    fc.constantFrom("__proto__", "constructor", "toString", "toJSON", "valueOf", ""),
    fc.string({ maxLength: 12 }),
  );

/** An own, enumerable data property (so that `__proto__` is a key, not the prototype). */
const own = (value: unknown): PropertyDescriptor => ({
  value,
  enumerable: true,
  writable: true,
  configurable: true,
});

/**
 * A valid input with one to three fields replaced (by an edge value or any
 * value), removed, or added, at the top level or one level down.
 */
export function nearValid(
  valid: Record<string, unknown>[],
  value: fc.Arbitrary<unknown> = fc.oneof({ arbitrary: edgeValue, weight: 3 }, anything),
): fc.Arbitrary<Record<string, unknown>> {
  const fields = [...new Set(valid.flatMap((v) => Object.keys(v))), "limit", "cursor"];
  const key = keyFor(fields);
  const edit: fc.Arbitrary<Edit> = fc.oneof(
    { arbitrary: fc.record({ k: fc.constant("set" as const), key, value }), weight: 4 },
    fc.record({ k: fc.constant("delete" as const), key }),
    fc.record({ k: fc.constant("nested" as const), key, inner: keyFor(fields), value }),
  );
  return fc
    .tuple(fc.constantFrom(...valid), fc.array(edit, { minLength: 1, maxLength: 3 }))
    .map(([base, edits]) => {
      const input: Record<string, unknown> = structuredClone(base);
      for (const e of edits) {
        if (e.k === "delete") delete input[e.key];
        else if (e.k === "set") Object.defineProperty(input, e.key, own(e.value));
        else {
          // Own properties only: `input.__proto__` would be Object.prototype, and polluting it.
          const inner = Object.hasOwn(input, e.key) ? input[e.key] : undefined;
          const target =
            typeof inner === "object" && inner !== null ? (inner as Record<string, unknown>) : {};
          Object.defineProperty(target, e.inner, own(e.value));
          Object.defineProperty(input, e.key, own(target));
        }
      }
      return input;
    });
}

/** A value as fast-check prints it, for failure messages. */
export function show(value: unknown): string {
  try {
    return fc.stringify(value);
  } catch {
    return String(value);
  }
}
