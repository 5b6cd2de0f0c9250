/**
 * The local development loop over real processes and sockets: `medrecords
 * mock` (real clock, autopilot) in one child process, `medrecords listen`
 * forwarding to a receiver on loopback in another, `medrecords trigger`
 * making the mock emit events.
 */
import { readFile } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders } from "node:http";
import { join } from "node:path";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { MedRecords } from "../../src/index.js";
import { SUBSCRIBABLE_EVENT_TYPES } from "../../src/schemas/events.js";
import type { Checkpoint } from "../../src/shared/checkpoint-store.js";
import { verifyWebhook } from "../../src/webhooks/index.js";
import { cliPath, runCli, runCliWithoutReader, startCli } from "../helpers/cli.js";
import { closeServer, listenOn } from "../helpers/loopback.js";
import { tempDir } from "../poller/helpers.js";

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

interface MockInfo {
  base_url: string;
  api_key: string;
  control_url: string;
}

/** A receiver on loopback answering each delivery with the next of `statuses` (then 200). */
async function startReceiver(statuses: number[] = []): Promise<{ url: string; got: Received[] }> {
  const got: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(statuses.shift() ?? 200).end();
    });
  });
  const port = await listenOn(server);
  onTestFinished(() => closeServer(server));
  return { url: `http://127.0.0.1:${port}/webhooks/medrecords`, got };
}

/** `medrecords mock --port 0 --json <args>` until the test ends. */
async function startMock(args: string[] = []): Promise<MockInfo> {
  await cliPath();
  const { child, firstLine } = await startCli(["mock", "--port", "0", "--json", ...args]);
  onTestFinished(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });
  return JSON.parse(firstLine) as MockInfo;
}

function envOf(mock: MockInfo): Record<string, string> {
  return { MEDRECORDS_BASE_URL: mock.base_url, MEDRECORDS_API_KEY: mock.api_key };
}

/** `medrecords listen` until the test ends; resolves once it is ready, with the secret it printed. */
async function startListen(mock: MockInfo, args: string[]) {
  const run = await startCli(["listen", "--interval", "50ms", ...args], envOf(mock));
  onTestFinished(() => {
    if (run.child.exitCode === null) run.child.kill("SIGKILL");
  });
  const secret = /whsec_\w+/.exec(run.firstLine)?.[0];
  return { ...run, secret };
}

async function trigger(mock: MockInfo, args: string[]) {
  const run = await runCli(["trigger", ...args], { MEDRECORDS_BASE_URL: mock.base_url });
  expect(run).toMatchObject({ code: 0, stderr: "" });
  return run;
}

function retrievalIdOf(output: string): string {
  const id = /retrieval request (\S+):/i.exec(output)?.[1];
  if (id === undefined) throw new Error(`no retrieval request id in: ${output}`);
  return id;
}

const waitLong = { timeout: 25_000, interval: 50 };
/** Several child processes per test, on a machine that may be busy. */
const slow = { timeout: 90_000 };

