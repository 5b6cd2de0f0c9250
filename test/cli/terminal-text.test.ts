/**
 * What `events tail` and `listen` print of the service's words reaches the
 * terminal with no control character raw: ESC sequences, OSC (window title),
 * 8-bit C1 CSI, DEL and bidirectional overrides are written as visible
 * escapes, in event fields, in --json lines (still the same JSON value), in
 * a forwarded attempt's line, and in error messages quoting the service.
 */
import { describe, expect, it } from "vitest";
import { eventsTail } from "../../src/cli/events-tail.js";
import { terminalSafe, terminalSafeJson } from "../../src/cli/terminal-text.js";
import type { CommandIo } from "../../src/cli/usage-error.js";
import { createForwarder } from "../../src/cli/webhook-forwarder.js";
import { createMockService } from "../../src/mock/index.js";
import type { AnyEvent } from "../../src/schemas/event-list.js";
import { emitEventForTesting } from "../helpers/mock-internals.js";

/** Anything a terminal would act on: C0 but the line end, DEL, C1, bidi controls. */
const RAW_CONTROL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: what must not be printed raw.
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

const HOSTILE_ID = "evt_\u001b]0;pwned\u0007\u001b[2J";
const HOSTILE_TYPE = "retrieval_request.status_changed\u009b31m";
const HOSTILE_OBJECT = "rr_\u202egnp.exe\u007f";

describe("terminalSafe", () => {
  it.each([
    ["ESC and an OSC title with BEL", "a\u001b]0;x\u0007b", "a\\x1b]0;x\\x07b"],
    ["an 8-bit CSI (C1)", "\u009b2J", "\\x9b2J"],
    ["DEL", "a\u007fb", "a\\x7fb"],
    ["tab, line feed and carriage return", "a\tb\nc\rd", "a\\x09b\\x0ac\\x0dd"],
    ["a right-to-left override", "rr_\u202etxt", "rr_\\u202etxt"],
    ["text without controls, non-ASCII included", "évt_1 — ok ✓", "évt_1 — ok ✓"],
  ])("escapes %s", (_, input, output) => {
    expect(terminalSafe(input)).toBe(output);
  });

  it("keeps JSON the same value, with nothing raw", () => {
    const value = { id: HOSTILE_ID, type: HOSTILE_TYPE, o: HOSTILE_OBJECT };
    const line = terminalSafeJson(value);
    expect(line).not.toMatch(RAW_CONTROL);
    expect(JSON.parse(line)).toEqual(value);
  });
});

function capture(env: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CommandIo = {
    stdout: (text) => void out.push(text),
    stderr: (text) => void err.push(text),
    env,
    signal: new AbortController().signal,
  };
  return { io, out, err };
}

/** A mock whose event list answers one event with hostile fields. */
function hostileService() {
  const mock = createMockService({ now: "2026-06-15T12:00:00.000Z", delivery: "inbox" });
  emitEventForTesting(mock, "retrieval_request.status_changed", {
    retrieval_request_id: "rr_1",
    case_id: null,
    public_updated_at: "2026-06-15T12:00:00.000Z",
  });
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const response = await mock.fetch(input, init);
    if (!new Request(input, init).url.includes("/v2/events")) return response;
    const page = (await response.json()) as { results: Array<Record<string, unknown>> };
    for (const event of page.results) {
      event.id = HOSTILE_ID;
      event.type = HOSTILE_TYPE;
      (event.data as Record<string, unknown>).retrieval_request_id = HOSTILE_OBJECT;
    }
    return Response.json(page, { status: response.status, headers: response.headers });
  };
  const env = { MEDRECORDS_API_KEY: mock.apiKeys.create(), MEDRECORDS_BASE_URL: mock.baseUrl };
  return { fetch, env, mock };
}

describe("events tail", () => {
  it("prints hostile event fields escaped", async () => {
    const { fetch, env } = hostileService();
    const run = capture(env);
    expect(await eventsTail(["--once"], run.io, { fetch })).toBe(0);
    const text = run.out.join("");
    expect(text.split("\n").filter(Boolean)).toHaveLength(1);
    expect(text.replace(/\n$/, "")).not.toMatch(RAW_CONTROL);
    expect(text).toContain("evt_\\x1b]0;pwned\\x07\\x1b[2J");
    expect(text).toContain("retrieval_request.status_changed\\x9b31m");
    expect(text).toContain("rr_\\u202egnp.exe\\x7f");
  });

  it("prints --json lines with nothing raw, which parse back to the service's values", async () => {
    const { fetch, env } = hostileService();
    const run = capture(env);
    expect(await eventsTail(["--once", "--json"], run.io, { fetch })).toBe(0);
    const line = run.out.join("").replace(/\n$/, "");
    expect(line).not.toMatch(RAW_CONTROL);
    expect(JSON.parse(line)).toMatchObject({ id: HOSTILE_ID, type: HOSTILE_TYPE });
  });

  it("escapes the service's words in an error message", async () => {
    const { env } = hostileService();
    const fetch: typeof globalThis.fetch = async () =>
      Response.json(
        { error: { code: "validation_error", message: "bad\u001b]52;c;ZXZpbA==\u0007 \u009b1m" } },
        { status: 400 },
      );
    const error = await eventsTail(["--once"], capture(env).io, { fetch }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).not.toMatch(RAW_CONTROL);
    expect(message).toContain("bad\\x1b]52;c;ZXZpbA==\\x07 \\x9b1m");
  });
});

describe("listen's forwarder", () => {
  it("prints an attempt's line with the event's type and id escaped", async () => {
    const lines: string[] = [];
    const forward = createForwarder({
      url: "http://127.0.0.1:3000/webhooks",
      secret: "whsec_test",
      retryDelaysMs: [],
      print: async (line) => {
        lines.push(line);
      },
      signal: new AbortController().signal,
      onFatal: () => undefined,
      fetch: async () => new Response(null, { status: 200 }),
    });
    await forward.deliver({
      id: HOSTILE_ID,
      type: HOSTILE_TYPE,
      created_at: "2026-06-15T12:00:00.000Z",
      data: { retrieval_request_id: "rr_1" },
    } as unknown as AnyEvent);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.replace(/\n$/, "")).not.toMatch(RAW_CONTROL);
    // The line shows the id cut short (rr-/evt_ and 8 characters), escaped like every field.
    expect(lines[0]).toContain("  retrieval_request.status_changed\\x9b31m  evt_\\x1b]0;pwne");
  });
});
