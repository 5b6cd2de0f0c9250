import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { parseCassette } from "../../src/fidelity/cassette-format.js";
import { findCanaries } from "../../src/testing/canary-scan.js";
import { type Canary, FICTIONAL_CLIENTS } from "../../src/testing/fictional-clients.js";

const dir = mkdtempSync(join(tmpdir(), "medrecords-scrub-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const client = FICTIONAL_CLIENTS[1] as (typeof FICTIONAL_CLIENTS)[number];
const API_KEY = "medrecords_sk_test_scrubCanaryKey0000000000";
const SECRET = "whsec_canarySecretValue1234567890";
const TOKEN = "tok_canary_presigned_0123456789abcdef";

const CASE = {
  id: "case_0123456789abcdefghijklmn",
  case_number: "MR-000001",
  title: client.title,
  client_name: client.client_name,
  description: client.description,
  client_date_of_birth: client.client_date_of_birth,
  client_address: client.client_address,
  client_phone: client.client_phone,
  client_email: client.client_email,
  date_of_injury: client.date_of_injury,
  deposition_date: null,
  case_category: "personal_injury",
  status: "active",
  external_id: null,
  created_at: "2026-06-15T12:00:00.000Z",
  updated_at: "2026-06-15T12:00:00.000Z",
  // A field the spec does not have, holding a value too.
  ssn_note: `${client.client_name} 078-05-1120`,
};

const line = (operation: string, params: object, body: object, status = 200, request?: object) =>
  `${JSON.stringify({
    v: 1,
    at: "2026-06-15T12:00:00.000Z",
    operation,
    params,
    query: {},
    request: {
      headers: { authorization: `Bearer ${API_KEY}`, "x-trace": API_KEY },
      ...(request ? { body: request } : {}),
    },
    response: { status, headers: { "set-cookie": "session=abc" }, body },
  })}\n`;

const RAW =
  line("getCase", { case_id: CASE.id }, CASE) +
  line("listCases", {}, { results: [CASE, CASE], next: null, previous: null }) +
  line(
    "createWebhook",
    {},
    {
      id: "wh_1",
      name: "n",
      url: "https://hooks.firm.example/x",
      description: null,
      events: [],
      secret: SECRET,
      is_enabled: true,
      auto_disabled_at: null,
      last_failure: null,
      created_at: "2026-06-15T12:00:00.000Z",
    },
    201,
  ) +
  line(
    "downloadDocument",
    { document_id: "doc_1" },
    {
      download_url: `https://storage.firm.example/downloads/${TOKEN}?sig=${TOKEN}`,
      expires_in: 3600,
    },
  ) +
  line(
    "getCase",
    { case_id: "case_x" },
    { error: { code: "not_found", message: `No case for ${client.client_name}` } },
    404,
  ) +
  line("someFutureOperation", { thing_id: client.client_name }, { note: client.description });

const CANARIES: Canary[] = [
  ...[
    "title",
    "client_name",
    "description",
    "client_date_of_birth",
    "client_address",
    "client_phone",
    "client_email",
  ].map((field) => ({ kind: field, value: client[field as keyof typeof client] })),
  { kind: "api key", value: API_KEY },
  { kind: "webhook secret", value: SECRET },
  { kind: "presigned token", value: TOKEN },
  { kind: "unknown field", value: "078-05-1120" },
];

async function run(args: string[], env: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const code = await main(args, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env,
    signal: new AbortController().signal,
  });
  return { code, stdout, stderr };
}

describe("medrecords cassette scrub <in> <out>", () => {
  it("writes the cassette with no personal value, secret or token, ids and enums kept", async () => {
    const input = join(dir, "raw.jsonl");
    const output = join(dir, "scrubbed.jsonl");
    writeFileSync(input, RAW);
    const { code, stderr } = await run(["cassette", "scrub", input, output], {
      MEDRECORDS_API_KEY: API_KEY,
    });
    expect(code).toBe(0);
    expect(stderr).toBe(`medrecords: 6 exchange(s) scrubbed into ${output}\n`);
    const text = readFileSync(output, "utf8");
    expect(findCanaries(text, "scrubbed", CANARIES)).toEqual([]);
    expect(statSync(output).mode & 0o777).toBe(0o600);
    const { entries } = parseCassette(text);
    const read = entries[0]?.response.body as Record<string, unknown>;
    expect(read).toMatchObject({
      id: CASE.id,
      case_number: "MR-000001",
      case_category: "personal_injury",
      date_of_injury: client.date_of_injury,
    });
    expect(read.ssn_note).toEqual(expect.any(String));
    // The same client in two places: one replacement.
    const listed =
      (entries[1]?.response.body as { results?: Record<string, unknown>[] })?.results ?? [];
    expect(listed[0]?.client_name).toBe(read.client_name);
    expect(listed[1]?.client_email).toBe(read.client_email);
    expect(entries[0]?.request.headers).toEqual({ "x-trace": "[redacted]" });
    expect(entries[0]?.response.headers).toEqual({});
    expect(entries[4]?.response.body).toEqual({
      error: { code: "not_found", message: "(scrubbed)" },
    });
  });

  it("exits 2 on an unreadable or malformed cassette, 1 when <out> exists, naming neither's content", async () => {
    const bad = join(dir, "bad.jsonl");
    writeFileSync(bad, `${RAW}{"v":1,"operation":"getCase"}\n`);
    const missing = await run(["cassette", "scrub", join(dir, "nope.jsonl"), join(dir, "o1")]);
    expect(missing).toMatchObject({ code: 2, stderr: expect.stringContaining("ENOENT") });
    const malformed = await run(["cassette", "scrub", bad, join(dir, "o2")]);
    expect(malformed).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("line 7: no params or query"),
    });
    expect(existsSync(join(dir, "o2"))).toBe(false);
    const input = join(dir, "raw2.jsonl");
    writeFileSync(input, RAW);
    const exists = await run(["cassette", "scrub", input, input]);
    expect(exists).toMatchObject({ code: 1, stderr: expect.stringContaining("EEXIST") });
    expect(readFileSync(input, "utf8")).toBe(RAW);
    expect((await run(["cassette", "scrub", input])).code).toBe(2);
    expect((await run(["cassette", "rinse", input, "x"])).code).toBe(2);
  });
});