describe("medrecords listen", slow, () => {
  it("delivers each new event to the receiver, signed so that verifyWebhook accepts it with the printed secret", async () => {
    const mock = await startMock(["--clock", "manual"]);
    const receiver = await startReceiver();
    const listen = await startListen(mock, ["--forward-to", receiver.url]);
    expect(listen.secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);

    const triggered = await trigger(mock, ["retrieval_request.status_changed"]);
    const id = retrievalIdOf(triggered.stdout);
    await vi.waitFor(() => expect(receiver.got).toHaveLength(1), waitLong);
    const [delivery] = receiver.got as [Received];
    const event = await verifyWebhook({
      payload: delivery.body,
      headers: delivery.headers,
      secret: listen.secret as string,
    });
    expect(event.type).toBe("retrieval_request.status_changed");
    expect(event.data).toMatchObject({ retrieval_request_id: id });
    // The body is the delivery's, not the log entry's: no object, api_version or log-only fields.
    expect(Object.keys(JSON.parse(delivery.body))).toEqual(["id", "type", "created_at", "data"]);
    expect(delivery.headers["content-type"]).toBe("application/json");
    await vi.waitFor(
      () =>
        expect(listen.lines).toContainEqual(
          expect.stringMatching(
            new RegExp(
              `^${event.created_at}  retrieval_request\\.status_changed  ${event.id.slice(0, 11)}  ${id}  processing/provider_processing  200  \\d+ms$`,
            ),
          ),
        ),
      waitLong,
    );
  });

  it("starts with events written after it started, not the log's past", async () => {
    const mock = await startMock(["--clock", "manual"]);
    const before = await trigger(mock, ["retrieval_request.status_changed"]);
    const receiver = await startReceiver();
    await startListen(mock, ["--forward-to", receiver.url]);
    const after = await trigger(mock, ["retrieval_request.status_changed"]);
    await vi.waitFor(() => expect(receiver.got).toHaveLength(1), waitLong);
    const ids = receiver.got.map((d) => JSON.parse(d.body).data.retrieval_request_id);
    expect(ids).toEqual([retrievalIdOf(after.stdout)]);
    expect(ids).not.toContain(retrievalIdOf(before.stdout));
  });

  it("follows a mock whose clock runs far ahead of this machine's (--now a day ahead): the poller judges by the service's Date header", async () => {
    const ahead = new Date(Date.now() + 86_400_000).toISOString();
    const mock = await startMock(["--clock", "manual", "--now", ahead]);
    const receiver = await startReceiver();
    await startListen(mock, ["--forward-to", receiver.url]);
    const first = await trigger(mock, ["retrieval_request.status_changed"]);
    await vi.waitFor(() => expect(receiver.got).toHaveLength(1), waitLong);
    const second = await trigger(mock, ["retrieval_request.status_changed"]);
    await vi.waitFor(() => expect(receiver.got).toHaveLength(2), waitLong);
    expect(receiver.got.map((d) => JSON.parse(d.body).data.retrieval_request_id)).toEqual([
      retrievalIdOf(first.stdout),
      retrievalIdOf(second.stdout),
    ]);
  });

  it("retries a delivery the receiver answered 500, and the receiver gets the same event again", async () => {
    const mock = await startMock(["--clock", "manual"]);
    const receiver = await startReceiver([500]);
    const listen = await startListen(mock, ["--forward-to", receiver.url]);
    await trigger(mock, ["retrieval_request.status_changed"]);
    await vi.waitFor(() => expect(receiver.got).toHaveLength(2), waitLong);
    const [first, second] = receiver.got.map((d) => JSON.parse(d.body).id);
    expect(second).toBe(first);
    await vi.waitFor(() => expect(listen.lines).toHaveLength(3), waitLong);
    expect(listen.lines[1]).toMatch(/ {2}500 {2}\d+ms {2}attempt 1 of 5, retry in 1s$/);
    expect(listen.lines[2]).toMatch(/ {2}200 {2}\d+ms$/);
  });

  it("ends on SIGINT with exit code 0 and the delivered event in its checkpoint, and resumes after it", async () => {
    const mock = await startMock(["--clock", "manual"]);
    const dir = await tempDir();
    onTestFinished(() => dir.remove());
    const file = join(dir.path, "listen.json");
    const receiver = await startReceiver();
    const listen = await startListen(mock, ["--forward-to", receiver.url, "--checkpoint", file]);
    await trigger(mock, ["retrieval_request.status_changed"]);
    await vi.waitFor(() => expect(listen.lines).toHaveLength(2), waitLong);
    const delivered = JSON.parse((receiver.got[0] as Received).body) as { id: string };

    listen.child.kill("SIGINT");
    const run = await listen.exited;
    expect({ code: run.code, signal: run.signal, stderr: run.stderr }).toEqual({
      code: 0,
      signal: null,
      stderr: "",
    });
    const saved = JSON.parse(await readFile(file, "utf8")) as Checkpoint;
    expect(saved.ids_at_created_at).toContain(delivered.id);

    // A restart with the checkpoint forwards what came meanwhile, and not the delivered one again.
    const meanwhile = await trigger(mock, ["retrieval_request.status_changed"]);
    await startListen(mock, ["--forward-to", receiver.url, "--checkpoint", file]);
    await vi.waitFor(() => expect(receiver.got).toHaveLength(2), waitLong);
    const second = JSON.parse((receiver.got[1] as Received).body);
    expect(second.data.retrieval_request_id).toBe(retrievalIdOf(meanwhile.stdout));
  });

  it("ends with exit code 0 and a saved checkpoint when its output is closed", async () => {
    const mock = await startMock(["--clock", "manual"]);
    const dir = await tempDir();
    onTestFinished(() => dir.remove());
    const file = join(dir.path, "listen.json");
    await trigger(mock, ["retrieval_request.status_changed"]);
    const run = await runCliWithoutReader(
      ["listen", "--forward-to", "http://127.0.0.1:9/hooks", "--checkpoint", file],
      envOf(mock),
    );
    expect(run).toMatchObject({ code: 0, signal: null, stdout: "", stderr: "" });
    const saved = JSON.parse(await readFile(file, "utf8")) as Checkpoint;
    expect(saved.ids_at_created_at).toHaveLength(1);
  });

  it.each([
    [["--forward-to", "ftp://x"], /--forward-to must be an http or https address/],
    [[], /--forward-to <url> is required/],
    [["--forward-to", "http://localhost:3000", "--events", "webhook.disabled"], /--events:/],
    [["--forward-to", "http://localhost:3000", "--retry-schedule", "fast"], /--retry-schedule/],
    [["--forward-to", "http://localhost:3000", "--since", "yesterday"], /--since needs/],
    [["--forward-to", "http://localhost:3000", "--bogus"], /Unknown option '--bogus'/],
  ])("listen %j is a usage mistake: one line, exit code 2", async (args, message) => {
    const run = await runCli(["listen", ...args], {
      MEDRECORDS_BASE_URL: "http://127.0.0.1:9",
      MEDRECORDS_API_KEY: "medrecords_sk_live_x",
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
  });
});

describe("medrecords trigger", slow, () => {
  it("makes the mock emit each event type it names, on a new or a given retrieval request", async () => {
    const mock = await startMock(["--clock", "manual"]);
    const mr = new MedRecords({ apiKey: mock.api_key, baseUrl: mock.base_url });
    let id: string | undefined;
    for (const type of SUBSCRIBABLE_EVENT_TYPES) {
      const run = await trigger(mock, [
        type,
        ...(id === undefined ? [] : ["--retrieval-request", id]),
      ]);
      expect(run.stdout).toContain(`the mock emitted ${type}`);
      id ??= retrievalIdOf(run.stdout);
      expect(retrievalIdOf(run.stdout)).toBe(id);
      const events = await mr.events.list({ type: [type] });
      expect(
        events.results.map(
          (e) => (e.data as { retrieval_request_id?: string }).retrieval_request_id,
        ),
      ).toEqual([id]);
    }
  });

  it.each([
    ["retrieval_request.exploded", /unknown event type "retrieval_request\.exploded"/],
    ["webhook.test", /webhook\.test is not a provider-side change/],
  ])("refuses %s in one line with exit code 2", async (type, message) => {
    const run = await runCli(["trigger", type], { MEDRECORDS_BASE_URL: "http://127.0.0.1:9" });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
  });
});

describe("medrecords mock on the real clock", slow, () => {
  it("--autopilot at high speed moves a new retrieval request through every event type to completed", async () => {
    const mock = await startMock(["--autopilot", "--speed", "2000"]);
    const mr = new MedRecords({ apiKey: mock.api_key, baseUrl: mock.base_url });
    const auth_form = await mr.retrievalRequests.uploadFile({
      file: new TextEncoder().encode("%PDF-1.4\n%%EOF\n"),
      file_name: "authorization.pdf",
      file_type: "application/pdf",
    });
    const { id } = await mr.retrievalRequests.create({
      case: { title: "Autopilot v. Test (fictional)", client_name: "Alex Autopilot" },
      facility_id: "fac_mercy_general",
      requestor: { name: "Paralegal", email: "paralegal@firm.example" },
      auth_form,
    });
    await vi.waitFor(async () => {
      expect((await mr.retrievalRequests.retrieve(id)).status).toBe("completed");
    }, waitLong);
    const types = new Set<string>();
    for await (const event of mr.events.list({ object_id: id })) types.add(event.type);
    expect([...types].sort()).toEqual([...SUBSCRIBABLE_EVENT_TYPES].sort());
    const request = await mr.retrievalRequests.retrieve(id);
    expect(request.documents.map((d) => [d.kind, d.ready])).toEqual([
      ["record", true],
      ["invoice", true],
    ]);
  });

  it("clears the webhook test's rate limit by itself as the mock's time passes", async () => {
    // 4 times real time: the 10 s pass in 2.5 real seconds, ample for the second test to meet the limit.
    const mock = await startMock(["--speed", "4", "--allow-private-webhook-urls"]);
    const receiver = await startReceiver();
    const mr = new MedRecords({ apiKey: mock.api_key, baseUrl: mock.base_url, maxRetries: 0 });
    const webhook = await mr.webhooks.create({
      name: "local",
      url: receiver.url,
      events: ["retrieval_request.status_changed"],
    });
    await mr.webhooks.test(webhook.id);
    await expect(mr.webhooks.test(webhook.id)).rejects.toMatchObject({
      status: 429,
      message: expect.stringMatching(/retry in \d+ s of the mock's clock/),
    });
    // Nobody advances the clock: the test passes again once 10 s of mock time went by.
    await vi.waitFor(async () => expect((await mr.webhooks.test(webhook.id)).success).toBe(true), {
      timeout: 25_000,
      interval: 20,
    });
    expect(receiver.got.map((d) => JSON.parse(d.body).type)).toEqual([
      "webhook.test",
      "webhook.test",
    ]);
  });

  it.each([
    [["--clock", "fast"], /--clock must be "real" or "manual"/],
    [["--speed", "0"], /--speed must be a positive number/],
    [["--clock", "manual", "--speed", "10"], /--speed needs --clock real/],
  ])("mock %j is a usage mistake: one line, exit code 2", async (args, message) => {
    const run = await runCli(["mock", "--port", "0", ...args]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
  });
});
