import { describe, expect, it } from "vitest";
import { CONTRACT, type Operation } from "../../src/contract/index.js";
import { scrubbedLine } from "../../src/fidelity/cassette-entry.js";
import { CASSETTE_VERSION, type CassetteEntry } from "../../src/fidelity/cassette-format.js";
import { scrubbedJson } from "../../src/fidelity/scrub-json.js";
import { Scrubber } from "../../src/fidelity/scrubber.js";

const KEY = Buffer.alloc(32, 7);
const op = (id: keyof typeof CONTRACT) => CONTRACT[id] as Operation;

const CASE = {
  id: "case_0123456789abcdefghijklmn",
  case_number: "MR-000001",
  title: 'Doe "Junior" v. Acme\\Logistics',
  client_name: "Zoë Ñúñez 🙂",
  description: "Line one\nline two\u2028and a lone \ud800 surrogate",
  client_date_of_birth: "1987-04-12",
  client_address: "",
  client_phone: "+1-217-555-0198",
  client_email: "zoe@example.com",
  date_of_injury: "2025-11-03",
  deposition_date: null,
  case_category: "personal_injury",
  status: "active",
  external_id: "clío-1",
  created_at: "2025-11-10T15:04:05.123Z",
  updated_at: "2026-02-01T09:30:00.000Z",
};

/** Pages and bodies as a drifted service might send them: every shape the text walk must match. */
const BODIES: [keyof typeof CONTRACT, unknown][] = [
  ["listCases", { results: [CASE, CASE], next: null, previous: null }],
  ["getCase", CASE],
  // Fields the spec does not have, nested; wrong types in kept and personal fields; a missing field.
  [
    "getCase",
    {
      ...CASE,
      client_name: 42,
      title: { first: "Zoë", nested: [1, "x", null, true] },
      case_number: ["MR-1"],
      "1": "an integer-like key",
      extra: { note: "078-05-1120", count: 7, list: ["a", { b: "c" }] },
      deposition_date: undefined,
    },
  ],
  ["listCases", { results: "not a list", next: 3, previous: null }],
  ["listCases", [CASE]],
  ["getCase", null],
  ["getCase", "just text"],
  [
    "downloadDocument",
    { download_url: "https://storage.example/d/tok_1?sig=tok_2", expires_in: 3600 },
  ],
  ["downloadDocument", { download_url: "not a url", expires_in: "soon" }],
  [
    "createWebhook",
    {
      id: "wh_1",
      name: "n",
      url: "https://hooks.example/x",
      description: null,
      events: ["retrieval_request.status_changed", 7],
      secret: "whsec_abc",
      is_enabled: true,
      auto_disabled_at: null,
      last_failure: { at: "2026-01-01T00:00:00.000Z", status: 500 },
      created_at: "2026-06-15T12:00:00.000Z",
    },
  ],
];

describe("scrubbedJson", () => {
  it("writes exactly the JSON of the scrubbed copy, for every shape a body can take", () => {
    for (const [id, body] of BODIES) {
      const scrubber = new Scrubber(KEY);
      const schema = op(id).response as Parameters<Scrubber["scrub"]>[0];
      expect(scrubbedJson(schema, body, scrubber), id).toBe(
        JSON.stringify(scrubber.scrub(schema, body)),
      );
    }
  });

  it("replaces a personal value by the same text wherever it meets it", () => {
    const scrubber = new Scrubber(KEY);
    const text = scrubbedJson(
      op("listCases").response,
      { results: [CASE, { ...CASE, id: "case_2" }], next: null, previous: null },
      scrubber,
    ) as string;
    const [first, second] = (JSON.parse(text) as { results: Record<string, string>[] }).results;
    expect(first?.client_name).toBe(second?.client_name);
    expect(first?.client_name).toBe(scrubber.replace("name", CASE.client_name));
    expect(text).not.toContain("Zo");
    expect(text).not.toContain("Junior");
    expect(text).toContain(CASE.external_id);
  });
});

describe("scrubbedLine", () => {
  it("is one JSON line: the entry, its bodies scrubbed and its credential headers left out", () => {
    const entry: CassetteEntry = {
      v: CASSETTE_VERSION,
      at: "2026-06-15T12:00:00.000Z",
      operation: "getCase",
      params: { case_id: CASE.id },
      query: {},
      request: { headers: { authorization: "Bearer k", accept: "application/json" } },
      response: {
        status: 200,
        headers: { "set-cookie": "s=1", "x-request-id": "req_1" },
        body: CASE,
      },
    };
    const scrubber = new Scrubber(KEY);
    const line = scrubbedLine(entry, op("getCase"), scrubber);
    expect(line.endsWith("}\n")).toBe(true);
    expect(line.indexOf("\n")).toBe(line.length - 1);
    expect(JSON.parse(line)).toEqual({
      ...entry,
      request: { headers: { accept: "application/json" } },
      response: {
        status: 200,
        headers: { "x-request-id": "req_1" },
        body: new Scrubber(KEY).scrub(op("getCase").response, CASE),
      },
    });
  });
});
