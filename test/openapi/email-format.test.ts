/**
 * Email fields: the service's rule (EMAIL_PATTERN, the document's `pattern`)
 * against `format: email` as validators check it. JSON Schema's `email` is
 * RFC 5321's Mailbox; ajv-formats' full `email` implements its Dot-string at
 * a dotted domain. On a corpus, the pattern and ajv-formats agree but for the
 * RFC 5321 forms that ajv-formats' regex leaves out (a quoted local part, a
 * one-label domain) and the host-name label limit it does not check; the
 * zod schema (client and server) is the pattern; and the reference server
 * accepts and echoes only addresses the document admits.
 */
import { fullFormats } from "ajv-formats/dist/formats.js";
import { describe, expect, it } from "vitest";
import { createMockService } from "../../src/mock/index.js";
import { openApiDocument } from "../../src/openapi/document.js";
import { EMAIL_PATTERN, Email } from "../../src/schemas/email.js";
import { createOpenApiValidator, isRfc5321Mailbox } from "../helpers/openapi-validator.js";
import { createApi } from "../mock/helpers.js";

const ajvEmail = fullFormats.email as RegExp;

/** Addresses both take: dot-atom local parts at dotted domains. */
const BOTH_ACCEPT = [
  "a@firm.example",
  "a.b@firm.example",
  "a&b@firm.example",
  "x/y=z@firm.example",
  "o'brien+intake@firm.example",
  "{ops}|~#$%^`*?!@firm.example",
  "Jane.Doe@Sub.Firm-Name.example",
  "a.b.c.d@a-b.c-d.example",
  `${"a".repeat(64)}@${"b".repeat(63)}.example`,
];
/** Addresses both refuse, the leading, trailing and doubled dots included. */
const BOTH_REFUSE = [
  "",
  "plain",
  "@firm.example",
  "a@",
  ".@firm.example",
  ".a@firm.example",
  "a.@firm.example",
  "a..b@firm.example",
  "a...b@firm.example",
  "..@firm.example",
  "a b@firm.example",
  "a@b@firm.example",
  "a,b@firm.example",
  "a@-firm.example",
  "a@firm-.example",
  "a@firm..example",
  "a@.firm.example",
  "a@firm.example.",
  "a@firm_name.example",
  '"a"b"@firm.example',
  '"unclosed@firm.example',
  "a(note)@firm.example",
  "jané@firm.example",
  "a@fïrm.example",
  " a@firm.example",
  "a@firm.example\n",
  "a@[192.0.2.1]",
  '"é"@firm.example',
];
/**
 * Where they differ, each time on RFC 5321's side (the service's): forms of
 * its grammar ajv-formats' regex leaves out, which the service takes, and
 * labels over 63 characters (RFC 1035), which it does not check.
 */
const ONLY_PATTERN = [
  '"quoted"@firm.example',
  '"a b"@firm.example',
  '"a..b"@firm.example',
  '".a"@firm.example',
  '"a\\"b"@firm.example',
  '"a\\\\b"@firm.example',
  '""@firm.example',
  "ops@localhost",
  "a.b@intake",
];
const ONLY_AJV = [`a@${"b".repeat(64)}.example`];

const CORPUS = [...BOTH_ACCEPT, ...BOTH_REFUSE, ...ONLY_PATTERN, ...ONLY_AJV];

describe("email fields: the document's pattern and ajv-formats' email format", () => {
  it("agree on every address of the corpus but RFC 5321's quoted and one-label forms and long labels", () => {
    const disagreements = CORPUS.filter((a) => EMAIL_PATTERN.test(a) !== ajvEmail.test(a));
    expect(disagreements.sort()).toEqual([...ONLY_PATTERN, ...ONLY_AJV].sort());
    for (const address of BOTH_ACCEPT) expect(ajvEmail.test(address), address).toBe(true);
    for (const address of BOTH_REFUSE) expect(ajvEmail.test(address), address).toBe(false);
    for (const address of ONLY_PATTERN) expect(EMAIL_PATTERN.test(address), address).toBe(true);
  });

  it("take nothing RFC 5321's Mailbox refuses: the pattern is inside the format", () => {
    for (const address of CORPUS.filter((a) => EMAIL_PATTERN.test(a))) {
      expect(isRfc5321Mailbox(address), address).toBe(true);
    }
  });

  it("the zod schema the client and the server parse with is the pattern", () => {
    for (const address of CORPUS) {
      expect(Email.safeParse(address).success, address).toBe(EMAIL_PATTERN.test(address));
    }
  });

  it("the reference server accepts and echoes exactly the addresses the document admits", async () => {
    const mock = createMockService();
    const api = createApi(mock, mock.apiKeys.create());
    const validator = createOpenApiValidator(openApiDocument());
    for (const email of CORPUS) {
      const answer = await api.post("/v2/requestors", { name: "Ann Counsel", email });
      const admitted = EMAIL_PATTERN.test(email) && isRfc5321Mailbox(email);
      expect(answer.status, email).toBe(admitted ? 201 : 400);
      if (!admitted) continue;
      expect((answer.body as { email: string }).email).toBe(email);
      const problems = validator.validateResponse({
        method: "POST",
        url: "/v2/requestors",
        status: answer.status,
        body: answer.body,
      });
      expect(problems, email).toEqual([]);
    }
  });
});
