/**
 * `medrecords listen`'s secret, in-process against the reference server's
 * own fetch: taken from MEDRECORDS_WEBHOOK_SECRET or --secret-file so that it
 * stays out of the process list; --secret still works, with a warning.
 */

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { listenCommand } from "../../src/cli/listen.js";
import { CommandError, type CommandIo, UsageError } from "../../src/cli/usage-error.js";
import { createMockService, type MockService } from "../../src/mock/index.js";
import { verifyWebhook } from "../../src/webhooks/index.js";
import { closeServer, listenOn } from "../helpers/loopback.js";
import { emitEventForTesting } from "../helpers/mock-internals.js";

const SECRET = "whsec_0123456789abcdefghijABCDEFGHIJ01";
const NOW = "2026-06-15T12:00:00.000Z";

let mock: MockService;
let dir: string;
beforeEach(async () => {
  mock = createMockService({ now: NOW, delivery: "inbox" });
  dir = await mkdtemp(join(tmpdir(), "medrecords-listen-secret-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function receiver() {
  const got: Array<{ headers: Record<string, string | string[] | undefined>; body: string }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(200).end();
    });
  });
  const port = await listenOn(server);
  onTestFinished(() => closeServer(server));
  return { url: `http://127.0.0.1:${port}/hook`, got };
}

function start(argv: string[], env: Record<string, string> = {}) {
  const controller = new AbortController();
  const out: string[] = [];
  const err: string[] = [];
  const io: CommandIo = {
    stdout: (text) => void out.push(text),
    stderr: (text) => void err.push(text),
    env: { MEDRECORDS_API_KEY: mock.apiKeys.create(), MEDRECORDS_BASE_URL: mock.baseUrl, ...env },
    signal: controller.signal,
  };
  const done = listenCommand(["--interval", "20ms", ...argv], io, { fetch: mock.fetch });
  onTestFinished(async () => {
    controller.abort();
    await done.catch(() => undefined);
  });
  return { done, out, err, stop: () => controller.abort() };
}

/** Runs listen until one event reached the receiver; returns what it printed and the delivery. */
async function deliverOne(argv: string[], env: Record<string, string> = {}) {
  const hook = await receiver();
  const run = start(["--forward-to", hook.url, ...argv], env);
  await vi.waitFor(() => expect(run.out.join("")).toMatch(/^Ready: /), { timeout: 5_000 });
  emitEventForTesting(mock, "retrieval_request.status_changed", {
    retrieval_request_id: "rr_1",
    case_id: null,
    public_updated_at: NOW,
  });
  await vi.waitFor(() => expect(hook.got).toHaveLength(1), { timeout: 5_000 });
  run.stop();
  expect(await run.done).toBe(0);
  return { ...run, delivery: hook.got[0]! };
}

describe("medrecords listen's secret", () => {
  it("signs with MEDRECORDS_WEBHOOK_SECRET, names the source and never prints the secret", async () => {
    const { out, err, delivery } = await deliverOne([], { MEDRECORDS_WEBHOOK_SECRET: SECRET });
    await expect(
      verifyWebhook({
        payload: delivery.body,
        headers: delivery.headers,
        secret: SECRET,
      }),
    ).resolves.toMatchObject({ type: "retrieval_request.status_changed" });
    expect(out[0]).toContain("signed with the secret from MEDRECORDS_WEBHOOK_SECRET");
    expect(out.join("") + err.join("")).not.toContain(SECRET);
  });

  it("signs with the secret in --secret-file (its line end trimmed)", async () => {
    const file = join(dir, "secret");
    await writeFile(file, `${SECRET}\n`);
    const { out, err, delivery } = await deliverOne(["--secret-file", file], {
      MEDRECORDS_WEBHOOK_SECRET: "whsec_the_environment_loses",
    });
    await expect(
      verifyWebhook({
        payload: delivery.body,
        headers: delivery.headers,
        secret: SECRET,
      }),
    ).resolves.toBeDefined();
    expect(out[0]).toContain(`signed with the secret from ${file}`);
    expect(err).toEqual([]);
  });

  it("still takes --secret, with a warning that the process list shows it", async () => {
    const { err, delivery } = await deliverOne(["--secret", SECRET]);
    await expect(
      verifyWebhook({
        payload: delivery.body,
        headers: delivery.headers,
        secret: SECRET,
      }),
    ).resolves.toBeDefined();
    expect(err.join("")).toMatch(
      /warning: --secret puts the secret in the process list.*MEDRECORDS_WEBHOOK_SECRET.*--secret-file/,
    );
    expect(err.join("")).not.toContain(SECRET);
  });

  it("refuses a file that is missing or does not hold a secret, without showing its content", async () => {
    const missing = start([
      "--forward-to",
      "http://127.0.0.1:9/h",
      "--secret-file",
      join(dir, "none"),
    ]);
    await expect(missing.done).rejects.toThrow(CommandError);
    const file = join(dir, "wrong");
    await writeFile(file, "medrecords_sk_live_notasecret\n");
    const wrong = start(["--forward-to", "http://127.0.0.1:9/h", "--secret-file", file]);
    const error = await wrong.done.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommandError);
    expect((error as Error).message).toContain(file);
    expect((error as Error).message).not.toContain("notasecret");
  });

  it("refuses --secret with --secret-file, and a malformed MEDRECORDS_WEBHOOK_SECRET without echoing it", async () => {
    const both = start([
      "--forward-to",
      "http://127.0.0.1:9/h",
      "--secret",
      SECRET,
      "--secret-file",
      "x",
    ]);
    await expect(both.done).rejects.toThrow(UsageError);
    const bad = start(["--forward-to", "http://127.0.0.1:9/h"], {
      MEDRECORDS_WEBHOOK_SECRET: "hunter2",
    });
    const error = await bad.done.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommandError);
    expect((error as Error).message).toContain("MEDRECORDS_WEBHOOK_SECRET");
    expect((error as Error).message).not.toContain("hunter2");
  });
});
