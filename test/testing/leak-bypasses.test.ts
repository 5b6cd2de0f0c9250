/**
 * Each way a canary used to slip past the leak check (issue 24, item 3):
 * encoded as a log or a request commonly encodes it, upper-cased, printed by
 * a console method other than the six first captured, or inside an object
 * `JSON.stringify` cannot show (a Map, a circular object, an AggregateError).
 */
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import {
  captureLeaks,
  FICTIONAL_CLIENTS,
  type LeakCapture,
  type LeakSources,
  scanForCanaries,
} from "../../src/testing/index.js";

const [quorra] = FICTIONAL_CLIENTS as [(typeof FICTIONAL_CLIENTS)[0]];
const NAME = quorra.client_name;
const KIND = "FICTIONAL_CLIENTS[0].client_name";

const kinds = (sources: LeakSources) => scanForCanaries(sources).map((f) => f.kind);
const base64 = (bytes: string | Uint8Array) => Buffer.from(bytes).toString("base64");

describe("encoded canaries are found", () => {
  it.each([
    ["percent-encoded in a URL", `https://tracker.example/p?name=${encodeURIComponent(NAME)}`],
    ["form-encoded (+ for spaces)", new URLSearchParams({ name: NAME }).toString()],
    ["percent-encoded twice", encodeURIComponent(encodeURIComponent(NAME))],
    ["upper-cased", `PATIENT ${NAME.toUpperCase()}`],
    ["lower-cased", NAME.toLowerCase()],
    ["base64", `token ${base64(JSON.stringify({ name: NAME }))}`],
    ["base64 after a word", `x${base64(`{"n":"${NAME}"}`)}`],
    ["base64url", Buffer.from(`subject=${NAME}`).toString("base64url")],
    ["base64 in a URL, percent-encoded", encodeURIComponent(base64(`?${NAME}`))],
    ["gzip, then base64", `payload=${base64(gzipSync(JSON.stringify({ name: NAME })))}`],
    [
      "JSON \\u escapes",
      JSON.stringify(NAME).replace(/[a-z]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`),
    ],
  ])("%s", (_, line) => {
    const findings = scanForCanaries({ logs: [line] });
    expect(findings.map((f) => f.kind)).toEqual([KIND]);
    // The report never shows the value, in any case.
    expect(findings[0]!.excerpt.toLowerCase()).not.toContain(NAME.toLowerCase());
  });

  it("names the encoding in `where`", () => {
    const [finding] = scanForCanaries({ logs: [base64(gzipSync(NAME))] });
    expect(finding?.where).toBe("logs[0] (base64+gzip)");
    expect(finding?.excerpt).toBe("[canary]");
  });

  it("finds it in a request body, form-encoded, and in a URL, percent-encoded", () => {
    expect(
      kinds({
        requests: [
          {
            method: "POST",
            url: `https://crm.example/lead?dob=${encodeURIComponent(quorra.client_date_of_birth)}`,
            headers: { authorization: `Basic ${base64(`${quorra.client_email}:x`)}` },
            body: new URLSearchParams({ n: NAME }).toString(),
          },
        ],
      }),
    ).toEqual([
      "FICTIONAL_CLIENTS[0].client_date_of_birth",
      "FICTIONAL_CLIENTS[0].client_email",
      KIND,
    ]);
  });

  it("stays quiet on text without canaries, encoded or not", () => {
    expect(
      kinds({
        logs: [
          "case created",
          base64(gzipSync("nothing to see")),
          encodeURIComponent("Quorra Someone-Else"),
          "dGhpcyBpcyBub3QgYSBjYW5hcnk=",
        ],
      }),
    ).toEqual([]);
  });
});

