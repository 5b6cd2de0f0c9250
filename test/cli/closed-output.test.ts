/**
 * Every command, run as the real bin in a child process, ends cleanly when
 * the reader of its output goes away (`| head -c 10`, `| head -1`): exit 0,
 * nothing on stderr, and for `events tail --checkpoint` a saved position that
 * covers exactly the lines that went out, so a restart loses nothing.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import type { Checkpoint } from "../../src/index.js";
import { type MockServer, startMockServer } from "../../src/mock/index.js";
import { openApiDocument } from "../../src/openapi/document.js";
import { runCli, runCliPipedTo, runCliWithoutReader, startCli } from "../helpers/cli.js";
import { emitEventForTesting } from "../helpers/mock-internals.js";
import { tempDir } from "../poller/helpers.js";

const START = "2026-06-15T12:00:00.000Z";
/** Linux's default pipe capacity (as macOS's): what the CLI can write before `head` reads. */
const PIPE_CAPACITY = 64 * 1024;

async function useServer(): Promise<{ server: MockServer; env: Record<string, string> }> {
  const server = await startMockServer({ now: START, delivery: "inbox" });
  onTestFinished(() => server.close());
  return {
    server,
    env: { MEDRECORDS_API_KEY: server.apiKeys.create(), MEDRECORDS_BASE_URL: server.url },
  };
}

/** An event one second after the previous one, and its line as `events tail` prints it. */
function emit(server: MockServer, n: number): { id: string; created_at: string; line: string } {
  server.clock.advance("1s");
  const event = emitEventForTesting(server, "account.updated", { n });
  return { ...event, line: `${event.created_at}  account.updated  ${event.id}  -` };
}

describe("a closed output ends the command with exit code 0 and no stack trace", () => {
  it("medrecords openapi | head -c 10", async () => {
    const whole = `${JSON.stringify(openApiDocument(), null, 2)}\n`;
    // More than the pipe and head's reads can hold: head exits while the CLI is still writing.
    expect(Buffer.byteLength(whole)).toBeGreaterThan(2 * PIPE_CAPACITY);
    const run = await runCliPipedTo(["openapi"], "head -c 10");
    expect({ code: run.code, signal: run.signal, stderr: run.stderr }).toEqual({
      code: 0,
      signal: null,
      stderr: "",
    });
    expect(run.stdout).toBe(whole.slice(0, 10));
  });

  it("medrecords mock, its reader gone before the start-up lines: closes the server and exits", async () => {
    const run = await runCliWithoutReader(["mock", "--port", "0", "--json"]);
    expect(run).toMatchObject({ code: 0, signal: null, stdout: "", stderr: "" });
  });

  it("medrecords events tail --once, its reader gone before the first line", async () => {
    const { server, env } = await useServer();
    emit(server, 1);
    const run = await runCliWithoutReader(["events", "tail", "--once"], env);
    expect(run).toMatchObject({ code: 0, signal: null, stdout: "", stderr: "" });
  });
});

describe("events tail --checkpoint | head -1", () => {
  it("saves the events whose lines went out, not the one the closed pipe refused, which a restart prints", async () => {
    const { server, env } = await useServer();
    const dir = await tempDir();
    onTestFinished(() => dir.remove());
    const file = join(dir.path, "events.json");
    const first = emit(server, 1);

    const { child, firstLine, exited } = await startCli(
      ["events", "tail", "--since", START, "--checkpoint", file, "--interval", "20ms"],
      env,
    );
    onTestFinished(() => {
      if (child.exitCode === null) child.kill("SIGKILL");
    });
    expect(firstLine).toBe(first.line);
    // The reader has its line and goes away; the next event's line meets a closed pipe.
    child.stdout?.destroy();
    const second = emit(server, 2);

    const run = await exited;
    expect({ code: run.code, signal: run.signal, stderr: run.stderr }).toEqual({
      code: 0,
      signal: null,
      stderr: "",
    });
    const saved = JSON.parse(await readFile(file, "utf8")) as Checkpoint;
    expect(saved).toEqual({ created_at: first.created_at, ids_at_created_at: [first.id] });

    // At least once: the refused event prints on the restart; the printed one does not.
    const restart = await runCli(["events", "tail", "--once", "--checkpoint", file], env);
    expect(restart).toMatchObject({ code: 0, stderr: "", stdout: `${second.line}\n` });
  });
});
