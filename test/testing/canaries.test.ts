import { describe, expect, it } from "vitest";
import { makeCaseCreate } from "../../src/schemas/cases.js";
import {
  assertNoCanaryLeak,
  captureLeaks,
  FICTIONAL_CLIENTS,
  PHI_CANARIES,
  PhiLeakError,
} from "../../src/testing/index.js";

const [quorra] = FICTIONAL_CLIENTS as [(typeof FICTIONAL_CLIENTS)[0]];

describe("FICTIONAL_CLIENTS", () => {
  it("are valid case creations, and no canary value is shared or contained in another", () => {
    for (const client of FICTIONAL_CLIENTS)
      expect(makeCaseCreate().safeParse(client).success).toBe(true);
    const values = PHI_CANARIES.map((c) => c.value);
    expect(new Set(values).size).toBe(values.length);
    for (const a of values) for (const b of values) if (a !== b) expect(b.includes(a)).toBe(false);
  });
});

describe("assertNoCanaryLeak", () => {
  it("passes on clean sources and names each leak's place and kind without repeating the value", () => {
    expect(() =>
      assertNoCanaryLeak({ logs: ["case created"], errors: [new Error("x")] }),
    ).not.toThrow();
    let thrown: unknown;
    try {
      assertNoCanaryLeak({
        logs: ["ok", `patient ${quorra.client_name} admitted`],
        errors: [new Error("wrapped", { cause: new Error(`dob ${quorra.client_date_of_birth}`) })],
        requests: [
          {
            method: "POST",
            url: "https://errors.example.test/r",
            headers: {},
            body: quorra.client_email,
          },
        ],
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(PhiLeakError);
    const leak = thrown as PhiLeakError;
    expect(leak.findings.map((f) => [f.where, f.kind])).toEqual([
      ["logs[1]", "FICTIONAL_CLIENTS[0].client_name"],
      ["errors[0].cause", "FICTIONAL_CLIENTS[0].client_date_of_birth"],
      ["requests[0] POST https://errors.example.test body", "FICTIONAL_CLIENTS[0].client_email"],
    ]);
    expect(leak.findings[0]?.excerpt).toBe("patient [canary] admitted");
    for (const { value } of PHI_CANARIES) expect(leak.message).not.toContain(value);
  });
});

describe("captureLeaks", () => {
  it("records console lines and requests to other origins, not those to the API, until stopped", async () => {
    const api = "https://api.medrecords.test";
    const seen: string[] = [];
    const realFetch = globalThis.fetch;
    globalThis.fetch = (async (input: RequestInfo | URL) => {
      seen.push(new Request(input).url);
      return new Response(null, { status: 204 });
    }) as typeof fetch;
    const capture = captureLeaks({ apiOrigins: [api], quiet: true });
    try {
      console.error("failed for", { name: quorra.client_name });
      await fetch(`${api}/v2/cases`, { method: "POST", body: quorra.client_name });
      await fetch("https://errors.example.test/report", {
        method: "POST",
        body: quorra.client_phone,
      });
    } finally {
      capture.stop();
      globalThis.fetch = realFetch;
    }
    expect(seen).toEqual([`${api}/v2/cases`, "https://errors.example.test/report"]);
    expect(capture.requests.map((r) => r.url)).toEqual(["https://errors.example.test/report"]);
    expect(() => capture.assertNoLeaks()).toThrow(PhiLeakError);
    expect(
      (() => {
        try {
          capture.assertNoLeaks();
        } catch (e) {
          return (e as PhiLeakError).findings.map((f) => f.kind);
        }
      })(),
    ).toEqual(["FICTIONAL_CLIENTS[0].client_name", "FICTIONAL_CLIENTS[0].client_phone"]);
    capture.clear();
    expect(() => capture.assertNoLeaks()).not.toThrow();
    expect(globalThis.fetch).toBe(realFetch);
  });
});