describe("objects are searched as Node prints them", () => {
  it.each([
    ["a Map", () => new Map([["client", { name: NAME }]])],
    ["a Set", () => new Set([NAME])],
    [
      "a circular object",
      () => {
        const record: Record<string, unknown> = { name: NAME };
        record.self = record;
        return record;
      },
    ],
    [
      "an object nested deeper than console.log shows",
      () => ({ a: { b: { c: { d: { name: NAME } } } } }),
    ],
    ["a BigInt beside it", () => ({ n: 1n, name: NAME })],
  ])("in %s", (_, make) => {
    expect(kinds({ errors: [Object.assign(new Error("failed"), { detail: make() })] })).toEqual([
      KIND,
    ]);
  });

  it("in AggregateError.errors and in a cause's own properties", () => {
    expect(kinds({ errors: [new AggregateError([new Error(`for ${NAME}`)], "2 failed")] })).toEqual(
      [KIND],
    );
    const [finding] = scanForCanaries({
      errors: [new AggregateError([new Error("a"), new Error(NAME)], "failed")],
    });
    expect(finding?.where).toBe("errors[0].errors[1]");
    expect(
      kinds({
        errors: [
          new Error("outer", { cause: Object.assign(new Error("inner"), { patient: NAME }) }),
        ],
      }),
    ).toEqual([KIND]);
  });
});

describe("captureLeaks records every console method", () => {
  let capture: LeakCapture | undefined;
  afterEach(() => capture?.stop());

  it.each([
    ["dir", () => console.dir({ client: new Map([["n", NAME]]) })],
    ["dirxml", () => console.dirxml({ name: NAME })],
    ["table", () => console.table([{ name: NAME }])],
    ["group", () => console.group(NAME)],
    ["groupCollapsed", () => console.groupCollapsed(NAME)],
    ["timeLog", () => console.timeLog(`t-${NAME}`)],
    ["count", () => console.count(NAME)],
    ["assert (failing)", () => console.assert(false, "bad", { name: NAME })],
    [
      "log with %o",
      () => console.log("client %o", { deep: { deeper: { deepest: { name: NAME } } } }),
    ],
    [
      "log of a circular object",
      () => {
        const o: Record<string, unknown> = { name: NAME };
        o.o = o;
        console.log(o);
      },
    ],
    [
      "error with an AggregateError",
      () => console.error(new AggregateError([new Error(NAME)], "x")),
    ],
  ])("console.%s", (_, call) => {
    capture = captureLeaks({ quiet: true });
    call();
    expect(() => capture!.assertNoLeaks()).toThrow(/FICTIONAL_CLIENTS\[0\]\.client_name/);
  });

  it("a passing console.assert prints nothing, and records nothing", () => {
    capture = captureLeaks({ quiet: true });
    console.assert(true, NAME);
    expect(capture.logs).toEqual([]);
  });

  it("puts every method back on stop()", () => {
    const before = {
      dir: console.dir,
      table: console.table,
      group: console.group,
      count: console.count,
    };
    capture = captureLeaks({ quiet: true });
    expect(console.dir).not.toBe(before.dir);
    capture.stop();
    expect({
      dir: console.dir,
      table: console.table,
      group: console.group,
      count: console.count,
    }).toEqual(before);
  });

  it("reads a gzip request body decompressed", async () => {
    const realFetch = globalThis.fetch;
    globalThis.fetch = (async () => new Response(null, { status: 204 })) as typeof fetch;
    try {
      capture = captureLeaks({ quiet: true });
      await fetch("https://logs.example.test/ingest", {
        method: "POST",
        headers: { "content-encoding": "gzip" },
        body: gzipSync(JSON.stringify({ msg: `admitted ${NAME}` })),
      });
      expect(() => capture!.assertNoLeaks()).toThrow(PhiLeak);
    } finally {
      capture?.stop();
      globalThis.fetch = realFetch;
    }
  });
});

const PhiLeak = /FICTIONAL_CLIENTS\[0\]\.client_name/;

describe("captureLeaks while printing", () => {
  it("records a console.table once, though Node prints it through console.log", () => {
    const capture = captureLeaks();
    const write = process.stdout.write;
    process.stdout.write = (() => true) as typeof process.stdout.write;
    try {
      console.table([{ a: 1 }]);
    } finally {
      process.stdout.write = write;
      capture.stop();
    }
    expect(capture.logs).toHaveLength(1);
  });
});
