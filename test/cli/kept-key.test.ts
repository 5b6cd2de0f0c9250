/**
 * `medrecords mock` keeps the key of MEDRECORDS_API_KEY across restarts
 * (DESIGN 11.1): registered with every scope or --scopes, never printed
 * back; a value of another shape is ignored with a warning naming the
 * variable, never the value; a well-shaped key the mock does not know gets a
 * 401 that says why.
 */
import { describe, expect, it, onTestFinished } from "vitest";
import { cliPath, startCli } from "../helpers/cli.js";

const KEPT = "medrecords_sk_live_kept9f3c2a1b0e8d7c6b5a4f3e2d1c0b";

interface StartInfo {
  base_url: string;
  api_key?: string;
  api_key_from?: string;
}

async function startMock(args: string[], env: Record<string, string | undefined>) {
  await cliPath();
  const run = await startCli(["mock", "--clock", "manual", "--json", ...args], env);
  onTestFinished(() => {
    if (run.child.exitCode === null) run.child.kill("SIGKILL");
  });
  const stop = async () => {
    run.child.kill("SIGTERM");
    return run.exited;
  };
  return { info: JSON.parse(run.firstLine) as StartInfo, firstLine: run.firstLine, stop };
}

async function get(baseUrl: string, key: string, method = "GET") {
  const response = await fetch(`${baseUrl}/v2/cases`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    ...(method === "POST" ? { body: JSON.stringify({ title: "T", client_name: "C" }) } : {}),
  });
  return {
    status: response.status,
    body: (await response.json()) as { error?: { message: string } },
  };
}

describe("medrecords mock and MEDRECORDS_API_KEY", { timeout: 60_000 }, () => {
  it("accepts the key from the environment, never prints it, and accepts it again after a restart", async () => {
    const first = await startMock(["--port", "0", "--scopes", "cases:read"], {
      MEDRECORDS_API_KEY: KEPT,
    });
    expect(first.info.api_key).toBeUndefined();
    expect(first.info.api_key_from).toBe("MEDRECORDS_API_KEY");
    expect(first.firstLine).not.toContain(KEPT);
    expect((await get(first.info.base_url, KEPT)).status).toBe(200);
    // --scopes applies to it.
    expect((await get(first.info.base_url, KEPT, "POST")).status).toBe(403);
    const port = new URL(first.info.base_url).port;
    const ended = await first.stop();
    expect(ended.stdout + ended.stderr).not.toContain(KEPT);

    // The same key, the same address, after a restart: nothing to hand out again.
    const second = await startMock(["--port", port], { MEDRECORDS_API_KEY: KEPT });
    expect(second.info.base_url).toBe(first.info.base_url);
    expect((await get(second.info.base_url, KEPT)).status).toBe(200);
    expect((await get(second.info.base_url, KEPT, "POST")).status).toBe(201);
    const text = await startCli(["mock", "--port", "0", "--clock", "manual"], {
      MEDRECORDS_API_KEY: KEPT,
    });
    onTestFinished(() => void text.child.kill("SIGKILL"));
    const lines = [text.firstLine];
    await new Promise((resolve) => setTimeout(resolve, 200));
    lines.push(...text.lines);
    expect(lines.join("\n")).not.toContain(KEPT);
    expect(lines.join("\n")).toContain("MEDRECORDS_API_KEY");
  });

  it("ignores a value of another shape with a warning naming the variable, never the value, and prints a key", async () => {
    const odd = "sk_test_someone_elses_key_0123456789";
    await cliPath();
    const run = await startCli(["mock", "--port", "0", "--clock", "manual", "--json"], {
      MEDRECORDS_API_KEY: odd,
    });
    onTestFinished(() => void run.child.kill("SIGKILL"));
    const info = JSON.parse(run.firstLine) as StartInfo;
    expect(info.api_key).toMatch(/^medrecords_sk_live_[0-9A-Za-z]{32}$/);
    expect((await get(info.base_url, info.api_key as string)).status).toBe(200);
    expect((await get(info.base_url, odd)).status).toBe(401);
    run.child.kill("SIGTERM");
    const ended = await run.exited;
    expect(ended.stderr).toContain("MEDRECORDS_API_KEY");
    expect(ended.stderr).toContain("ignored");
    expect(ended.stderr + ended.stdout).not.toContain(odd);
  });

  it("answers a key minted before a restart with a 401 that says keys do not survive one unless given in MEDRECORDS_API_KEY", async () => {
    const first = await startMock(["--port", "0"], { MEDRECORDS_API_KEY: undefined });
    const printed = first.info.api_key as string;
    expect((await get(first.info.base_url, printed)).status).toBe(200);
    const port = new URL(first.info.base_url).port;
    await first.stop();
    const second = await startMock(["--port", port], { MEDRECORDS_API_KEY: undefined });
    const refused = await get(second.info.base_url, printed);
    expect(refused.status).toBe(401);
    expect(refused.body.error?.message).toMatch(
      /do not survive a restart unless given in MEDRECORDS_API_KEY/,
    );
    expect(refused.body.error?.message).not.toContain(printed);
  });

  it("takes no key as a flag", async () => {
    const run = await startCli(["mock", "--api-key", KEPT]).catch((error: Error) => error);
    expect(String(run)).toMatch(/not taken as a flag/);
    expect(String(run)).not.toContain(KEPT);
  });
});

describe("medrecords mock ids across restarts", { timeout: 60_000 }, () => {
  async function firstCaseId(args: string[]): Promise<string> {
    const mock = await startMock(["--port", "0", ...args], { MEDRECORDS_API_KEY: KEPT });
    const response = await fetch(`${mock.info.base_url}/v2/cases`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEPT}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "Doe v. Acme", client_name: "Jane Doe" }),
    });
    const { id } = (await response.json()) as { id: string };
    await mock.stop();
    return id;
  }

  it("hands out new ids after a restart; --id-seed makes them the same", async () => {
    expect(await firstCaseId([])).not.toBe(await firstCaseId([]));
    const seeded = await firstCaseId(["--id-seed", "walkthrough"]);
    expect(await firstCaseId(["--id-seed", "walkthrough"])).toBe(seeded);
    expect(await firstCaseId(["--id-seed", "another"])).not.toBe(seeded);
  });
});
