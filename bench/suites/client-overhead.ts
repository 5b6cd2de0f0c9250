/**
 * Client call overhead: sequential `cases.retrieve` calls against a local
 * node:http server returning a fixed case, against the peer users compare us
 * with (openai-node's generic `client.get`, a Stainless-generated SDK over
 * fetch) and against raw `fetch` + `JSON.parse` of the same address with the
 * same headers. The server runs in a worker
 * thread, so its own time is not charged to either side's thread.
 */
import { once } from "node:events";
import { Worker } from "node:worker_threads";
import ky from "ky";
import { Case, MedRecords } from "medrecords";
import OpenAI from "openai";
import { compare } from "../lib/measure.ts";
import { perSecond, ratioRow } from "../lib/rows.ts";
import type { BenchRow, Suite } from "../lib/types.ts";

const GROUP = "Client call overhead";
const API_KEY = "mr_test_4f8a2c9d1e7b3a6f0c5d8e2b9a1f7c3d";
const CASE_ID = "case_01JH8ZQ4K2M7N9P3R5T6V8W0XY";

/** A case as the service returns it, every optional field filled. */
const CASE = {
  id: CASE_ID,
  case_number: "MR-2026-004812",
  title: "Doe v. Acme Logistics",
  client_name: "Jane Doe",
  description: "Rear-end collision on I-55; cervical strain and a fractured wrist.",
  client_date_of_birth: "1987-04-12",
  client_address: "1450 W Monroe St, Springfield, IL 62704",
  client_phone: "+1-217-555-0198",
  client_email: "jane.doe@example.com",
  date_of_injury: "2025-11-03",
  deposition_date: "2026-06-18",
  case_category: "motor_vehicle_accident",
  status: "active",
  external_id: "clio-88213",
  created_at: "2025-11-10T15:04:05.123Z",
  updated_at: "2026-02-01T09:30:00.000Z",
};

// Plain JavaScript for the worker (eval), so it needs no loader.
const SERVER = `
const http = require("node:http");
const { parentPort, workerData } = require("node:worker_threads");
const body = Buffer.from(workerData.body);
const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, {
      "content-type": "application/json",
      "content-length": body.length,
      "x-request-id": "req_01JH8ZQ4K2M7N9P3R5T6V8W0XY",
    });
    res.end(body);
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, "127.0.0.1", () => parentPort.postMessage(server.address().port));
parentPort.on("message", () => server.close(() => process.exit(0)));
`;

export const run: Suite = async ({ quick }) => {
  // The fixture must be what the client accepts when it validates responses.
  Case.parse(CASE);
  const worker = new Worker(SERVER, { eval: true, workerData: { body: JSON.stringify(CASE) } });
  try {
    const [port] = (await once(worker, "message")) as [number];
    const baseUrl = `http://127.0.0.1:${port}`;
    return await bench(baseUrl, quick);
  } finally {
    worker.postMessage("close");
    await once(worker, "exit");
  }
};

