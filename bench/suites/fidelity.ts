/**
 * Issue 38, fidelity: `cases.list` pages of 100 cases with `onDrift` on
 * against off, with `record: cassette(path)` on against off, and with both
 * off against today's client: the package as it was before the fidelity
 * layer (commit BEFORE_FIDELITY, bundled from git here), so the hook's cost
 * when off is measured, not assumed. The server (a fixed valid page) runs in
 * a worker thread, so its time is charged to no side's thread.
 */
import { execFileSync } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { build } from "esbuild";
import { Case, cassette, MedRecords, type Recorder } from "medrecords";
import { compare, median } from "../lib/measure.ts";
import { perSecond, ratioRow } from "../lib/rows.ts";
import type { BenchRow, Suite } from "../lib/types.ts";

const GROUP = "Fidelity (cases.list, 100 cases a page)";
const API_KEY = "mr_test_4f8a2c9d1e7b3a6f0c5d8e2b9a1f7c3d";
/** The last commit before src/fidelity: "today's client" of issue 38. */
const BEFORE_FIDELITY = "4089332";
const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

const page = () => ({
  results: Array.from({ length: 100 }, (_, i) => ({
    id: `case_${String(i).padStart(24, "0")}`,
    case_number: `MR-${String(i + 1).padStart(6, "0")}`,
    title: "Doe v. Acme Logistics",
    client_name: "Jane Doe",
    description: "Rear-end collision on I-55; cervical strain and a fractured wrist.",
    client_date_of_birth: "1987-04-12",
    client_address: "1450 W Monroe St, Springfield, IL 62704",
    client_phone: "+1-217-555-0198",
    client_email: "jane.doe@example.com",
    date_of_injury: "2025-11-03",
    deposition_date: null,
    case_category: "motor_vehicle_accident",
    status: "active",
    external_id: `clio-${i}`,
    created_at: "2025-11-10T15:04:05.123Z",
    updated_at: "2026-02-01T09:30:00.000Z",
  })),
  next: null,
  previous: null,
});

// Plain JavaScript for the worker (eval), so it needs no loader.
const SERVER = `
const http = require("node:http");
const { parentPort, workerData } = require("node:worker_threads");
const body = Buffer.from(workerData.body);
const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json", "content-length": body.length, "x-request-id": "req_1" });
    res.end(body);
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, "127.0.0.1", () => parentPort.postMessage(server.address().port));
parentPort.on("message", () => server.close(() => process.exit(0)));
`;

/** The client of BEFORE_FIDELITY, bundled from its sources (ky and zod included). */
async function todaysClient(dir: string): Promise<typeof MedRecords> {
  const tree = join(dir, "before");
  mkdirSync(tree);
  const archive = join(dir, "before.tar");
  execFileSync("git", ["archive", `--output=${archive}`, BEFORE_FIDELITY, "src"], { cwd: root });
  execFileSync("tar", ["-x", "-C", tree, "-f", archive]);
  const outfile = join(dir, "before.mjs");
  await build({
    entryPoints: [join(tree, "src/index.ts")],
    bundle: true,
    format: "esm",
    platform: "node",
    outfile,
    external: ["node:*"],
    nodePaths: [join(root, "node_modules")],
    define: { __MEDRECORDS_VERSION__: '"0.0.0-before-fidelity"' },
    logLevel: "error",
    plugins: [
      {
        name: "hmac",
        setup(b) {
          b.onResolve({ filter: /^#hmac$/ }, () => ({
            path: join(tree, "src/webhooks/hmac-node.ts"),
          }));
        },
      },
    ],
  });
  return ((await import(pathToFileURL(outfile).href)) as { MedRecords: typeof MedRecords })
    .MedRecords;
}

export const run: Suite = async ({ quick }) => {
  const body = page();
  for (const item of body.results) Case.parse(item);
  const dir = mkdtempSync(join(tmpdir(), "medrecords-bench-fidelity-"));
  const worker = new Worker(SERVER, { eval: true, workerData: { body: JSON.stringify(body) } });
  try {
    const [port] = (await once(worker, "message")) as [number];
    return await bench(`http://127.0.0.1:${port}`, dir, quick);
  } finally {
    worker.postMessage("close");
    await once(worker, "exit");
    rmSync(dir, { recursive: true, force: true });
  }
};

