/**
 * The reference server over HTTP against its peer: requests per second of
 * `GET /v2/cases/{id}` on `startMockServer`, from 16 concurrent keep-alive
 * connections, against Prism's mock (`prism mock`, @stoplight/prism-cli) on
 * the same `openapi.json`, the mock server a user would otherwise reach for.
 *
 * The reference server runs in this process and Prism in its own (each a
 * single Node process, one core's worth of event loop), one loaded at a
 * time; the load generator runs in a child process (bench/lib/load-child.ts),
 * the same for both, so it never takes the servers' event loop. On two cores
 * the server and the generator get one each. This process samples its own CPU time, so each
 * figure comes with how busy the server was: a server well below 100% was
 * not the bound (the generator or the machine was).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { MedRecords } from "medrecords";
import { startMockServer } from "medrecords/mock";
import { runChild } from "../lib/child.ts";
import type { LoadChildInput, LoadChildOutput } from "../lib/load-child.ts";
import { median } from "../lib/measure.ts";
import type { BenchRow, Suite } from "../lib/types.ts";

const LOAD_CHILD = new URL("../lib/load-child.ts", import.meta.url);

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** The document Prism serves: the one the package ships (`npm run bench` builds it first). */
const DOCUMENT = resolve(ROOT, "dist/openapi.json");
const PRISM = resolve(ROOT, "node_modules/@stoplight/prism-cli/dist/index.js");
const CONNECTIONS = 16;

interface Sample {
  at: number;
  cpu: number;
}

/** This process's CPU time (µs) every 50 ms, to tell how busy the server was in a window. */
function cpuSampler(): { stop: () => Sample[] } {
  const samples: Sample[] = [];
  const take = () => {
    const { user, system } = process.cpuUsage();
    samples.push({ at: Date.now(), cpu: user + system });
  };
  take();
  const timer = setInterval(take, 50);
  return {
    stop() {
      clearInterval(timer);
      take();
      return samples;
    },
  };
}

/** Share of one core this process used between `from` and `to` (epoch ms). */
function busyBetween(samples: Sample[], from: number, to: number): number {
  const inside = samples.filter((s) => s.at >= from && s.at <= to);
  const first = inside[0];
  const last = inside[inside.length - 1];
  if (first === undefined || last === undefined || last.at === first.at) return Number.NaN;
  return (last.cpu - first.cpu) / 1000 / (last.at - first.at);
}

interface LoadResult {
  perSecond: number;
  /** Share of a core the server used during the timed window. */
  serverBusy: number;
  /** Share of a core the generator used. */
  generatorBusy: number;
}

async function load(
  port: number,
  input: Omit<LoadChildInput, "port" | "host">,
): Promise<LoadResult> {
  const sampler = cpuSampler();
  const started = Date.now();
  const out = await runChild<LoadChildOutput>(LOAD_CHILD, { ...input, host: "127.0.0.1", port });
  const ended = Date.now();
  const samples = sampler.stop();
  // The timed window ends just before the child's answer; it lasted `out.seconds`.
  const windowEnd = ended;
  const windowStart = Math.max(started, windowEnd - out.seconds * 1000 - 200);
  return {
    perSecond: out.requests / out.seconds,
    serverBusy: busyBetween(samples, windowStart, windowEnd),
    generatorBusy: out.cpuSeconds / out.seconds,
  };
}

function freePort(): Promise<number> {
  const server = createServer();
  return new Promise((done, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/** `prism mock` on the shipped document, listening on loopback; resolves once it answers. */
async function startPrism(): Promise<{ url: string; process: ChildProcess }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [PRISM, "mock", DOCUMENT, "--host", "127.0.0.1", "--port", String(port), "--errors=false"],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } },
  );
  let output = "";
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4_000);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && child.exitCode === null) {
    const up = await fetch(`${url}/v2/openapi.json`).then(
      () => true,
      () => false,
    );
    if (up) return { url, process: child };
    await new Promise((done) => setTimeout(done, 200));
  }
  child.kill("SIGKILL");
  throw new Error(`prism mock did not start:\n${output}`);
}

