/**
 * A proxy variable that is set is used, or refused loudly: never bypassed in
 * silence (issue 24, item 4). Which Node can send `fetch` through it, and
 * what the client and the CLI do where it cannot. The requests themselves go
 * through a real proxy in test/core/proxy.test.ts.
 */
import http from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { eventsTail } from "../../src/cli/events-tail.js";
import { CommandError } from "../../src/cli/usage-error.js";
import { nodeProxyRoute } from "../../src/core/transport.js";
import { MedRecords, MedRecordsError } from "../../src/index.js";

const PROXY_VARS = ["HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "NODE_USE_ENV_PROXY"];
const saved = Object.fromEntries(PROXY_VARS.map((name) => [name, process.env[name]]));
const setGlobal = http.setGlobalProxyFromEnv;

afterEach(() => {
  for (const name of PROXY_VARS) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  http.setGlobalProxyFromEnv = setGlobal;
});

describe("which Node sends fetch through a proxy variable", () => {
  it.each([
    // Before 22.21 (and 24.5) Node ignores NODE_USE_ENV_PROXY, and nothing can be handed to fetch.
    ["22.0.0", true, false, "unsupported"],
    ["22.20.0", true, false, "unsupported"],
    ["22.20.0", false, false, "unsupported"],
    ["22.21.0", true, false, "platform"],
    ["22.21.0", false, false, "unsupported"],
    ["24.4.0", true, false, "unsupported"],
    ["24.5.0", true, false, "platform"],
    ["24.13.0", false, false, "unsupported"],
    ["24.14.0", false, true, "dispatcher"],
    ["24.21.0", true, true, "platform"],
    ["25.0.0", false, true, "dispatcher"],
  ] as const)(
    "Node %s, NODE_USE_ENV_PROXY=1: %s, setGlobalProxyFromEnv: %s -> %s",
    (version, envProxyFlag, setGlobalProxyFromEnv, route) => {
      expect(nodeProxyRoute({ version, envProxyFlag, setGlobalProxyFromEnv })).toBe(route);
    },
  );
});

describe("a Node whose fetch cannot use the proxy (no NODE_USE_ENV_PROXY, no setGlobalProxyFromEnv)", () => {
  const unsupported = () => {
    for (const name of PROXY_VARS) delete process.env[name];
    process.env.HTTPS_PROXY = "http://user:s3cret-proxy-password@127.0.0.1:9";
    (http as { setGlobalProxyFromEnv?: unknown }).setGlobalProxyFromEnv = undefined;
  };

  it("refuses to make a client, naming the variable and what to do, never its value", () => {
    unsupported();
    const error = (() => {
      try {
        new MedRecords({ apiKey: "mr_test_key", baseUrl: "https://api.example.com" });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(MedRecordsError);
    const { message } = error as Error;
    expect(message).toMatch(/^HTTPS_PROXY is set, but Node\.js /);
    expect(message).toContain("NODE_USE_ENV_PROXY=1");
    expect(message).toContain("dispatcher");
    expect(message).not.toContain("s3cret");
  });

  it("still makes a client given its own fetch or dispatcher, which then route", () => {
    unsupported();
    const ownFetch = (() => Promise.reject(new Error("unused"))) as typeof fetch;
    expect(
      () => new MedRecords({ apiKey: "k", baseUrl: "https://api.example.com", fetch: ownFetch }),
    ).not.toThrow();
    expect(
      () =>
        new MedRecords({
          apiKey: "k",
          baseUrl: "https://api.example.com",
          fetchOptions: { dispatcher: {} },
        }),
    ).not.toThrow();
  });

  it("the CLI fails the command the same way instead of calling the service directly", async () => {
    unsupported();
    const stderr: string[] = [];
    const io = {
      stdout: () => undefined,
      stderr: (text: string) => void stderr.push(text),
      env: { MEDRECORDS_API_KEY: "mr_test_key", MEDRECORDS_BASE_URL: "https://api.example.com" },
      signal: new AbortController().signal,
    };
    const error = await eventsTail(["--once"], io).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommandError);
    expect((error as Error).message).toMatch(/^HTTPS_PROXY is set/);
    expect((error as Error).message).not.toContain("s3cret");
  });
});
