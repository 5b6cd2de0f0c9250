/**
 * API calls, uploads and downloads through a real forward proxy on loopback:
 * Debian's tinyproxy, started here on a free port with a generated config
 * (`.ci/run` installs it). Absent locally, the suite is skipped with a
 * warning; under CI it fails.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { eventsTail } from "../../src/cli/events-tail.js";
import { MedRecords } from "../../src/index.js";
import { type MockServer, startMockServer } from "../../src/mock/index.js";
import { freePort } from "../helpers/loopback.js";

const TINYPROXY = spawnSync("sh", ["-c", "command -v tinyproxy"], {
  encoding: "utf8",
}).stdout.trim();
if (TINYPROXY === "") {
  if (process.env.CI)
    throw new Error("tinyproxy is not installed: .ci/run installs it (apt-get install tinyproxy)");
  console.warn(
    "\n*** test/core/proxy.test.ts SKIPPED: tinyproxy is not installed (apt-get install -y tinyproxy) ***\n",
  );
}

const PROXY_VARS = [
  "HTTP_PROXY",
  "http_proxy",
  "HTTPS_PROXY",
  "https_proxy",
  "NO_PROXY",
  "no_proxy",
];

describe.skipIf(TINYPROXY === "")("through a forward proxy (tinyproxy)", () => {
  let dir: string;
  let proxy: ChildProcess;
  let proxyUrl: string;
  let mock: MockServer;
  const saved = Object.fromEntries(PROXY_VARS.map((name) => [name, process.env[name]]));

  /** The request lines tinyproxy logged, e.g. `GET http://127.0.0.1:4010/v2/cases HTTP/1.1`. */
  const proxied = () =>
    [
      ...readFileSync(join(dir, "tinyproxy.log"), "utf8").matchAll(
        /Request \(file descriptor \d+\): (.+)$/gm,
      ),
    ].map((m) => m[1]!);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "medrecords-proxy-"));
    const port = await freePort();
    writeFileSync(
      join(dir, "tinyproxy.conf"),
      [
        `Port ${port}`,
        "Listen 127.0.0.1",
        "Timeout 30",
        `LogFile "${join(dir, "tinyproxy.log")}"`,
        "LogLevel Info",
        "MaxClients 20",
        "Allow 127.0.0.1",
        "DisableViaHeader Yes",
      ].join("\n"),
    );
    writeFileSync(join(dir, "tinyproxy.log"), "");
    proxy = spawn(TINYPROXY, ["-d", "-c", join(dir, "tinyproxy.conf")], { stdio: "ignore" });
    proxyUrl = `http://127.0.0.1:${port}`;
    // Ready once it accepts a connection.
    for (let i = 0; ; i++) {
      const ok = await fetch(proxyUrl).then(
        () => true,
        () => false,
      );
      if (ok) break;
      if (i > 100) throw new Error("tinyproxy did not start");
      await sleep(50);
    }
    mock = await startMockServer({ now: "2026-06-15T12:00:00.000Z" });
  });

  afterEach(() => {
    for (const name of PROXY_VARS) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
    writeFileSync(join(dir, "tinyproxy.log"), "");
  });

  afterAll(async () => {
    await mock?.close();
    proxy?.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  async function roundTrip() {
    const mr = new MedRecords({
      apiKey: mock.apiKeys.create(),
      baseUrl: mock.baseUrl,
      maxRetries: 0,
    });
    const kase = await mr.cases.create({ title: "Doe v. Acme", client_name: "Jane Doe" });
    const doc = await mr.cases.uploadDocument(kase.id, {
      file: new TextEncoder().encode("through the proxy"),
      file_name: "a.txt",
      file_type: "text/plain",
    });
    expect(await (await mr.documents.content(doc.id)).text()).toBe("through the proxy");
    return { kase, doc };
  }

  it("sends API calls, the upload PUT and the download GET through HTTP_PROXY", async () => {
    for (const name of PROXY_VARS) delete process.env[name];
    process.env.HTTP_PROXY = proxyUrl;
    const { kase, doc } = await roundTrip();
    const lines = proxied();
    expect(lines).toContain(`POST ${mock.baseUrl}/v2/cases HTTP/1.1`);
    expect(lines.some((l) => l.startsWith(`PUT ${mock.storageUrl}/uploads/`))).toBe(true);
    expect(lines).toContain(`POST ${mock.baseUrl}/v2/cases/${kase.id}/documents HTTP/1.1`);
    expect(lines).toContain(`GET ${mock.baseUrl}/v2/documents/${doc.id}/download HTTP/1.1`);
    expect(lines.some((l) => l.startsWith(`GET ${mock.storageUrl}/downloads/`))).toBe(true);
  });

  it("honours the lower-case http_proxy too", async () => {
    for (const name of PROXY_VARS) delete process.env[name];
    process.env.http_proxy = proxyUrl;
    await roundTrip();
    expect(proxied().length).toBeGreaterThanOrEqual(5);
  });

  it("bypasses the proxy for a host in NO_PROXY", async () => {
    for (const name of PROXY_VARS) delete process.env[name];
    process.env.HTTP_PROXY = proxyUrl;
    process.env.NO_PROXY = "127.0.0.1";
    await roundTrip();
    expect(proxied()).toEqual([]);
  });

  it("a proxy variable set after the client was made is not used (read with the key, not per request)", async () => {
    for (const name of PROXY_VARS) delete process.env[name];
    const mr = new MedRecords({ apiKey: mock.apiKeys.create(), baseUrl: mock.baseUrl });
    process.env.HTTP_PROXY = proxyUrl;
    const kase = await mr.cases.create({ title: "Doe v. Acme", client_name: "Jane Doe" });
    await mr.cases.uploadDocument(kase.id, {
      file: new TextEncoder().encode("direct"),
      file_name: "a.txt",
      file_type: "text/plain",
    });
    expect(proxied()).toEqual([]);
  });

  it("the CLI's API calls go through it too (events tail)", async () => {
    for (const name of PROXY_VARS) delete process.env[name];
    process.env.HTTP_PROXY = proxyUrl;
    const io = {
      stdout: () => undefined,
      stderr: () => undefined,
      env: { MEDRECORDS_API_KEY: mock.apiKeys.create(), MEDRECORDS_BASE_URL: mock.baseUrl },
      signal: new AbortController().signal,
    };
    expect(await eventsTail(["--once"], io)).toBe(0);
    expect(proxied().some((l) => l.startsWith(`GET ${mock.baseUrl}/v2/events`))).toBe(true);
  });

  it("without a proxy variable, nothing goes through the proxy", async () => {
    for (const name of PROXY_VARS) delete process.env[name];
    await roundTrip();
    expect(proxied()).toEqual([]);
  });
});
