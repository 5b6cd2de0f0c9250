/**
 * `medrecords listen` across a restart of `medrecords mock`, with real
 * processes: the mock stops, listen says once that it cannot reach it and
 * keeps trying, the mock comes back on the same address with the same key
 * (MEDRECORDS_API_KEY), and listen forwards the events emitted after that.
 */
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { cliPath, runCli, startCli } from "../helpers/cli.js";
import { closeServer, listenOn } from "../helpers/loopback.js";

const waitLong = { timeout: 20_000, interval: 50 };

/** A receiver on loopback answering 200, keeping each body. */
async function startReceiver(): Promise<{ url: string; bodies: string[] }> {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      bodies.push(Buffer.concat(chunks).toString("utf8"));
      res.writeHead(200).end();
    });
  });
  const port = await listenOn(server);
  onTestFinished(() => closeServer(server));
  return { url: `http://127.0.0.1:${port}/webhooks`, bodies };
}

describe("medrecords listen across a restart of the mock", { timeout: 90_000 }, () => {
  it("says once that the mock is gone, tries again, and forwards the restarted mock's events", async () => {
    await cliPath();
    const key = `medrecords_sk_live_${randomBytes(16).toString("hex")}`;
    const startMock = async (port: string) => {
      const run = await startCli(["mock", "--port", port, "--json"], { MEDRECORDS_API_KEY: key });
      onTestFinished(() => {
        if (run.child.exitCode === null) run.child.kill("SIGKILL");
      });
      return { ...run, baseUrl: (JSON.parse(run.firstLine) as { base_url: string }).base_url };
    };
    const first = await startMock("0");
    const env = { MEDRECORDS_BASE_URL: first.baseUrl, MEDRECORDS_API_KEY: key };
    const receiver = await startReceiver();
    const triggered = async () => {
      const run = await runCli(["trigger", "retrieval_request.status_changed"], env);
      expect(run).toMatchObject({ code: 0, stderr: "" });
      return /retrieval request (\S+):/i.exec(run.stdout)?.[1] as string;
    };

    const listen = await startCli(
      ["listen", "--forward-to", receiver.url, "--interval", "100ms"],
      env,
    );
    onTestFinished(() => {
      if (listen.child.exitCode === null) listen.child.kill("SIGKILL");
    });
    let stderr = "";
    listen.child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const firstId = await triggered();
    await vi.waitFor(() => expect(listen.lines.join("\n")).toContain(firstId), waitLong);

    first.child.kill("SIGINT");
    expect((await first.exited).code).toBe(0);
    await vi.waitFor(() => expect(stderr).toContain("cannot reach the service"), waitLong);
    // Several tries go by (100 ms, 200 ms, 400 ms, 800 ms...) while the mock is down.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(listen.child.exitCode).toBeNull();

    const second = await startMock(new URL(first.baseUrl).port);
    expect(second.baseUrl).toBe(first.baseUrl);
    const secondId = await triggered();
    await vi.waitFor(() => expect(listen.lines.join("\n")).toContain(secondId), waitLong);
    expect(receiver.bodies.some((body) => body.includes(secondId))).toBe(true);

    // One line when the mock went away, one when it came back: not one per try.
    const lines = stderr.trimEnd().split("\n");
    expect(lines.filter((line) => line.includes("cannot reach"))).toHaveLength(1);
    expect(lines.filter((line) => line.includes("answers again"))).toHaveLength(1);
    expect(lines).toHaveLength(2);
    expect(stderr).toContain(`cannot reach the service at ${first.baseUrl} (ECONNREFUSED)`);
    expect(stderr).toContain("a new event log");
    expect(stderr).not.toContain(key);
    expect(listen.child.exitCode).toBeNull();
  });
});
