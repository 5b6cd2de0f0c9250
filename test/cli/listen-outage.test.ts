/**
 * `medrecords listen` when the service stops answering for a while, in
 * process against the reference server's own fetch: one line says so (the
 * client's own lines for each failed attempt are left out), it tries again
 * with backoff, and once the same log answers again it resumes from its
 * checkpoint: an event written during the outage is forwarded, none twice.
 * Unreachable at start, it fails at once, as before.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { listenCommand } from "../../src/cli/listen.js";
import { CommandError, type CommandIo } from "../../src/cli/usage-error.js";
import { createMockService, type MockService } from "../../src/mock/index.js";
import { closeServer, listenOn } from "../helpers/loopback.js";
import { emitEventForTesting } from "../helpers/mock-internals.js";
import { connectionError } from "../helpers/scripted-fetch.js";

const NOW = "2026-06-15T12:00:00.000Z";
const waitShort = { timeout: 10_000, interval: 20 };

async function receiver() {
  const ids: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      ids.push((JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: string }).id);
      res.writeHead(200).end();
    });
  });
  const port = await listenOn(server);
  onTestFinished(() => closeServer(server));
  return { url: `http://127.0.0.1:${port}/hook`, ids };
}

/**
 * The mock's fetch, failing every request while `down` is set: the
 * connection refused, or a gateway's 503 in front of a service that is down.
 */
function flaky(mock: MockService, how: "refused" | "503" = "refused") {
  const state = { down: false, refused: 0 };
  const fetch: typeof globalThis.fetch = async (input, init) => {
    if (state.down) {
      state.refused += 1;
      if (how === "refused") throw connectionError("ECONNREFUSED");
      return new Response("<html>503 Service Unavailable</html>", { status: 503 });
    }
    return mock.fetch(input, init);
  };
  return { state, fetch };
}

function start(
  mock: MockService,
  fetch: typeof globalThis.fetch,
  argv: string[],
  key = mock.apiKeys.create(),
) {
  const controller = new AbortController();
  const out: string[] = [];
  const err: string[] = [];
  const io: CommandIo = {
    stdout: (text) => void out.push(text),
    stderr: (text) => void err.push(text),
    env: { MEDRECORDS_API_KEY: key, MEDRECORDS_BASE_URL: mock.baseUrl },
    signal: controller.signal,
  };
  const done = listenCommand(["--interval", "20ms", ...argv], io, { fetch });
  onTestFinished(async () => {
    controller.abort();
    await done.catch(() => undefined);
  });
  return { done, out, err, stop: () => controller.abort() };
}

const emit = (mock: MockService, id: string) =>
  emitEventForTesting(mock, "retrieval_request.status_changed", {
    retrieval_request_id: id,
    case_id: null,
    public_updated_at: NOW,
  });

describe("medrecords listen through an outage of the service", () => {
  it.each([
    ["refused", "ECONNREFUSED"],
    ["503", "HTTP 503"],
  ] as const)(
    "%s: says so once, tries again, and resumes from its checkpoint on the same log",
    async (how, why) => {
      const mock = createMockService({ now: NOW, delivery: "inbox" });
      const hook = await receiver();
      const { state, fetch } = flaky(mock, how);
      const run = start(mock, fetch, ["--forward-to", hook.url]);
      await vi.waitFor(() => expect(run.out.join("")).toMatch(/^Ready: /), waitShort);
      emit(mock, "ret_before");
      await vi.waitFor(() => expect(hook.ids).toHaveLength(1), waitShort);

      state.down = true;
      await vi.waitFor(() => expect(run.err.join("")).toContain("cannot reach"), waitShort);
      // Written while listen cannot read the log: forwarded once it can.
      mock.clock.advance("1s");
      emit(mock, "ret_during");
      const refusedBefore = state.refused;
      await vi.waitFor(() => expect(state.refused).toBeGreaterThan(refusedBefore + 2), waitShort);
      state.down = false;
      await vi.waitFor(() => expect(hook.ids).toHaveLength(2), waitShort);
      expect(new Set(hook.ids).size).toBe(2);
      // Its line follows the receiver's answer.
      await vi.waitFor(() => expect(run.out.join("")).toContain("ret_during"), waitShort);

      run.stop();
      expect(await run.done).toBe(0);
      const lines = run.err.join("").trimEnd().split("\n");
      expect(lines).toEqual([
        `medrecords listen: cannot reach the service at ${mock.baseUrl} (${why}); trying again with backoff, up to every 10s, until it answers (Ctrl-C to stop).`,
        expect.stringMatching(
          new RegExp(
            `^medrecords listen: the service at ${mock.baseUrl} answers again; resuming from the checkpoint \\(2026-06-15T12:00:00\\.000Z\\)\\.$`,
          ),
        ),
      ]);
    },
  );

  it("a new log behind the same address (a restarted mock): forwarded from its start, or from --checkpoint's position", async () => {
    const dir = await mkdtemp(join(tmpdir(), "medrecords-listen-outage-"));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    for (const checkpoint of [[], ["--checkpoint", join(dir, "position.json")]]) {
      let mock = createMockService({ now: NOW, delivery: "inbox" });
      const key = mock.apiKeys.create();
      const hook = await receiver();
      const { state, fetch } = flaky(mock);
      const restarted: typeof globalThis.fetch = (input, init) =>
        state.down ? fetch(input, init) : mock.fetch(input, init);
      const run = start(mock, restarted, ["--forward-to", hook.url, ...checkpoint], key);
      await vi.waitFor(() => expect(run.out.join("")).toMatch(/^Ready: /), waitShort);
      emit(mock, "ret_old");
      await vi.waitFor(() => expect(hook.ids).toHaveLength(1), waitShort);

      state.down = true;
      await vi.waitFor(() => expect(run.err.join("")).toContain("cannot reach"), waitShort);
      // Same address and key, a new log; its clock later than the old one's.
      mock = createMockService({ now: "2026-06-15T13:00:00.000Z", delivery: "inbox" });
      mock.apiKeys.register(key);
      emit(mock, "ret_new");
      state.down = false;
      await vi.waitFor(() => expect(hook.ids).toHaveLength(2), waitShort);
      // Its line follows the receiver's answer.
      await vi.waitFor(() => expect(run.out.join("")).toContain("ret_new"), waitShort);
      run.stop();
      expect(await run.done).toBe(0);
      expect(run.err.join("")).toContain(
        checkpoint.length === 0
          ? "answers again, with a new event log (a restarted mock): forwarding its events from its start."
          : `answers again, with another event log (a restarted mock?); resuming from the checkpoint in ${checkpoint[1]} (${NOW}): its events before that instant are not forwarded.`,
      );
    }
  });

  it("fails at once when the service cannot be reached at start", async () => {
    const mock = createMockService({ now: NOW, delivery: "inbox" });
    const { state, fetch } = flaky(mock);
    state.down = true;
    const run = start(mock, fetch, ["--forward-to", "http://127.0.0.1:1/hook"]);
    const error = await run.done.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommandError);
    expect((error as Error).message).toContain(`cannot reach the service at ${mock.baseUrl}`);
    expect((error as Error).message).toContain("ECONNREFUSED");
  });
});
