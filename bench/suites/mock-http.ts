/**
 * Issue 7, the reference server over HTTP: requests per second of
 * `GET /v2/cases/{id}` on `startMockServer`, from 16 concurrent keep-alive
 * connections, against a bare `node:http` server answering the byte-identical
 * JSON body (captured from the mock first).
 *
 * Both servers run in this process, one loaded at a time; the load generator
 * runs in a child process (bench/lib/load-child.ts), the same for both, so it
 * never takes the servers' event loop. On two cores the server and the
 * generator get one each. This process samples its own CPU time, so each
 * figure comes with how busy the server was: a server well below 100% was
 * not the bound (the generator or the machine was).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { MedRecords } from "medrecords";
import { startMockServer } from "medrecords/mock";
import { runChild } from "../lib/child.ts";
import type { LoadChildInput, LoadChildOutput } from "../lib/load-child.ts";
import { median } from "../lib/measure.ts";
import type { BenchRow, Suite } from "../lib/types.ts";

const LOAD_CHILD = new URL("../lib/load-child.ts", import.meta.url);

/**
 * What the mock's server CPU per answer goes to, beyond the bare server's,
 * from `node --cpu-prof` of the mock under this load (see BENCHMARKS.md).
 */
const MISS_REASON =
  "Per answer the mock does what the bare server skips: the API key, route and scope checks, the zod " +
  "query check, the model lookup and JSON rendering, a request id and the Date header. A GET or HEAD to " +
  "the API with no fault configured takes a direct path from node:http to the service and back, without " +
  "an undici Request or Response (building those, and reading the Response back, once cost more than the " +
  "service's own work and held the ratio near 0.22x); the answer is written with one writeHead and end. " +
  "Bodies, storage, the control API and faulted requests keep the Request/Response path.";
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

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)),
  );
}

export const run: Suite = async ({ quick }) => {
  const mock = await startMockServer({ now: "2026-03-01T09:00:00Z", delivery: "inbox" });
  let bare: Server | undefined;
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
    const captured = await fetch(`${mock.url}${path}`, { headers });
    const body = Buffer.from(await captured.arrayBuffer());
    if (captured.status !== 200) throw new Error(`the mock answered ${captured.status}`);

    // The bare server: the same bytes, the headers a plain JSON server sends.
    bare = createServer((req, res) => {
      req.resume();
      res.writeHead(200, {
        "content-type": "application/json",
        "content-length": body.length,
        "x-request-id": "req_0123456789abcdef0123456789abcdef",
      });
      res.end(body);
    });
    bare.keepAliveTimeout = 60_000;
    const barePort = await listen(bare);
    const mockPort = Number(new URL(mock.url).port);

    const input = {
      path,
      headers,
      connections: CONNECTIONS,
      warmupMs: quick ? 500 : 1_000,
      durationMs: quick ? 1_500 : 5_000,
      expectedBody: body.toString("utf8"),
    };
    const rounds = quick ? 1 : 3;
    const results: { mock: LoadResult; bare: LoadResult }[] = [];
    for (let r = 0; r < rounds; r++) {
      const round: Partial<{ mock: LoadResult; bare: LoadResult }> = {};
      for (const side of r % 2 === 0 ? (["mock", "bare"] as const) : (["bare", "mock"] as const)) {
        round[side] = await load(side === "mock" ? mockPort : barePort, input);
      }
      results.push(round as { mock: LoadResult; bare: LoadResult });
    }
    const pct = (values: number[]) => `${Math.round(median(values) * 100)}%`;
    // Server CPU per answer, µs: how much work each side does, whatever bounded the rate.
    const cpuPerRequest = (side: "mock" | "bare") =>
      Math.round(median(results.map((r) => (r[side].serverBusy / r[side].perSecond) * 1e6)));
    const row: BenchRow = {
      group: "Reference server over HTTP (startMockServer)",
      name: `GET /v2/cases/{id}, ${CONNECTIONS} keep-alive connections, vs bare node:http`,
      subject: {
        label: "startMockServer",
        value: median(results.map((r) => r.mock.perSecond)),
        unit: "req/s",
      },
      baseline: {
        label: "node:http, same JSON",
        value: median(results.map((r) => r.bare.perSecond)),
        unit: "req/s",
      },
      ratio: median(results.map((r) => r.mock.perSecond / r.bare.perSecond)),
      target: 0.5,
      // One request pipeline now (the hand-written direct path for fault-free GETs is gone), and
      // the mock is to be measured against Prism's mock on the same document, not a bare server.
      informational: true,
      note:
        "No target: the reference server now serves every request through one pipeline " +
        "(handle(Request)); its comparison moves to Prism's mock on the same openapi.json. " +
        `Load from a separate process (raw sockets, ${CONNECTIONS} connections, one request in flight each), ` +
        `${input.durationMs / 1000} s per side per round after ${input.warmupMs / 1000} s of warm-up. ` +
        `Server CPU per answer: mock ${cpuPerRequest("mock")} µs, bare ${cpuPerRequest("bare")} µs ` +
        `(busy ${pct(results.map((r) => r.mock.serverBusy))} and ${pct(results.map((r) => r.bare.serverBusy))} of a core; ` +
        `the generator ${pct(results.map((r) => r.mock.generatorBusy))} and ${pct(results.map((r) => r.bare.generatorBusy))}). ` +
        MISS_REASON,
    };
    return [row];
  } finally {
    await mock.close();
    if (bare) {
      const server = bare;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    }
  }
};