export const run: Suite = async ({ quick }) => {
  const mock = await startMockServer({ now: "2026-03-01T09:00:00Z", delivery: "inbox" });
  let prism: ChildProcess | undefined;
  try {
    const apiKey = mock.apiKeys.create();
    const mr = new MedRecords({ apiKey, baseUrl: mock.url });
    const kase = await mr.cases.create({
      title: "Doe v. Acme Logistics",
      client_name: "Jane Doe",
      case_category: "motor_vehicle_accident",
      date_of_injury: "2025-11-03",
      description: "Rear-end collision on I-55; cervical strain and a fractured wrist.",
    });
    const path = `/v2/cases/${kase.id}`;
    const headers = { authorization: `Bearer ${apiKey}`, accept: "application/json" };
    const started = await startPrism();
    prism = started.process;
    // Each side's own answer, checked on every connection's first answer and by length after.
    const bodyOf = async (base: string) => {
      const response = await fetch(`${base}${path}`, { headers });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`${base} answered ${response.status}: ${text}`);
      return text;
    };
    const bodies = { mock: await bodyOf(mock.url), prism: await bodyOf(started.url) };
    const ports = {
      mock: Number(new URL(mock.url).port),
      prism: Number(new URL(started.url).port),
    };

    const input = {
      path,
      headers,
      connections: CONNECTIONS,
      warmupMs: quick ? 500 : 1_000,
      durationMs: quick ? 1_500 : 5_000,
    };
    const rounds = quick ? 1 : 3;
    type Side = keyof typeof ports;
    const results: Record<Side, LoadResult>[] = [];
    for (let r = 0; r < rounds; r++) {
      const round: Partial<Record<Side, LoadResult>> = {};
      for (const side of r % 2 === 0
        ? (["mock", "prism"] as const)
        : (["prism", "mock"] as const)) {
        // Prism runs in its own process: this process's CPU is the mock's only.
        round[side] = await load(ports[side], { ...input, expectedBody: bodies[side] });
      }
      results.push(round as Record<Side, LoadResult>);
    }
    const pct = (values: number[]) => `${Math.round(median(values) * 100)}%`;
    const mockCpu = Math.round(
      median(results.map((r) => (r.mock.serverBusy / r.mock.perSecond) * 1e6)),
    );
    const row: BenchRow = {
      group: "Reference server over HTTP (startMockServer)",
      name: `GET /v2/cases/{id}, ${CONNECTIONS} keep-alive connections, vs Prism's mock`,
      subject: {
        label: "startMockServer",
        value: median(results.map((r) => r.mock.perSecond)),
        unit: "req/s",
      },
      baseline: {
        label: "prism mock, same openapi.json",
        value: median(results.map((r) => r.prism.perSecond)),
        unit: "req/s",
      },
      ratio: median(results.map((r) => r.mock.perSecond / r.prism.perSecond)),
      target: 4,
      note:
        "Prism's mock (`prism mock dist/openapi.json`, static examples, request validation on) " +
        "answers from the document alone: it checks the request against the operation and renders " +
        "the response's example, with no state behind it. The reference server does more per answer: " +
        "the API key, route and scope checks, the zod query check, the model lookup and JSON rendering " +
        "of the stored case, a request id and the Date header, through its one request pipeline " +
        "(a web `Request` in, a `Response` out). " +
        `Load from a separate process (raw sockets, ${CONNECTIONS} connections, one request in flight each), ` +
        `${input.durationMs / 1000} s per side per round after ${input.warmupMs / 1000} s of warm-up, ` +
        `${rounds} round(s) in alternating order. Reference server CPU per answer: ${mockCpu} µs ` +
        `(busy ${pct(results.map((r) => r.mock.serverBusy))} of a core; ` +
        `the generator ${pct(results.map((r) => r.mock.generatorBusy))} and ${pct(results.map((r) => r.prism.generatorBusy))}).`,
    };
    return [row];
  } finally {
    await mock.close();
    if (prism !== undefined && prism.exitCode === null) {
      const exited = once(prism, "exit");
      prism.kill("SIGTERM");
      await exited;
    }
  }
};
