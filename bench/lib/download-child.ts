/**
 * Child of bench/suites/custody.ts: downloads a document `iterations` times
 * with `mr.documents.content()`, reading the body to its end, with a custody
 * log attached (a `fileCustodyLog` in a temporary directory), without, or
 * without one but hashed by hand with node:crypto as the body is read (the
 * hash floor: what any client that hashes the bytes pays), and reports the
 * time taken and the RSS growth.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileCustodyLog, MedRecords } from "medrecords";
import { childMain, type MemoryReport, measureMemory } from "./child.ts";

export interface DownloadChildInput {
  mode: "log" | "plain" | "hashed";
  apiUrl: string;
  /** The document whose size is what the timed downloads read. */
  documentId: string;
  /** Downloads timed, one after another. */
  iterations: number;
  /** Downloads of `warmupDocumentId` before timing (module loading, JIT, connection pools). */
  warmup: number;
  warmupDocumentId: string;
}

const gc = (globalThis as { gc?: (options: { type: "minor"; execution: "sync" }) => void }).gc;
/** Bytes read between two minor GCs (the child runs with --expose-gc). */
const GC_EVERY = 8 * 1024 * 1024;

export type DownloadChildOutput = {
  seconds: number;
  /** CPU time (user + system) of the timed downloads, seconds: what hashing adds shows here even on a loaded machine. */
  cpuSeconds: number;
  bytes: number;
  entries: number;
} & MemoryReport;

childMain<DownloadChildInput, DownloadChildOutput>(async (input) => {
  const dir = mkdtempSync(join(tmpdir(), "medrecords-bench-custody-"));
  try {
    const custodyLog =
      input.mode === "log" ? fileCustodyLog(join(dir, "custody.jsonl")) : undefined;
    const mr = new MedRecords({
      apiKey: "medrecords_sk_live_benchbenchbenchbenchbenchbench12",
      baseUrl: input.apiUrl,
      maxRetries: 0,
      custodyLog,
    });
    let entries = 0;
    const download = async (documentId: string) => {
      const response = await mr.documents.content(documentId);
      const reader = response.body!.getReader();
      const hash = input.mode === "hashed" ? createHash("sha256") : undefined;
      let bytes = 0;
      let sinceGc = 0;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        bytes += value.byteLength;
        hash?.update(value);
        // The reader's own dead chunks, collected as they pile up (as bench/lib/upload-child.ts
        // does for its generator): V8 would otherwise let tens of MiB of them wait for its
        // external-memory heuristic, with a log or without. A chunk still held survives and counts.
        sinceGc += value.byteLength;
        if (sinceGc >= GC_EVERY) {
          sinceGc = 0;
          gc?.({ type: "minor", execution: "sync" });
        }
      }
      hash?.digest("hex");
      if (custodyLog) entries++;
      return bytes;
    };
    for (let i = 0; i < input.warmup; i++) await download(input.warmupDocumentId);
    let bytes = 0;
    let cpuSeconds = 0;
    const { value: seconds, ...memory } = await measureMemory(
      async () => {
        const started = performance.now();
        const cpu = process.cpuUsage();
        for (let i = 0; i < input.iterations; i++) bytes += await download(input.documentId);
        const used = process.cpuUsage(cpu);
        cpuSeconds = (used.user + used.system) / 1e6;
        return (performance.now() - started) / 1000;
        // No RSS sampler: its cost would count in `cpuSeconds`, more on the slower side.
      },
      { sample: false },
    );
    return { seconds, cpuSeconds, bytes, entries, ...memory };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