async function bench(baseUrl: string, dir: string, quick: boolean): Promise<BenchRow[]> {
  const Before = await todaysClient(dir);
  const options = { apiKey: API_KEY, baseUrl };
  let drifts = 0;
  const recording = cassette(join(dir, "bench.jsonl"));
  const clients = {
    today: new Before(options),
    off: new MedRecords(options),
    onDrift: new MedRecords({ ...options, onDrift: () => drifts++ }),
    record: new MedRecords({ ...options, record: recording }),
  };
  const list = (client: MedRecords) => () => client.cases.list({ limit: 100 });
  const comparison = await compare(
    {
      today: list(clients.today),
      off: list(clients.off),
      onDrift: list(clients.onDrift),
      record: list(clients.record),
    },
    { rounds: quick ? 8 : 30, iterations: quick ? 20 : 60, warmupMs: quick ? 300 : 1500 },
  );
  if (drifts !== 0)
    throw new Error(`the page drifted ${drifts} times: the bench measures a clean page`);
  const cpu = await mainThreadCpu(list(clients.off), list(clients.record), recording, quick);
  const calls = `${(quick ? 8 * 20 : 30 * 60).toLocaleString("en-US")} pages a side`;
  return [
    ratioRow({
      group: GROUP,
      name: `onDrift on vs off, ${calls}`,
      comparison,
      subject: { task: "onDrift", label: "cases.list with onDrift" },
      baseline: { task: "off", label: "cases.list, defaults" },
      unit: "pages/s",
      target: 0.8,
      note: "A valid page from a node:http server in a worker thread, over one keep-alive connection. With `onDrift`, each page's 100 cases are walked against the `Case` schema (shape only, no validation) and the status against the operation's declaration; the checker is a lazily loaded chunk.",
    }),
    ratioRow({
      group: GROUP,
      name: `record: cassette(path) on vs off, ${calls}`,
      comparison,
      subject: { task: "record", label: "cases.list recorded" },
      baseline: { task: "off", label: "cases.list, defaults" },
      unit: "pages/s",
      target: 0.8,
      note: `The calling thread hands each ended exchange to the cassette's worker thread: the headers made safe, the page's bytes as read (transferred, not copied), the request body's JSON text. That thread parses the page again, scrubs it (a compiled walk of the \`Case\` schema: every personal field replaced through an HMAC of the value, cached per value within the cassette, unknown fields kept in shape only), serializes it (one ~59 KB JSON line) and appends it with a synchronous write (it does nothing else), at a lower priority on Linux (nice 10, so that it yields the second core to the server's thread); the call does not wait for it, and the thread keeps up (each CPU round below ends with \`flush()\`). ${cpu} That thread's own CPU, about 0.3 ms a page in a micro-measure on this machine (parse 0.13, scrub 0.10, serialize 0.08, write 0.02), is spent on the other core: the ratio holds while a core is free (0.83 to 1.03x in the runs made for issue 38) and falls when the machine's cores are all busy (0.44 to 0.76x measured here, at load averages of 3 to 13, before the thread was given a lower priority). Before (on the calling thread: 0.50 to 0.69x, +0.24 to 0.28 ms of its CPU a page). Load average (1 min) at the end of this run: ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores.`,
    }),
    ratioRow({
      group: GROUP,
      name: `both off vs today's client, ${calls}`,
      comparison,
      subject: { task: "off", label: "cases.list, this package" },
      baseline: { task: "today", label: `cases.list, the package at ${BEFORE_FIDELITY}` },
      unit: "pages/s",
      target: 0.95,
      note: `Today's client is the package as it was before the fidelity layer (git ${BEFORE_FIDELITY}), bundled with esbuild from its sources. With neither option set, a call costs two \`undefined\` checks more: the observer is never loaded. Figures: ${perSecond(comparison, "today", "pages/s")} before, ${perSecond(comparison, "off", "pages/s")} now.`,
    }),
  ];
}

/**
 * The calling thread's CPU per page, off and recorded, each round ended by
 * `flush()` (the cassette's thread's own CPU is not counted): medians of
 * alternating rounds. Less moved by the
 * machine's load than pages/s, it says where a recorded page's time goes.
 */
async function mainThreadCpu(
  off: () => PromiseLike<unknown>,
  recorded: () => PromiseLike<unknown>,
  recording: Recorder,
  quick: boolean,
): Promise<string> {
  const pages = quick ? 20 : 60;
  const perPage = async (task: () => PromiseLike<unknown>) => {
    const before = process.threadCpuUsage();
    for (let i = 0; i < pages; i++) await task();
    await recording.flush();
    const used = process.threadCpuUsage(before);
    return (used.user + used.system) / pages;
  };
  const runs = { off: [] as number[], recorded: [] as number[] };
  for (let round = 0; round < (quick ? 3 : 9); round++) {
    if (round % 2 === 0) runs.off.push(await perPage(off));
    runs.recorded.push(await perPage(recorded));
    if (round % 2 === 1) runs.off.push(await perPage(off));
  }
  const [a, b] = [median(runs.off), median(runs.recorded)];
  return `The calling thread's CPU per page (\`process.threadCpuUsage\`, each round ended by \`flush()\`, the cassette's thread not counted, medians of ${runs.off.length} alternating rounds of ${pages} pages): ${Math.round(a)} µs off, ${Math.round(b)} µs recorded (+${Math.round(b - a)} µs, ${(a / b).toFixed(2)}x), where 0.8x allows +${Math.round(a / 4)} µs.`;
}
