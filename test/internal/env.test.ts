import { describe, expect, it } from "vitest";
import { MedRecords } from "../../src/client.js";
import { proxyVariablesSet } from "../../src/core/transport.js";
import { readEnv } from "../../src/internal/env.js";

/**
 * Runs `fn` with a `process` whose environment refuses every read, as Deno
 * does without `--allow-env` (it throws `NotCapable`). Synchronous, so no
 * other code of the test runner sees the stand-in.
 */
function withoutEnvAccess<T>(fn: () => T): T {
  const real = Object.getOwnPropertyDescriptor(globalThis, "process");
  const refusing = new Proxy(
    {},
    {
      get() {
        throw new Error('NotCapable: Requires env access to "MEDRECORDS_LOG"');
      },
    },
  );
  Object.defineProperty(globalThis, "process", {
    value: { env: refusing, versions: {} },
    configurable: true,
    writable: true,
  });
  try {
    return fn();
  } finally {
    if (real) Object.defineProperty(globalThis, "process", real);
  }
}

describe("environment variables in a runtime that refuses access to them", () => {
  it("reads as unset instead of throwing", () => {
    expect(withoutEnvAccess(() => readEnv("MEDRECORDS_LOG"))).toBeUndefined();
    expect(withoutEnvAccess(() => proxyVariablesSet())).toEqual([]);
  });

  it("a client given its key and base URL is created and keeps its options", () => {
    const mr = withoutEnvAccess(
      () => new MedRecords({ apiKey: "mr_test_key", baseUrl: "https://api.example.com" }),
    );
    expect(mr.baseUrl).toBe("https://api.example.com");
  });

  it("without a key or base URL, the error still says what to pass", () => {
    expect(() =>
      withoutEnvAccess(() => new MedRecords({ baseUrl: "https://api.example.com" })),
    ).toThrow(/Missing API key/);
  });
});
