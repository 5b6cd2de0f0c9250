/**
 * Child of bench/suites/upload.ts: uploads a generated stream `iterations`
 * times, through the SDK's upload helper or through a hand-written `fetch`
 * sign + PUT, and reports the time taken and the RSS growth.
 */
import { MedRecords } from "medrecords";
import { childMain, type MemoryReport, measureMemory } from "./child.ts";

export interface UploadChildInput {
  mode: "sdk" | "fetch";
  apiUrl: string;
  /** Bytes per upload. */
  size: number;
  /** Uploads timed, one after another. */
  iterations: number;
  /** Uploads of `warmupSize` bytes before timing (module loading, JIT, connection pools). */
  warmup: number;
  /** @default `size` */
  warmupSize?: number;
}

export type UploadChildOutput = { seconds: number } & MemoryReport;

const CHUNK = 64 * 1024;
const TEMPLATE = new Uint8Array(CHUNK).map((_, i) => i & 0xff);

const gc = (globalThis as { gc?: (options: { type: "minor"; execution: "sync" }) => void }).gc;
/** Chunks between two minor GCs: 8 MiB. */
const GC_EVERY = 128;

/**
 * `size` bytes, made lazily in 64 KiB chunks. Each chunk is a fresh copy of
 * a template, as a file read makes: with one reused buffer, a transport that
 * kept every chunk (nodejs/undici#4058) would cost no memory and the RSS
 * limit would prove nothing. The generator's own litter is then collected
 * by a minor GC every 8 MiB (the child runs with --expose-gc); otherwise V8
 * lets some 64 MiB of dead chunks pile up before its external-memory
 * heuristic collects them, whatever reads the stream. A chunk the upload
 * path still holds survives the GC and counts.
 */
export function generatedStream(size: number): ReadableStream<Uint8Array> {
  let sent = 0;
  let chunks = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (sent >= size) {
          controller.close();
          return;
        }
        if (++chunks % GC_EVERY === 0) gc?.({ type: "minor", execution: "sync" });
        const n = Math.min(CHUNK, size - sent);
        const chunk = new Uint8Array(n);
        chunk.set(n === CHUNK ? TEMPLATE : TEMPLATE.subarray(0, n));
        sent += n;
        controller.enqueue(chunk);
      },
    },
    { highWaterMark: 0 },
  );
}

const FILE = { file_name: "bench.bin", file_type: "application/octet-stream" };

childMain<UploadChildInput, UploadChildOutput>(async (input) => {
  const apiKey = "medrecords_sk_live_benchbenchbenchbenchbenchbench12";
  const mr = new MedRecords({ apiKey, baseUrl: input.apiUrl, maxRetries: 0 });

  const sdkUpload = (size: number) =>
    mr.retrievalRequests.uploadFile({ ...FILE, file: generatedStream(size), size });

  // What you would write without the SDK: sign, then PUT the stream with fetch.
  const fetchUpload = async (size: number) => {
    const signed = await fetch(`${input.apiUrl}/v2/retrieval-requests/sign-upload`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify(FILE),
    });
    if (!signed.ok) throw new Error(`sign-upload answered ${signed.status}`);
    const { upload_id, upload_url } = (await signed.json()) as {
      upload_id: string;
      upload_url: string;
    };
    const put = await fetch(upload_url, {
      method: "PUT",
      body: generatedStream(size),
      headers: { "content-type": FILE.file_type, "content-length": String(size) },
      duplex: "half",
    } as RequestInit);
    await put.arrayBuffer();
    if (!put.ok) throw new Error(`PUT answered ${put.status}`);
    return upload_id;
  };

  const upload = input.mode === "sdk" ? sdkUpload : fetchUpload;
  for (let i = 0; i < input.warmup; i++) await upload(input.warmupSize ?? input.size);
  const { value: seconds, ...memory } = await measureMemory(async () => {
    const started = performance.now();
    for (let i = 0; i < input.iterations; i++) await upload(input.size);
    return (performance.now() - started) / 1000;
  });
  return { seconds, ...memory };
});
