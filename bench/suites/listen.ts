/**
 * Issue 19, `medrecords listen` over a backlog: the heap the command keeps
 * while it forwards a 10 000-event backlog (`--since` before the first
 * event) to a local receiver, against the same oldest-first walk of the log
 * by a hand-written `fetch` loop (bench/lib/event-walk-child.ts).
 *
 * The reference server (`startMockServer`, seeded in-process by
 * bench/lib/event-log-server.ts) and the receiver (node:http, answering 200
 * with an empty body at once) run in this process. The command runs as
 * users run it, `dist/cli.js listen`, in a child process started with
 * --expose-gc and bench/lib/listen-probe.ts preloaded, which measures the
 * heap from inside and stops the command with SIGINT once every event was
 * forwarded. The log holds 1 000 older events first, forwarded as a warm-up
 * (as the fetch loop walks before it is measured): the heap kept is measured
 * over the 10 000 after them.
 */
import { fork } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { MiB } from "../lib/child.ts";
import { startSeededServer } from "../lib/event-log-server.ts";
import type { ListenProbeReport } from "../lib/listen-probe.ts";
import { median } from "../lib/measure.ts";
import type { Suite } from "../lib/types.ts";
import { HEAP_NOISE, RETAINED_LIMIT, spaced, walkRounds } from "./pagination.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const CLI = resolve(ROOT, "dist/cli.js");
const PROBE = resolve(ROOT, "bench/lib/listen-probe.ts");
const BACKLOG = 10_000;
/** Events forwarded before the measured backlog: the code of a delivery is compiled by then. */
const WARMUP = 1_000;
/** `listen` reads the log 100 events a page, the most a page holds. */
const PAGE_SIZE = 100;
/** The seeded log starts at 2026-03-01T09:00:00Z (bench/lib/event-log-server.ts). */
const SINCE = "2026-03-01T08:00:00Z";

/** Runs `medrecords listen` once over the backlog; resolves to what the probe measured. */
async function listenOnce(
  baseUrl: string,
  apiKey: string,
  forwardTo: string,
  events: number,
): Promise<ListenProbeReport> {
  const child = fork(CLI, ["listen", "--forward-to", forwardTo, "--since", SINCE], {
    execPath: process.execPath,
    execArgv: ["--disable-warning=ExperimentalWarning", "--expose-gc", "--import", PROBE],
    // stdout to /dev/null: the probe reads each line as the command writes it.
    stdio: ["ignore", "ignore", "inherit", "ipc"],
    env: {
      ...process.env,
      MEDRECORDS_API_KEY: apiKey,
      MEDRECORDS_BASE_URL: baseUrl,
      LISTEN_PROBE_WARMUP: String(WARMUP),
      LISTEN_PROBE_EVENTS: String(events),
      LISTEN_PROBE_CHECK_EVERY: String(Math.floor(events / 10)),
    },
  });
  let report: ListenProbeReport | undefined;
  child.on("message", (message) => {
    report = message as ListenProbeReport;
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 180_000);
  const [code, signal] = (await once(child, "exit")) as [number | null, string | null];
  clearTimeout(timer);
  if (report === undefined) {
    throw new Error(
      `medrecords listen exited (${signal ?? code}) before forwarding ${events} events`,
    );
  }
  if (code !== 0)
    throw new Error(`medrecords listen exited with ${signal ?? code} after the backlog`);
  if (report.failedLines.length > 0) {
    throw new Error(`medrecords listen: failed attempts: ${report.failedLines.join(" | ")}`);
  }
  return report;
}

export const run: Suite = async ({ quick }) => {
  const server = await startSeededServer(WARMUP + BACKLOG);
  const receiver = createServer((request, response) => {
    request.resume();
    request.on("end", () => response.writeHead(200, { "content-length": "0" }).end());
  });
  receiver.listen(0, "127.0.0.1");
  await once(receiver, "listening");
  const forwardTo = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
  try {
    const rounds = quick ? 2 : 3;
    const listen: ListenProbeReport[] = [];
    for (let r = 0; r < rounds; r++) {
      listen.push(await listenOnce(server.baseUrl, server.apiKey, forwardTo, BACKLOG));
    }
    const walks = await walkRounds(["fetch-oldest-first"], rounds, {
      baseUrl: server.baseUrl,
      apiKey: server.apiKey,
      events: server.total,
      pageSize: PAGE_SIZE,
      warmupEvents: WARMUP,
      checkEvery: Math.floor(server.total / 10),
    });
    const retained = Math.max(...listen.map((r) => r.retainedHeap));
    const cold = Math.max(...listen.map((r) => r.coldHeap));
    const fetchRetained = Math.max(...walks["fetch-oldest-first"].map((r) => r.retainedHeap));
    const label = `${spaced(BACKLOG)}-event backlog`;
    const perSecond = median(listen.map((r) => r.events / r.seconds));
    const cpuPerEvent = median(listen.map((r) => (r.cpuSeconds * 1e6) / r.events));
    return [
      {
        group: "medrecords listen (dist/cli.js, startMockServer over HTTP)",
        name: `${label} forwarded: heap kept vs fetch loop walking it oldest first`,
        subject: { label: "medrecords listen --since", value: retained / MiB, unit: "MiB" },
        baseline: {
          label: "fetch + json(), oldest first",
          value: fetchRetained / MiB,
          unit: "MiB",
        },
        ratio: Math.max(fetchRetained, HEAP_NOISE) / Math.max(retained, HEAP_NOISE),
        target: 0.5,
        lowerIsBetter: true,
        limit: {
          description: `heap kept while forwarding a ${label} <= ${RETAINED_LIMIT / MiB} MiB`,
          ok: retained <= RETAINED_LIMIT,
        },
        note:
          "Heap kept: the most heap still used after a full GC, checked every tenth of the backlog, above the heap " +
          `used after forwarding ${spaced(WARMUP)} older events first (worst round; heaps under 1 MiB count as 1 MiB in the ratio); ` +
          `above the heap at the Ready line instead, before any page was read: ${(cold / MiB).toFixed(1)} MiB, mostly code ` +
          "compiled on first use (a heap snapshot's code grows by ~3 MiB over the walk). " +
          "Before issue 19 each attempt's AbortSignal.any + AbortSignal.timeout kept the attempt alive for its 5 s timeout: 8.7 MiB. " +
          `Each event is one signed POST to a local receiver answering 200: ${Math.round(perSecond)} events/s, ` +
          `${Math.round(cpuPerEvent)} µs of the command's CPU per event.`,
      },
    ];
  } finally {
    receiver.close();
    await server.close();
  }
};
