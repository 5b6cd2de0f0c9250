/**
 * `medrecords mock` as a user in another language runs it: a child process,
 * talked to with plain fetch (no SDK), stopped with SIGTERM.
 */
import { createHmac } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders } from "node:http";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { cliPath, runCli, startCli } from "../helpers/cli.js";
import { closeServer, listenOn } from "../helpers/loopback.js";
import { tempDir } from "../poller/helpers.js";

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

async function useTempDir(): Promise<string> {
  const dir = await tempDir();
  onTestFinished(() => dir.remove());
  return dir.path;
}

/** A webhook receiver on loopback that keeps what it got. */
async function startReceiver(): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(200).end("ok");
    });
  });
  const port = await listenOn(server);
  onTestFinished(() => closeServer(server));
  return { url: `http://127.0.0.1:${port}/hooks/medrecords`, received };
}

interface StartInfo {
  base_url: string;
  api_key: string;
  storage_url: string;
  control_url: string;
}

describe("medrecords mock in a child process", () => {
  it("serves a full flow to plain fetch, delivers a webhook to a local receiver, and frees its port on SIGTERM", async () => {
    await cliPath();
    const receiver = await startReceiver();
    const { child, firstLine, exited } = await startCli([
      "mock",
      "--port",
      "0",
      "--json",
      "--allow-private-webhook-urls",
    ]);
    onTestFinished(() => {
      if (child.exitCode === null) child.kill("SIGKILL");
    });
    const info = JSON.parse(firstLine) as StartInfo;
    expect(info.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(info.api_key).toMatch(/^medrecords_sk_live_/);
    expect(new URL(info.storage_url).origin).not.toBe(new URL(info.base_url).origin);

    const api = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${info.base_url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${info.api_key}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: text === "" ? undefined : JSON.parse(text) };
    };
    const control = async (path: string, body?: unknown) => {
      const response = await fetch(`${info.control_url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body ?? {}),
      });
      return { status: response.status, body: await response.json() };
    };
    const upload = async (
      signed: { upload_url: string },
      type: string,
      bytes: Uint8Array<ArrayBuffer>,
    ) => {
      expect(signed.upload_url.startsWith(info.storage_url)).toBe(true);
      const put = await fetch(signed.upload_url, {
        method: "PUT",
        headers: { "content-type": type },
        body: bytes,
      });
      expect(put.status).toBe(200);
    };

    // A webhook to the receiver on loopback.
    const hook = await api("POST", "/v2/webhooks", {
      name: "local receiver",
      url: receiver.url,
      events: ["retrieval_request.status_changed"],
    });
    expect(hook.status).toBe(201);
    const secret = hook.body.secret as string;

    // A case, a document with real bytes, and the same bytes downloaded back.
    const created = await api("POST", "/v2/cases", {
      title: "Doe v. Acme",
      client_name: "Jane Doe",
    });
    expect(created.status).toBe(201);
    const caseId = created.body.id as string;
    const bytes = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 31) % 256);
    const signed = await api("POST", `/v2/cases/${caseId}/sign-upload`, {
      file_name: "scan.bin",
      file_type: "application/octet-stream",
    });
    expect(signed.status).toBe(200);
    await upload(signed.body, "application/octet-stream", bytes);
    const document = await api("POST", `/v2/cases/${caseId}/documents`, {
      upload_id: signed.body.upload_id,
    });
    expect(document.status).toBe(201);
    const link = await api("GET", `/v2/documents/${document.body.id}/download`);
    expect(link.status).toBe(200);
    const downloaded = await fetch(link.body.download_url);
    expect(new Uint8Array(await downloaded.arrayBuffer())).toEqual(bytes);

    // A retrieval request, then the provider moves it through the control API.
    const form = await api("POST", "/v2/retrieval-requests/sign-upload", {
      file_name: "authorization.pdf",
      file_type: "application/pdf",
    });
    await upload(form.body, "application/pdf", new TextEncoder().encode("%PDF-1.7\n%%EOF\n"));
    const request = await api("POST", "/v2/retrieval-requests", {
      case_id: caseId,
      facility: { name: "Harbor Clinic", address: "1 Pier St, Bay City, CA 94000" },
      requestor: { name: "Ann Counsel", email: "ann@firm.example" },
      auth_form: form.body.upload_id,
    });
    expect(request.status).toBe(201);
    const moved = await control(`/retrieval-requests/${request.body.id}/status`, {
      status: "processing",
      stage: "request_sent",
    });
    expect(moved.status).toBe(200);
    expect(moved.body.status).toBe("processing");
    expect((await control("/deliveries/flush")).status).toBe(200);

    // The receiver got the event, signed with the webhook's secret over the raw body.
    expect(receiver.received).toHaveLength(1);
    const [delivery] = receiver.received as [Received];
    const event = JSON.parse(delivery.body);
    expect(event).toMatchObject({
      type: "retrieval_request.status_changed",
      data: { retrieval_request_id: request.body.id, case_id: caseId },
    });
    const timestamp = delivery.headers["x-service-timestamp"] as string;
    const expected = createHmac("sha256", secret)
      .update(`${timestamp}.${delivery.body}`)
      .digest("hex");
    expect(delivery.headers["x-service-signature-v1"]).toBe(`v1=${expected}`);

    // SIGTERM: a clean exit, and both ports are free again.
    child.kill("SIGTERM");
    const run = await exited;
    expect(run).toMatchObject({ code: 0, signal: null });
    for (const url of [info.base_url, info.storage_url]) {
      const probe = createServer();
      await expect(listenOn(probe, Number(new URL(url).port))).resolves.toBeGreaterThan(0);
      await closeServer(probe);
    }
  });

  it("prints the inspector's address at start-up (also as inspector_url in --json), where the page is served", async () => {
    const { child, lines, exited } = await startCli(["mock", "--port", "0"]);
    onTestFinished(() => {
      if (child.exitCode === null) child.kill("SIGKILL");
    });
    await vi.waitFor(() => expect(lines).toContain("Stop with Ctrl-C."), { timeout: 10_000 });
    const base = /^ {2}base URL +(\S+)$/.exec(lines.find((l) => l.includes("base URL")) ?? "")?.[1];
    const line = lines.find((l) => l.startsWith("  inspector"));
    expect(line).toBe(`  inspector     ${base}/__mock/ui (open it in a browser on this machine)`);
    const page = await fetch(`${base}/__mock/ui`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(">Retrieval requests</h2>");
    child.kill("SIGTERM");
    await expect(exited).resolves.toMatchObject({ code: 0 });

    const json = await startCli(["mock", "--port", "0", "--json"]);
    onTestFinished(() => {
      if (json.child.exitCode === null) json.child.kill("SIGKILL");
    });
    const info = JSON.parse(json.firstLine) as StartInfo & { inspector_url: string };
    expect(info.inspector_url).toBe(`${info.base_url}/__mock/ui`);
    json.child.kill("SIGTERM");
    await expect(json.exited).resolves.toMatchObject({ code: 0 });
  });

  it("stops cleanly on SIGINT too", async () => {
    const { child, firstLine, exited } = await startCli(["mock", "--port", "0", "--json"]);
    expect(JSON.parse(firstLine).base_url).toMatch(/^http:/);
    child.kill("SIGINT");
    await expect(exited).resolves.toMatchObject({ code: 0 });
  });

  const WARNS = "warns on stderr that anyone reaching the port controls the mock";
  const SILENT = "prints no warning (loopback)";
  it.each([
    ["0.0.0.0", WARNS],
    ["localhost", SILENT],
    ["127.0.0.1", SILENT],
  ])("--host %s %s", async (host, outcome) => {
    const { child, firstLine, exited } = await startCli([
      "mock",
      "--port",
      "0",
      "--json",
      "--host",
      host,
    ]);
    onTestFinished(() => {
      if (child.exitCode === null) child.kill("SIGKILL");
    });
    expect(JSON.parse(firstLine).base_url).toMatch(/^http:/);
    child.kill("SIGTERM");
    const run = await exited;
    expect(run.code).toBe(0);
    if (outcome === WARNS) {
      expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
      expect(run.stderr).toMatch(
        new RegExp(
          `^medrecords mock: warning: listening on ${host}, not on loopback\\..*no authentication.*anyone who can reach this port controls the mock`,
        ),
      );
    } else {
      expect(run.stderr).toBe("");
    }
  });

  it("creates what a seed file holds and prints the seeded webhook's secret", async () => {
    const dir = await useTempDir();
    const seed = `${dir}/seed.json`;
    await writeFile(
      seed,
      JSON.stringify({
        now: "2026-03-01T09:00:00.000Z",
        cases: [{ title: "Seeded v. Case", client_name: "Sam Seed" }],
        webhooks: [
          {
            name: "seeded",
            url: "https://hooks.example.test/a",
            events: ["retrieval_request.status_changed"],
          },
        ],
      }),
    );
    const { child, firstLine, exited } = await startCli([
      "mock",
      "--port",
      "0",
      "--json",
      // The seed's time exactly, as a clock that stands still keeps it.
      "--clock",
      "manual",
      "--seed",
      seed,
    ]);
    onTestFinished(() => {
      if (child.exitCode === null) child.kill("SIGKILL");
    });
    const info = JSON.parse(firstLine) as StartInfo & {
      seeded: { cases: string[]; webhooks: { secret: string }[] };
    };
    expect(info.seeded.cases).toHaveLength(1);
    expect(info.seeded.webhooks[0]?.secret).toMatch(/^whsec_/);
    const response = await fetch(`${info.base_url}/v2/cases/${info.seeded.cases[0]}`, {
      headers: { authorization: `Bearer ${info.api_key}` },
    });
    expect(await response.json()).toMatchObject({
      title: "Seeded v. Case",
      created_at: "2026-03-01T09:00:00.000Z",
    });
    const clock = await fetch(`${info.control_url}/clock`);
    expect(await clock.json()).toEqual({ now: "2026-03-01T09:00:00.000Z" });
    child.kill("SIGTERM");
    await expect(exited).resolves.toMatchObject({ code: 0 });
  });
});

describe("medrecords mock refuses bad input with one line and a non-zero exit", () => {
  const oneLine = (text: string) => text.trimEnd().split("\n");

  it.each([
    [["mock", "--prot", "4010"], /unknown option '--prot'.*medrecords mock --help/i],
    [["mock", "--port"], /'--port <value>' argument missing/],
    [["mock", "--port", "70000"], /--port must be a port number from 0 to 65535/],
    [["mock", "--scopes", "cases:read,cases:delete"], /unknown scope "cases:delete"/],
    [["mock", "--delivery", "carrier-pigeon"], /--delivery must be "fetch" or "inbox"/],
    [["mock", "--now", "yesterday"], /--now must be an ISO 8601 date/],
    [["mock", "extra"], /unexpected argument "extra"/],
    [["mokc"], /unknown command "mokc"/],
  ])("%j exits 2", async (args, message) => {
    const run = await runCli(args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(oneLine(run.stderr)).toHaveLength(1);
    expect(run.stderr).toMatch(message);
  });

  it("an occupied port exits 1 naming the port", async () => {
    const blocker = createServer();
    const port = await listenOn(blocker);
    onTestFinished(() => closeServer(blocker));
    const run = await runCli(["mock", "--port", String(port)]);
    expect(run.code).toBe(1);
    expect(oneLine(run.stderr)).toEqual([
      `medrecords: API port ${port} on 127.0.0.1 is already in use.`,
    ]);
  });

  it("an unreadable seed file exits 1", async () => {
    const dir = await useTempDir();
    const missing = await runCli(["mock", "--port", "0", "--seed", `${dir}/absent.json`]);
    expect(missing.code).toBe(1);
    expect(oneLine(missing.stderr)).toEqual([
      `medrecords: cannot read seed file ${dir}/absent.json: no such file`,
    ]);

    await writeFile(`${dir}/broken.json`, "{ not json");
    const broken = await runCli(["mock", "--port", "0", "--seed", `${dir}/broken.json`]);
    expect(broken.code).toBe(1);
    expect(oneLine(broken.stderr)).toHaveLength(1);
    expect(broken.stderr).toMatch(/seed file .*broken\.json is not JSON/);

    // The file's own shape: an unknown key, a list that is not an array, a time that is not one.
    for (const [name, content, said] of [
      ["unknown-key", { cases: [], tasks: [] }, /the top level: .*tasks/],
      ["not-array", { webhooks: {} }, /"webhooks": .*array/],
      ["bad-now", { now: "yesterday" }, /"now": must be an ISO 8601 date/],
      ["not-object", [], /the top level: .*object/],
    ] as const) {
      await writeFile(`${dir}/${name}.json`, JSON.stringify(content));
      const shaped = await runCli(["mock", "--port", "0", "--seed", `${dir}/${name}.json`]);
      expect(shaped.code, name).toBe(1);
      expect(oneLine(shaped.stderr), name).toHaveLength(1);
      expect(shaped.stderr, name).toMatch(said);
    }

    await writeFile(`${dir}/refused.json`, JSON.stringify({ cases: [{ title: "" }] }));
    const refused = await runCli(["mock", "--port", "0", "--seed", `${dir}/refused.json`]);
    expect(refused.code).toBe(1);
    expect(oneLine(refused.stderr)).toHaveLength(1);
    expect(refused.stderr).toMatch(/cases\[0\] was refused \(400 validation_error\)/);
  });

  it("--help prints the options and exits 0", async () => {
    const run = await runCli(["mock", "--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/--port <n>/);
    expect(run.stdout).toMatch(/--seed <file\.json>/);
  });
});
