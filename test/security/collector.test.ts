/**
 * The whole-suite leak collector (test/setup/leak-collector.ts) sees what it
 * claims to see, and changes nothing the tests could observe. Each test
 * plants a leak, checks that it was found, and takes the finding back so
 * the file stays green.
 */
import { Console } from "node:console";
import { Writable } from "node:stream";
import { inspect } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import {
  APIError,
  ConnectionError,
  MedRecords,
  MedRecordsError,
  ValidationError,
} from "../../src/index.js";
import { MockApiError } from "../../src/mock/runtime/http-error.js";
import { WebhookVerificationError } from "../../src/webhooks/index.js";
import { leakCollector } from "../setup/collector-state.js";
import { SENTINEL_API_KEY, SENTINEL_PHI, SENTINEL_WEBHOOK_SECRET } from "../setup/sentinels.js";

function collector() {
  const state = leakCollector();
  if (state === undefined) throw new Error("the leak collector is not installed (setupFiles)");
  return state;
}

/** Checks now and hands back (and removes) what was found. */
function takeFindings() {
  const state = collector();
  state.check("collector self-test");
  const found = state.findings;
  state.findings = [];
  return found;
}

afterEach(() => {
  // Nothing planted may outlive its test.
  expect(takeFindings()).toEqual([]);
});

describe("the leak collector", () => {
  it("is installed in every test file", () => {
    expect(collector().patchedClasses.has(MedRecordsError)).toBe(true);
    expect(collector().patchedClasses.has(MockApiError)).toBe(true);
  });

  it("sees every SDK error class, message rewritten after construction included", () => {
    const errors = [
      new MedRecordsError(`plain ${SENTINEL_API_KEY}`),
      new ConnectionError("fine"),
      new WebhookVerificationError("signature_mismatch", `bad ${SENTINEL_WEBHOOK_SECRET}`),
    ];
    const rewritten = new ValidationError({ status: 400, code: "validation_error", message: "x" });
    rewritten.message = `client_name: ${SENTINEL_PHI.clientName}`;
    const found = takeFindings();
    expect(found.map((f) => [f.kind, f.source.split(" ")[0]])).toEqual([
      ["API key", "MedRecordsError"],
      ["webhook secret", "WebhookVerificationError"],
      ["PHI (clientName)", "ValidationError"],
    ]);
    // Reports are redacted: a finding never repeats the secret.
    for (const f of found) {
      expect(JSON.stringify(f)).not.toContain(SENTINEL_API_KEY);
      expect(JSON.stringify(f)).not.toContain(SENTINEL_WEBHOOK_SECRET);
      expect(JSON.stringify(f)).not.toContain(SENTINEL_PHI.clientName);
    }
    expect(errors).toHaveLength(3);
  });

  it("sees a secret only inspect shows (a cause), and the reference server's errors", () => {
    const error = new APIError({ status: 500, code: "x", message: "fine" });
    const cause = new Error(`upstream said ${SENTINEL_PHI.email}`);
    Object.defineProperty(error, "cause", { value: cause, configurable: true, writable: true });
    new MockApiError(400, "validation_error", `email: ${SENTINEL_PHI.email} is taken`);
    expect(takeFindings().map((f) => f.source)).toEqual([
      "APIError inspect(error)",
      "MockApiError message",
    ]);
  });

  it("changes nothing observable about the errors", () => {
    const error = new ValidationError({ status: 400, code: "validation_error", message: "m" });
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toBeInstanceOf(MedRecordsError);
    expect(error).toBeInstanceOf(Error);
    expect(Object.getPrototypeOf(error)).toBe(ValidationError.prototype);
    expect(error.name).toBe("ValidationError");
    expect(Object.keys(error)).toContain("issues");
    // The stack starts at this test, as without the collector: no constructor frame.
    const frames = error.stack!.split("\n").slice(1);
    expect(frames[0]).toContain("collector.test.ts");
    expect(error.stack).not.toMatch(/leak-collector|Proxy|construct/);
    // Statics still come through.
    expect(typeof (MedRecordsError as unknown as ErrorConstructor).captureStackTrace).toBe(
      "function",
    );
  });

  it("sees console lines and process.stdout/stderr writes, even split across writes", () => {
    expect(collector().patchedConsoles.has(globalThis.console)).toBe(true);
    // Planted lines go nowhere: a console of its own, and the real stderr write swapped out.
    const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
    const quiet = new Console({ stdout: sink, stderr: sink });
    collector().patchConsole(quiet);
    const { realWrite } = collector();
    const printed: unknown[] = [];
    const realStderr = realWrite.stderr;
    realWrite.stderr = (chunk) => printed.push(chunk) > 0;
    const origin = collector().counts.lines;
    try {
      quiet.log("key %s", SENTINEL_API_KEY);
      quiet.error(new Error(`boom ${SENTINEL_PHI.dateOfBirth}`));
      quiet.dir({ nested: { secret: SENTINEL_WEBHOOK_SECRET } }, { depth: 4 });
      quiet.assert(true, SENTINEL_PHI.clientName); // prints nothing: not a leak
      process.stderr.write(`half ${SENTINEL_API_KEY.slice(0, 25)}`);
      process.stderr.write(`${SENTINEL_API_KEY.slice(25)} rest\n`);
    } finally {
      realWrite.stderr = realStderr;
    }
    expect(printed).toHaveLength(2);
    expect(collector().counts.lines - origin).toBe(4);
    expect(takeFindings().map((f) => [f.source, f.kind])).toEqual([
      ["console.log", "API key"],
      ["console.error", "PHI (dateOfBirth)"],
      ["console.dir", "webhook secret"],
      ["process.stderr.write", "API key"],
    ]);
  });

  it("does not count request headers and bodies: only log lines and error renderings", async () => {
    let seen: Headers | undefined;
    const mr = new MedRecords({
      apiKey: SENTINEL_API_KEY,
      baseUrl: "https://api.medrecords.test",
      fetch: async (input, init) => {
        seen = new Request(input, init).headers;
        return Response.json({ error: { code: "conflict", message: "no" } }, { status: 409 });
      },
      maxRetries: 0,
    });
    const error = await mr.cases
      .create({ title: SENTINEL_PHI.title, client_name: SENTINEL_PHI.clientName })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect(seen?.get("authorization")).toBe(`Bearer ${SENTINEL_API_KEY}`);
    expect(inspect(error)).not.toContain(SENTINEL_API_KEY);
  });
});
