/**
 * Issue 28, the custody log: a 1 GiB download through
 * `mr.documents.content()` with a `fileCustodyLog` attached (the body hashed
 * with SHA-256 as it streams, the document's metadata read beside the
 * signing call, one entry appended and fsynced at the end) against the same
 * download without a log; and the peak RSS growth of both.
 *
 * The API and the storage origin are node:http servers in this process; each
 * download runs in its own child process (bench/lib/download-child.ts), so
 * the child's CPU and RSS are the client's alone. The two modes alternate,
 * round after round; a ratio is the median of the per-round ratios.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { MiB, runChild } from "../lib/child.ts";
import type { DownloadChildInput, DownloadChildOutput } from "../lib/download-child.ts";
import { median } from "../lib/measure.ts";
import type { Suite } from "../lib/types.ts";

const CHILD = new URL("../lib/download-child.ts", import.meta.url);
const GROUP = "Custody log (documents.content, loopback)";
const TARGET = 0.9;
const RSS_LIMIT = 64 * MiB;
/** RSS growth below this counts as this in the memory ratio: differences under it are noise. */
const RSS_NOISE = 4 * MiB;
const CHUNK = Buffer.alloc(64 * 1024, 0x5a);

/** The API's document routes, and a storage origin that streams `size` bytes per document. */
async function startServers(sizes: Record<string, number>) {
  let storageUrl = "";
  const storage = createServer((req, res) => {
    const id = req.url?.split("/").pop() ?? "";
    const size = sizes[id];
    if (req.method !== "GET" || size === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/pdf", "content-length": String(size) });
    let sent = 0;
    const write = () => {
      while (sent < size) {
        const n = Math.min(CHUNK.length, size - sent);
        sent += n;
        if (!res.write(n === CHUNK.length ? CHUNK : CHUNK.subarray(0, n))) {
          res.once("drain", write);
          return;
        }
      }
      res.end();
    };
    write();
  });
  const api = createServer((req, res) => {
    req.resume();
    const match = /^\/v2\/documents\/([^/]+)(\/download)?$/.exec(req.url ?? "");
    const id = match?.[1] ?? "";
    if (req.method !== "GET" || sizes[id] === undefined) return void res.writeHead(404).end();
    const body = match?.[2]
      ? { download_url: `${storageUrl}/files/${id}`, expires_in: 3600 }
      : {
          id,
          case_id: "case_bench",
          file_name: `${id}.pdf`,
          file_size: sizes[id],
          file_type: "application/pdf",
          path: null,
          archived: false,
          created_at: "2026-06-15T12:00:00.000Z",
          updated_at: "2026-06-15T12:00:00.000Z",
        };
    res
      .writeHead(200, { "content-type": "application/json", "x-request-id": `req_${id}` })
      .end(JSON.stringify(body));
  });
  const listen = (server: Server) =>
    new Promise<string>((resolve) =>
      server.listen(0, "127.0.0.1", () =>
        resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
      ),
    );
  const apiUrl = await listen(api);
  storageUrl = await listen(storage);
  const close = (server: Server) =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return { apiUrl, close: () => Promise.all([close(api), close(storage)]) };
}

/** Median CPU seconds per GiB read, of one mode. */
const cpuPerGiB = (rounds: Round[], mode: "log" | "plain") =>
  median(rounds.map((r) => r[mode].cpuSeconds / (r[mode].bytes / (1024 * MiB)))).toFixed(2);

interface Round {
  log: DownloadChildOutput;
  plain: DownloadChildOutput;
}

export const run: Suite = async ({ quick }) => {
  const size = quick ? 256 * MiB : 1024 * MiB;
  const servers = await startServers({ doc_big: size, doc_small: MiB });
  try {
    const rounds: Round[] = [];
    for (let r = 0; r < (quick ? 1 : 3); r++) {
      const order: ("log" | "plain")[] = r % 2 === 0 ? ["log", "plain"] : ["plain", "log"];
      const round: Partial<Round> = {};
      for (const mode of order) {
        const input: DownloadChildInput = {
          mode,
          apiUrl: servers.apiUrl,
          documentId: "doc_big",
          iterations: 1,
          warmup: 5,
          warmupDocumentId: "doc_small",
        };
        round[mode] = await runChild<DownloadChildOutput>(CHILD, input, {
          execArgv: ["--expose-gc"],
        });
        if (round[mode].bytes !== size) throw new Error(`${mode}: read ${round[mode].bytes} bytes`);
      }
      rounds.push(round as Round);
    }
    const label = quick ? "256 MiB (quick)" : "1 GiB";
    const speed = (o: DownloadChildOutput) => size / MiB / o.seconds;
    const logGrowth = Math.max(...rounds.map((r) => r.log.peakGrowth));
    const plainGrowth = Math.max(...rounds.map((r) => r.plain.peakGrowth));
    const subjectLabel = "content() with fileCustodyLog";
    const baselineLabel = "content() without a log";
    return [
      {
        group: GROUP,
        name: `${label} download, log attached vs none`,
        subject: {
          label: subjectLabel,
          value: median(rounds.map((r) => speed(r.log))),
          unit: "MiB/s",
        },
        baseline: {
          label: baselineLabel,
          value: median(rounds.map((r) => speed(r.plain))),
          unit: "MiB/s",
        },
        ratio: median(rounds.map((r) => speed(r.log) / speed(r.plain))),
        target: TARGET,
        note:
          "With the log, each chunk of the body goes through node:crypto's incremental SHA-256 on its way to the " +
          "reader (one more pull-based stream in the chain), the document's metadata is read alongside the " +
          "signing call, and one entry is appended and fsynced before the body ends. The hash is the cost: CPU " +
          `time per GiB (median) ${cpuPerGiB(rounds, "plain")} s without a log, ${cpuPerGiB(rounds, "log")} s with ` +
          "it, while the stream layer alone and the entry cost next to nothing (profiled: a pass-through stream " +
          "without the hash adds no measurable CPU). SHA-256 (OpenSSL, with the CPU's SHA extensions) runs at " +
          "about the speed of Node's fetch reading the body, so on one thread the ratio is near " +
          "fetch/(fetch + hash), well under 0.9x whatever the implementation. Reaching 0.9x needs the hash " +
          "off the reading thread (a worker fed copies of the chunks), which pays off only with a core to spare: " +
          "not on this 2-core machine, where the storage server takes one. Per-round ratios " +
          `${rounds.map((r) => `${(speed(r.log) / speed(r.plain)).toFixed(2)}x`).join(", ")}.`,
      },
      {
        group: GROUP,
        name: `${label} download peak RSS growth, log attached vs none`,
        subject: { label: subjectLabel, value: logGrowth / MiB, unit: "MiB" },
        baseline: { label: baselineLabel, value: plainGrowth / MiB, unit: "MiB" },
        ratio: Math.max(plainGrowth, RSS_NOISE) / Math.max(logGrowth, RSS_NOISE),
        target: 1,
        lowerIsBetter: true,
        limit: {
          description: `peak RSS growth of a ${label} download with a custody log <= 64 MiB (was ${(logGrowth / MiB).toFixed(1)} MiB)`,
          ok: logGrowth <= RSS_LIMIT,
        },
        note:
          "Peak growth: the child's kernel high-water mark (resourceUsage().maxRSS) minus its RSS when the timed " +
          "download started (after five 1 MiB warm-up downloads), worst round; growth under 4 MiB counts as " +
          "4 MiB in the ratio. The reader runs a minor GC every 8 MiB so that its own dead chunks do not count " +
          "(as the upload rows' generator does); a chunk the download path still holds does. The hash keeps no " +
          "chunk: memory stays that of the stream without a log; the worst round of either side moves by a few " +
          "MiB from run to run (an earlier run: 13.9 MiB with the log, 22.3 MiB without).",
      },
    ];
  } finally {
    await servers.close();
  }
};
