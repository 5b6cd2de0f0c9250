/**
 * The README's two-terminal walkthrough, run with real processes: `medrecords
 * mock --autopilot` with MEDRECORDS_API_KEY set, the example receiver,
 * `medrecords trigger`, `medrecords listen --since --secret`. Then the
 * mock is restarted (same key, same address) and the walkthrough goes on:
 * the receiver, given the key once, still reads the API, and processes the
 * new request's events (new ids: its dedupe store sees no false duplicate).
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { main } from "../../examples/webhook-receiver.js";
import { cliPath, runCli, startCli } from "../helpers/cli.js";

const waitLong = { timeout: 40_000, interval: 100 };

interface MockInfo {
  base_url: string;
  api_key?: string;
}

describe("the README walkthrough against a restarted mock", { timeout: 120_000 }, () => {
  it("goes on after a restart with the same key: nothing handed out again, every event processed", async () => {
    await cliPath();
    const key = `medrecords_sk_live_${randomBytes(16).toString("hex")}`;
    const secret = `whsec_${randomBytes(16).toString("hex")}`;
    // A request's 3 hours of mock time in about 3 seconds.
    const startMock = async (port: string) => {
      const run = await startCli(
        ["mock", "--autopilot", "--speed", "3600", "--port", port, "--json"],
        { MEDRECORDS_API_KEY: key },
      );
      onTestFinished(() => {
        if (run.child.exitCode === null) run.child.kill("SIGKILL");
      });
      return { ...run, info: JSON.parse(run.firstLine) as MockInfo };
    };
    const first = await startMock("0");
    expect(first.info.api_key).toBeUndefined();
    const baseUrl = first.info.base_url;
    const env = { MEDRECORDS_BASE_URL: baseUrl, MEDRECORDS_API_KEY: key };

    // Terminal 2: the example receiver, given the key and the secret once.
    const logs: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: string) => void logs.push(line));
    onTestFinished(() => {
      vi.restoreAllMocks();
    });
    const receiver = await main({ ...env, MEDRECORDS_WEBHOOK_SECRET: secret, PORT: "0" });
    onTestFinished(() => receiver.close());

    const startListen = async () => {
      const run = await startCli(
        // 1d rather than the README's 1h: at 3600 times real time, an hour of mock time is a second.
        ["listen", "--since", "1d", "--secret", secret, "--interval", "100ms"].concat([
          "--forward-to",
          receiver.url,
        ]),
        env,
      );
      onTestFinished(() => {
        if (run.child.exitCode === null) run.child.kill("SIGKILL");
      });
      return run;
    };
    const triggerNew = async () => {
      const run = await runCli(["trigger", "retrieval_request.status_changed"], env);
      expect(run).toMatchObject({ code: 0, stderr: "" });
      return /retrieval request (\S+):/i.exec(run.stdout)?.[1] as string;
    };
    const processedAll = (id: string) => {
      for (const type of ["status_changed", "action_required", "documents_available"]) {
        expect(logs.join("\n")).toContain(`retrieval_request.${type}: ${id} `);
      }
      expect(logs.join("\n")).toContain(`: ${id} completed/completed`);
    };

    const firstId = await triggerNew();
    const listen = await startListen();
    await vi.waitFor(() => processedAll(firstId), waitLong);

    // Restart the mock on the same address with the same key; listen follows the new one.
    listen.child.kill("SIGINT");
    await listen.exited;
    first.child.kill("SIGINT");
    expect((await first.exited).code).toBe(0);
    const second = await startMock(new URL(baseUrl).port);
    expect(second.info.base_url).toBe(baseUrl);
    const before = logs.length;
    const secondId = await triggerNew();
    expect(secondId).not.toBe(firstId);
    await startListen();
    await vi.waitFor(() => processedAll(secondId), waitLong);
    // Nothing refused: no 401 from the API, no event answered as a duplicate instead of processed.
    expect(logs.slice(before).filter((line) => line.includes(secondId)).length).toBeGreaterThan(3);
  });
});
