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
import { goesDirect } from "../../src/core/no-proxy.js";
import { nodeProxyRoute } from "../../src/core/transport.js";
import { MedRecords, MedRecordsError } from "../../src/index.js";
import { startMockServer } from "../../src/mock/index.js";

const PROXY_VARS = [
  "HTTP_PROXY",
  "http_proxy",
  "HTTPS_PROXY",
  "https_proxy",
  "NO_PROXY",
  "no_proxy",
  "NODE_USE_ENV_PROXY",
];
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

describe("a Node whose fetch cannot use the proxy, with NO_PROXY exempting the base URL's host", () => {
  /** Node 22.20's capabilities: no NODE_USE_ENV_PROXY, no setGlobalProxyFromEnv. */
  const node2220 = (variables: Record<string, string>) => {
    for (const name of PROXY_VARS) delete process.env[name];
    Object.assign(process.env, variables);
    (http as { setGlobalProxyFromEnv?: unknown }).setGlobalProxyFromEnv = undefined;
  };
  const make = (baseUrl: string) => () => new MedRecords({ apiKey: "mr_test_key", baseUrl });

  it("makes a client for a base URL whose host NO_PROXY names, and refuses one it does not", () => {
    node2220({ HTTPS_PROXY: "http://127.0.0.1:9", NO_PROXY: "localhost" });
    expect(make("https://localhost:8443")).not.toThrow();
    expect(make("https://api.example.com")).toThrow(/^HTTPS_PROXY is set, but Node\.js .*NO_PROXY/);
    node2220({ https_proxy: "http://127.0.0.1:9", no_proxy: "127.0.0.1:4010,.example.com" });
    expect(make("https://127.0.0.1:4010")).not.toThrow();
    expect(make("https://api.example.com")).not.toThrow();
    expect(make("https://127.0.0.1:4011")).toThrow(MedRecordsError);
  });

  it("reads the variables as Node's fetch does", () => {
    const cases: [Record<string, string>, string, boolean][] = [
      [{ HTTPS_PROXY: "http://p:1" }, "https://api.example.com", false],
      // HTTPS_PROXY serves https only: an http address goes direct.
      [{ HTTPS_PROXY: "http://p:1" }, "http://localhost:4010", true],
      [{ HTTP_PROXY: "http://p:1" }, "https://api.example.com", false],
      [{ HTTP_PROXY: "http://p:1", NO_PROXY: "*" }, "https://api.example.com", true],
      [
        { HTTP_PROXY: "http://p:1", NO_PROXY: "API.Example.com" },
        "https://api.example.com/v2",
        true,
      ],
      [{ HTTP_PROXY: "http://p:1", NO_PROXY: "example.com" }, "https://api.example.com", false],
      [{ HTTP_PROXY: "http://p:1", NO_PROXY: ".example.com" }, "https://api.example.com", true],
      [{ HTTP_PROXY: "http://p:1", NO_PROXY: "*.example.com" }, "https://api.example.com", true],
      [{ HTTP_PROXY: "http://p:1", NO_PROXY: "a.test, localhost" }, "http://localhost:80", true],
      [{ HTTP_PROXY: "http://p:1", NO_PROXY: "localhost:443" }, "https://localhost", true],
      [{ HTTP_PROXY: "http://p:1", NO_PROXY: "localhost:443" }, "https://localhost:8443", false],
      [{ HTTP_PROXY: "http://p:1", NO_PROXY: "[::1]" }, "http://[::1]:4010", true],
      [{ HTTP_PROXY: "http://p:1", NO_PROXY: " , " }, "http://localhost", false],
    ];
    for (const [variables, url, direct] of cases) {
      node2220(variables);
      expect(goesDirect(url), `${JSON.stringify(variables)} ${url}`).toBe(direct);
    }
  });

  it("sends calls to the exempt host direct, and refuses an upload to a host NO_PROXY leaves to the proxy", async () => {
    const server = await startMockServer();
    try {
      const port = new URL(server.url).port;
      // Nothing listens on port 9: a request sent to this proxy would fail to connect.
      node2220({ HTTP_PROXY: "http://127.0.0.1:9", NO_PROXY: `127.0.0.1:${port}` });
      const mr = new MedRecords({ apiKey: server.apiKeys.create(), baseUrl: server.url });
      const created = await mr.cases.create({ title: "Doe v. Acme", client_name: "Jane Doe" });
      expect((await mr.cases.retrieve(created.id)).id).toBe(created.id);
      // The storage origin is another port of 127.0.0.1: not exempt, so not sent around the proxy.
      const upload = mr.cases.uploadDocument(created.id, {
        file: new File(["%PDF-1.7"], "records.pdf", { type: "application/pdf" }),
      });
      await expect(upload).rejects.toThrow(/^HTTP_PROXY is set, but Node\.js /);
    } finally {
      await server.close();
    }
  });
});