async function bench(baseUrl: string, quick: boolean): Promise<BenchRow[]> {
  const client = new MedRecords({ apiKey: API_KEY, baseUrl });
  const strict = new MedRecords({ apiKey: API_KEY, baseUrl, validateResponses: true });
  const url = `${baseUrl}/v2/cases/${CASE_ID}`;
  const headers = { accept: "application/json", authorization: `Bearer ${API_KEY}` };

  const raw = async () => {
    const response = await fetch(url, { headers });
    if (!response.ok) throw new Error(`raw fetch: ${response.status}`);
    return JSON.parse(await response.text());
  };
  const ours = () => client.cases.retrieve(CASE_ID);
  // The peer at its defaults too (2 retries, its own timeout), on the same path and key.
  const openai = new OpenAI({ apiKey: API_KEY, baseURL: baseUrl });
  const peer = () => openai.get(`/v2/cases/${CASE_ID}`);
  // For the note: where the time goes.
  const oursValidated = () => strict.cases.retrieve(CASE_ID);
  const kyAlone = async () =>
    JSON.parse(await (await ky(url, { headers, timeout: 30_000, redirect: "manual" })).text());

  // 10 000 calls a side in full (40 rounds of 250), 1 000 in quick (10 of 100).
  const rounds = quick ? 10 : 40;
  const iterations = quick ? 100 : 250;
  const comparison = await compare(
    { ours, raw, peer, kyAlone, oursValidated },
    { rounds, iterations, warmupMs: quick ? 300 : 1500 },
  );
  const calls = (rounds * iterations).toLocaleString("en-US");
  const share = (task: string) =>
    `${perSecond(comparison, task, "req/s")}, ${comparison.ratio(task, "raw").toFixed(2)}x of raw fetch`;
  return [
    ratioRow({
      group: GROUP,
      name: `cases.retrieve, ${calls} sequential calls vs openai-node`,
      comparison,
      subject: { task: "ours", label: "client.cases.retrieve (defaults)" },
      baseline: { task: "peer", label: "openai-node client.get (defaults)" },
      unit: "req/s",
      target: 1.15,
      note: "openai-node 7 (`new OpenAI({ apiKey, baseURL })`, `client.get(path)`) on the same server and connection reuse: its per-call work is building headers (its platform headers included), the retry loop with its timeout, and parsing; it validates nothing. Ours does the same plus path-parameter validation and PHI-safe error mapping; in the profile described under the raw-fetch row, an openai-node call costs more client CPU than ours (its platform headers, its own retry loop and timeout, more promise layers).",
    }),
    {
      ...ratioRow({
        group: GROUP,
        name: `cases.retrieve, ${calls} sequential calls vs raw fetch`,
        comparison,
        subject: { task: "ours", label: "client.cases.retrieve (defaults)" },
        baseline: { task: "raw", label: "fetch + JSON.parse" },
        unit: "req/s",
        target: 0.85,
        note: [
          "One keep-alive connection to a node:http server in a worker thread, fixed valid `Case` body. Ours runs at its defaults: path-parameter validation, ky with the retry policy and the 30 s timeout, the attempt instrumentation, reading the body inside the attempt, error mapping and JSON parsing; responses are not validated (`validateResponses: false`).",
          `ky alone, as a plain \`ky(url, { headers, timeout, redirect })\` call and \`JSON.parse\` with none of ours: ${share("kyAlone")}. Ours is ${comparison.ratio("ours", "kyAlone").toFixed(2)}x of ky alone (the issue's alternative target: within 5 %).`,
          "Where the time goes (issue 19 profile, `node --cpu-prof` with the transport replaced by an in-memory `fetch`, so that only JavaScript is left: medians of 15 rounds of 5 000 calls): a bare `fetch` + `JSON.parse` ~12 µs, ky alone ~35 µs, ours ~45 µs. ky's own floor is a `Request` built, then cloned for retries, an `AbortController` whose signal undici follows with a `WeakRef` and a finalizer per `Request` (three per attempt: ky's, its clone, and fetch's own), the options deep-merged and the retry options normalized twice, a timer armed. Ours adds the attempt wrapper and its report, the path template and the request id. Kept from issue 19: the proxy decision made once per client; the body read as text and parsed inside the attempt, and let go of after (a heap saving the pagination and poller rows show). Traded in issue 26: the per-call caches and shortcuts issue 19 added (headers precomputed, retry options cached and trimmed to fewer keys, path templates split once, no `method` for GET, no empty `RequestInit`, a same-origin prefix test) are gone, ky's options now written as its documentation shows: with the transport replaced by an in-memory `fetch` (CPU time, medians of 12 alternating rounds of 4 000 calls, on a loaded machine) that costs about 5 µs per call, some 10 % of the JavaScript-only floor of about 42 µs. Over loopback, on the shared 2-core machine of issue 26 (load average 5 to 20), the code before and after, run alternately: this row 0.53x to 0.63x before and 0.48x to 0.52x after (four runs each; 0.44x in a fifth at load 20), the openai-node row 1.30x to 1.61x before and 1.26x to 1.56x after: a few percent against raw fetch, inside the run-to-run spread of the openai-node row, traded for a request pipeline written as ky documents it. Below ky's floor, the raw-fetch ratio would need `fetch` without ky, which stays the transport by decision (DESIGN section 3: retries through ky's own retry).",
          `With \`validateResponses: true\` (each body also parsed strictly with the zod \`Case\` schema, meant for test suites): ${share("oursValidated")}.`,
        ].join(" "),
      }),
      // For information since issue 35: below ky's floor (the ky-alone figure in the note), only a
      // client without ky would reach 0.85x of raw fetch, and ky is the transport by decision
      // (DESIGN section 3); the openai-node row above carries this suite's target.
      informational: true,
    },
  ];
}
