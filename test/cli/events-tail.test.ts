/**
 * `medrecords events tail`, in-process against the reference server's own
 * `fetch` (no MSW, no socket): what it prints, where it starts and resumes,
 * how it stops, and how it fails.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { EVENTS_TAIL_HELP, eventsTail } from "../../src/cli/events-tail.js";
import { CommandError, type CommandIo, UsageError } from "../../src/cli/usage-error.js";
import { type AnyEvent, MedRecords } from "../../src/index.js";
import { createMockService, type MockService } from "../../src/mock/index.js";
import { emitEventForTesting } from "../helpers/mock-internals.js";

const NOW = "2026-06-15T12:00:00.000Z";
const DAY = 86_400_000;
const STATUS_CHANGED = "retrieval_request.status_changed";
const ACTION_REQUIRED = "retrieval_request.action_required";
const DOCUMENTS_AVAILABLE = "retrieval_request.documents_available";
const PDF = "%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n";
/** `<created_at>  <type>  <event id>  <object id>` */
const HUMAN_LINE = /^(\S+) {2}(\S+) {2}(\S+) {2}(\S+)$/;

let mock: MockService;
let apiKey: string;
let mr: MedRecords;
let dir: string;

beforeEach(async () => {
  mock = createMockService({ now: NOW, delivery: "inbox" });
  apiKey = mock.apiKeys.create();
  mr = new MedRecords({ apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch, maxRetries: 0 });
  dir = await mkdtemp(join(tmpdir(), "medrecords-events-tail-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Run {
  io: CommandIo;
  /** Complete lines written to stdout so far. */
  out: string[];
  err: string[];
  abort: () => void;
}

function capture(env: Record<string, string | undefined> = {}): Run {
  const controller = new AbortController();
  const stdout: string[] = [];
  const stderr: string[] = [];
  const lines = (chunks: string[]) => chunks.join("").split("\n").slice(0, -1);
  return {
    io: {
      stdout: (text: string) => void stdout.push(text),
      stderr: (text: string) => void stderr.push(text),
      env: { MEDRECORDS_API_KEY: apiKey, MEDRECORDS_BASE_URL: mock.baseUrl, ...env },
      signal: controller.signal,
    },
    get out() {
      return lines(stdout);
    },
    get err() {
      return lines(stderr);
    },
    abort: () => controller.abort(),
  };
}

/** Runs the command to its end with the mock's fetch. */
async function tail(argv: string[], env?: Record<string, string | undefined>) {
  const run = capture(env);
  const code = await eventsTail(argv, run.io, { fetch: mock.fetch });
  return { code, out: run.out, err: run.err };
}

async function failure(
  argv: string[],
  options: { env?: Record<string, string | undefined>; fetch?: typeof fetch } = {},
) {
  const run = capture(options.env);
  return eventsTail(argv, run.io, { fetch: options.fetch ?? mock.fetch }).then(
    () => {
      throw new Error("expected the command to fail");
    },
    (error: unknown) => error as Error,
  );
}

/** A retrieval request made through the public API; no event yet. */
async function newRequest(): Promise<string> {
  const auth_form = await mr.retrievalRequests.uploadFile({
    file: new File([PDF], "authorization.pdf", { type: "application/pdf" }),
  });
  const created = await mr.retrievalRequests.create({
    case: { title: "Doe v. Acme", client_name: "Jane Doe", date_of_injury: "2026-01-02" },
    facility: { name: "Harbor Clinic", address: "1 Pier St, Bay City, CA 94000" },
    requestor: { name: "Ann Counsel", email: "ann@firm.example" },
    auth_form,
    record_types: ["medical_records"],
  });
  return created.id;
}

/** One `status_changed` about `id`, one second after the previous event. */
function progress(id: string, stage: "request_sent" | "records_received" = "request_sent") {
  mock.clock.advance("1s");
  mock.retrievalRequests.setStatus(id, { status: "processing", stage });
}

/** One `documents_available` about `id` (the provider releases a record file). */
function release(id: string) {
  mock.clock.advance("1s");
  mock.retrievalRequests.releaseRecords(id, [
    { file_name: "chart.pdf", file_type: "application/pdf", content: PDF },
  ]);
}

/** Every event of the log, oldest first. */
async function logOldestFirst(): Promise<AnyEvent[]> {
  const events: AnyEvent[] = [];
  for await (const event of mr.events.list()) events.push(event);
  return events.reverse();
}

const idsOf = (lines: string[]) => lines.map((line) => HUMAN_LINE.exec(line)?.[3]);

describe("medrecords events tail --once", () => {
  it("writes the client's retry lines to its own stderr, never to the process console", async () => {
    const consoleLines = [vi.spyOn(console, "warn"), vi.spyOn(console, "error")];
    let answered = 0;
    // The first answer is a 503, which the client retries (a read) and logs at warn.
    const fetch: typeof globalThis.fetch = async (input, init) =>
      answered++ === 0
        ? Response.json(
            { error: { code: "service_unavailable", message: "Try again" } },
            { status: 503 },
          )
        : mock.fetch(input, init);
    const run = capture();
    expect(await eventsTail(["--once"], run.io, { fetch })).toBe(0);
    expect(run.err).toEqual([
      expect.stringMatching(/^medrecords: GET \/v2\/events 503 .*retrying$/),
    ]);
    for (const spy of consoleLines) expect(spy).not.toHaveBeenCalled();
  });

  it("prints every event of the log oldest first, one human line each, then exits 0", async () => {
    const rr = await newRequest();
    progress(rr);
    mock.retrievalRequests.openActionRequest(rr, {
      message: "Please sign the authorization again.",
      reason: "missing_hipaa_authorization",
    });
    release(rr);
    const log = await logOldestFirst();
    expect(log.map((e) => e.type)).toEqual([
      STATUS_CHANGED,
      STATUS_CHANGED,
      ACTION_REQUIRED,
      DOCUMENTS_AVAILABLE,
    ]);

    const { code, out, err } = await tail(["--once"]);
    expect(code).toBe(0);
    expect(err).toEqual([]);
    expect(out).toEqual(log.map((e) => `${e.created_at}  ${e.type}  ${e.id}  ${rr}`));
    expect(out.every((line) => HUMAN_LINE.test(line))).toBe(true);
  });

  it("prints an event of a type unknown to this SDK, with - for a missing object id", async () => {
    const future = emitEventForTesting(mock, "account.updated", { plan: "pro" });
    const { out } = await tail(["--once"]);
    expect(out).toEqual([`${future.created_at}  account.updated  ${future.id}  -`]);
    const json = await tail(["--once", "--json"]);
    expect(JSON.parse(json.out[0] as string)).toEqual(future);
  });

  it("prints nothing and exits 0 on an empty log", async () => {
    expect(await tail(["--once"])).toEqual({ code: 0, out: [], err: [] });
  });

  it("--json prints each event as one JSON line, equal to the event", async () => {
    const rr = await newRequest();
    progress(rr);
    release(rr);
    progress(rr, "records_received");
    const { code, out } = await tail(["--once", "--json"]);
    expect(code).toBe(0);
    expect(out.map((line) => JSON.parse(line))).toEqual(await logOldestFirst());
  });

  it("--type filters, repeated or comma-separated", async () => {
    const rr = await newRequest();
    progress(rr);
    release(rr);
    mock.retrievalRequests.openActionRequest(rr, {
      message: "Please sign the authorization again.",
      reason: "missing_hipaa_authorization",
    });
    const log = await logOldestFirst();
    const ofTypes = (...types: string[]) =>
      log.filter((e) => types.includes(e.type)).map((e) => e.id);

    const only = await tail(["--once", "--type", DOCUMENTS_AVAILABLE]);
    expect(idsOf(only.out)).toEqual(ofTypes(DOCUMENTS_AVAILABLE));
    const comma = await tail(["--once", `--type=${STATUS_CHANGED},${ACTION_REQUIRED}`]);
    expect(idsOf(comma.out)).toEqual(ofTypes(STATUS_CHANGED, ACTION_REQUIRED));
    const repeated = await tail([
      "--once",
      "--type",
      ACTION_REQUIRED,
      "--type",
      DOCUMENTS_AVAILABLE,
    ]);
    expect(idsOf(repeated.out)).toEqual(ofTypes(ACTION_REQUIRED, DOCUMENTS_AVAILABLE));
  });

  it("--since starts at that instant, inclusive", async () => {
    const rr = await newRequest();
    progress(rr); // NOW + 1s
    progress(rr); // NOW + 2s
    progress(rr); // NOW + 3s
    const log = await logOldestFirst();
    const since = new Date(Date.parse(NOW) + 2_000).toISOString();
    expect(log[1]?.created_at).toBe(since);
    const { out } = await tail(["--once", "--since", since]);
    expect(idsOf(out)).toEqual(log.slice(1).map((e) => e.id));
    // A date is midnight UTC; an offset is honoured. After the service's time: refused, saying so.
    const future = await failure(["--once", "--since", "2026-06-16"]);
    expect(future.message).toMatch(/--since 2026-06-16T00:00:00.000Z is after the service's time/);
    expect(idsOf((await tail(["--once", "--since", "2026-06-15T14:00:02+02:00"])).out)).toEqual(
      log.slice(1).map((e) => e.id),
    );
  });

  it("--since takes a duration as listen's does (30m, 2h, 1d), counted back from the service's clock", async () => {
    const rr = await newRequest();
    progress(rr);
    // Days ahead of this machine's clock: the service's Date header is what counts.
    mock.clock.advance("3d");
    progress(rr);
    mock.clock.advance("30m");
    progress(rr);
    const log = await logOldestFirst();
    expect(idsOf((await tail(["--once", "--since", "1h"])).out)).toEqual(
      log.slice(-2).map((e) => e.id),
    );
    expect(idsOf((await tail(["--once", "--since", "10m"])).out)).toEqual(
      log.slice(-1).map((e) => e.id),
    );
    expect(idsOf((await tail(["--once", "--since", "4d"])).out)).toEqual(log.map((e) => e.id));
  });

  it("warns on stderr when --since is past the 30-day retention, and prints what the log holds", async () => {
    const rr = await newRequest();
    progress(rr);
    const since = new Date(Date.parse(NOW) - 40 * DAY).toISOString();
    const { code, out, err } = await tail(["--once", "--since", since]);
    expect(code).toBe(0);
    expect(out).toHaveLength(1);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(/^medrecords events tail: warning: .*30-day retention/);
    expect(err[0]).toContain(since);
  });
});

describe("--checkpoint", () => {
  it("resumes across runs without printing an event again", async () => {
    const file = join(dir, "state", "events.json");
    const rr = await newRequest();
    progress(rr);
    progress(rr);
    const first = await tail(["--once", "--checkpoint", file]);
    expect(first.out).toHaveLength(2);
    const saved = JSON.parse(await readFile(file, "utf8"));
    expect(saved.created_at).toBe((await logOldestFirst())[1]?.created_at);

    expect((await tail(["--once", "--checkpoint", file])).out).toEqual([]);

    // Same instant as the last printed event, and a later one.
    mock.retrievalRequests.setStatus(rr, { status: "processing", stage: "records_received" });
    progress(rr);
    const third = await tail(["--once", "--checkpoint", file]);
    expect(idsOf(third.out)).toEqual((await logOldestFirst()).slice(2).map((e) => e.id));
  });

  it("a saved position wins over --since, which is then reported as ignored", async () => {
    const file = join(dir, "events.json");
    const rr = await newRequest();
    progress(rr);
    await tail(["--once", "--checkpoint", file]);
    progress(rr);
    const { out, err } = await tail(["--once", "--checkpoint", file, "--since", "2026-01-01"]);
    expect(out).toHaveLength(1);
    expect(err).toEqual([expect.stringContaining("--since is ignored")]);
  });

  it("following from now saves the start at once, so the next run resumes from it", async () => {
    const file = join(dir, "events.json");
    const rr = await newRequest();
    progress(rr);
    const run = capture();
    const done = eventsTail(["--checkpoint", file, "--interval", "20ms"], run.io, {
      fetch: mock.fetch,
    });
    await expect.poll(() => readFile(file, "utf8").catch(() => null)).not.toBeNull();
    run.abort();
    expect(await done).toBe(0);
    expect(run.out).toEqual([]);

    progress(rr);
    const next = await tail(["--once", "--checkpoint", file]);
    expect(idsOf(next.out)).toEqual([(await logOldestFirst()).at(-1)?.id]);
  });

  it("a corrupt checkpoint file is a CommandError naming the file", async () => {
    const file = join(dir, "events.json");
    await import("node:fs/promises").then((fs) => fs.writeFile(file, "{ not json"));
    const error = await failure(["--once", "--checkpoint", file]);
    expect(error).toBeInstanceOf(CommandError);
    expect(error.message).toContain(file);
  });
});

describe("following", () => {
  it("starts at now, prints an event created after the start, and stops on abort with exit 0", async () => {
    const rr = await newRequest();
    progress(rr);
    const run = capture();
    const requests: string[] = [];
    const fetch: typeof globalThis.fetch = (input, init) => {
      requests.push(input instanceof Request ? input.url : String(input));
      return mock.fetch(input, init);
    };
    const done = eventsTail(["--interval", "20ms"], run.io, { fetch });
    await expect.poll(() => requests.length).toBeGreaterThanOrEqual(3);
    expect(run.out).toEqual([]); // the event from before the start is not printed

    // At the same instant as the newest event at start (the clock stands still), then later.
    mock.retrievalRequests.setStatus(rr, { status: "processing", stage: "records_received" });
    await expect.poll(() => run.out.length).toBe(1);
    progress(rr);
    await expect.poll(() => run.out.length).toBe(2);
    run.abort();
    expect(await done).toBe(0);
    expect(idsOf(run.out)).toEqual((await logOldestFirst()).slice(1).map((e) => e.id));
    expect(run.err).toEqual([]);
  });

  it("stops at once on abort even while a request hangs", async () => {
    const run = capture();
    let started = false;
    const hanging: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => {
        started = true;
        init?.signal?.addEventListener("abort", () => reject(init.signal?.reason));
      });
    const done = eventsTail(["--interval", "20ms"], run.io, { fetch: hanging });
    await expect.poll(() => started).toBe(true);
    const before = Date.now();
    run.abort();
    expect(await done).toBe(0);
    expect(Date.now() - before).toBeLessThan(1_000);
  });

  it("returns 0 at once when the signal is already aborted", async () => {
    const run = capture();
    run.abort();
    expect(await eventsTail([], run.io, { fetch: mock.fetch })).toBe(0);
  });
});

describe("usage", () => {
  it("--help and -h print the help on stdout and return 0", async () => {
    for (const flag of ["--help", "-h"]) {
      const run = capture({ MEDRECORDS_API_KEY: undefined });
      expect(await eventsTail([flag], run.io)).toBe(0);
      expect(run.out.join("\n")).toBe(EVENTS_TAIL_HELP.trimEnd());
    }
    expect(EVENTS_TAIL_HELP).toContain("MEDRECORDS_API_KEY");
    expect(EVENTS_TAIL_HELP).toContain("<created_at>  <type>  <event id>  <object id>");
  });

  it.each([
    [["--bogus"], "--bogus"],
    [["--once", "extra"], "extra"],
    [["--interval"], "--interval"],
    [["--once=yes"], "--once"],
    [["--interval", "5"], "--interval"],
    [["--interval", "fast"], "--interval"],
    [["--interval", "0s"], "--interval"],
    [["--interval", "2d"], "--interval"],
    [["--since", "yesterday"], "--since"],
    [["--since", "2026-13-01"], "--since"],
    [["--since", "2026-06-15T12:00:00"], "--since"],
    [["--type", "a,,b"], "--type"],
    [["--base-url", "ftp://api.example.com"], "--base-url"],
  ])("%j is a one-line UsageError naming %s", async (argv, named) => {
    const error = await failure(argv);
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toContain(named);
    expect(error.message).toContain("see medrecords events tail --help");
    expect(error.message).not.toContain("\n");
  });

  it("quotes the bad value", async () => {
    expect((await failure(["--interval", "fast"])).message).toContain('not "fast"');
    expect((await failure(["--since", "yesterday"])).message).toContain('not "yesterday"');
  });

  it("refuses the key as a flag or an argument without echoing it", async () => {
    const key = mock.apiKeys.create();
    for (const argv of [
      ["--api-key", key],
      [`--api-key=${key}`],
      [key],
      ["--since", key],
      ["--interval", key],
    ]) {
      const error = await failure(argv);
      expect(error).toBeInstanceOf(UsageError);
      expect(error.message).not.toContain(key);
    }
    expect((await failure(["--api-key", key])).message).toContain("MEDRECORDS_API_KEY");
  });

  it("no base URL is a UsageError", async () => {
    const error = await failure(["--once"], { env: { MEDRECORDS_BASE_URL: undefined } });
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toContain("--base-url");
  });

  it("--base-url wins over MEDRECORDS_BASE_URL", async () => {
    const rr = await newRequest();
    progress(rr);
    const { out } = await tail(["--once", "--base-url", mock.baseUrl], {
      MEDRECORDS_BASE_URL: "https://elsewhere.medrecords.test",
    });
    expect(out).toHaveLength(1);
  });
});

describe("failures", () => {
  it("a missing key is a CommandError", async () => {
    for (const key of [undefined, "", "  "]) {
      const error = await failure(["--once"], { env: { MEDRECORDS_API_KEY: key } });
      expect(error).toBeInstanceOf(CommandError);
      expect(error.message).toContain("MEDRECORDS_API_KEY");
    }
  });

  it("a refused key (401) is a one-line CommandError without the key", async () => {
    const wrong = `medrecords_sk_live_${"x".repeat(32)}`;
    const error = await failure(["--once"], { env: { MEDRECORDS_API_KEY: wrong } });
    expect(error).toBeInstanceOf(CommandError);
    expect(error.message).toContain("401");
    expect(error.message).toContain("MEDRECORDS_API_KEY");
    expect(error.message).not.toContain(wrong);
    expect(error.message).not.toContain("\n");
  });

  it("a key without webhooks:read (403) is a CommandError naming the scope", async () => {
    const key = mock.apiKeys.create({ scopes: ["retrievals:read"] });
    const error = await failure([], { env: { MEDRECORDS_API_KEY: key } });
    expect(error).toBeInstanceOf(CommandError);
    expect(error.message).toContain("403");
    expect(error.message).toContain("webhooks:read");
    expect(error.message).not.toContain(key);
  });

  it("an unreachable service is a CommandError naming the address", async () => {
    const refused: typeof fetch = async () => {
      throw new TypeError("fetch failed", { cause: { code: "ENOTFOUND" } });
    };
    // The client's backoffs between its retries pass on fake timers.
    vi.useFakeTimers();
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const pending = failure(["--once"], { fetch: refused });
    await vi.runAllTimersAsync();
    const error = await pending;
    expect(error).toBeInstanceOf(CommandError);
    expect(error.message).toContain(`cannot reach the service at ${mock.baseUrl}`);
    expect(error.message).not.toContain(apiKey);
  });

  it("a failure while following ends the command with a CommandError", async () => {
    let calls = 0;
    const flaky: typeof fetch = (input, init) => {
      calls += 1;
      if (calls > 2) return Promise.resolve(new Response("{}", { status: 401 }));
      return mock.fetch(input, init);
    };
    const run = capture();
    const error = await eventsTail(["--interval", "20ms"], run.io, { fetch: flaky }).catch(
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(CommandError);
    expect((error as Error).message).toContain("401");
  });
});
