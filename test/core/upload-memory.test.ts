import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MedRecords } from "../../src/index.js";

const MiB = 1024 * 1024;
let sink: ChildProcess;
let baseUrl: string;

beforeAll(async () => {
  sink = spawn(process.execPath, [new URL("../helpers/upload-sink.ts", import.meta.url).pathname], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const [line] = (await once(sink.stdout!, "data")) as [Buffer];
  baseUrl = `http://127.0.0.1:${line.toString().trim()}`;
});

afterAll(() => {
  sink?.kill("SIGTERM");
});

/**
 * Bytes made on demand, 64 KiB at a time: nothing of the whole exists
 * anywhere. Every 16 MiB it collects garbage, so that what the measurement
 * sees is what the upload retains, not chunks V8 has not yet reclaimed.
 */
function generated(total: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= total) return controller.close();
      if (sent % (16 * MiB) === 0) globalThis.gc?.();
      const n = Math.min(64 * 1024, total - sent);
      controller.enqueue(new Uint8Array(n).fill(sent & 0xff));
      sent += n;
    },
  });
}

async function peakGrowthWhile(work: () => Promise<unknown>): Promise<number> {
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  peak = Math.max(peak, process.memoryUsage().rss);
  return peak - before;
}

describe("streamed uploads", () => {
  it("a 200 MiB generated web stream is sent whole with memory growth under 64 MiB", async () => {
    const mr = new MedRecords({ apiKey: "medrecords_sk_live_x", baseUrl });
    const size = 200 * MiB;
    let document: { file_size: number; file_type: string } | undefined;
    const growth = await peakGrowthWhile(async () => {
      document = await mr.cases.uploadDocument("case_1", {
        file: generated(size),
        size,
        file_name: "big.bin",
        file_type: "application/octet-stream",
      });
    });
    expect(document).toMatchObject({ file_size: size, file_type: "application/octet-stream" });
    expect(growth).toBeLessThan(64 * MiB);
  });

  it("a Node stream with a known size is streamed too", async () => {
    const mr = new MedRecords({ apiKey: "medrecords_sk_live_x", baseUrl });
    const size = 32 * MiB;
    const nodeStream = Readable.fromWeb(
      generated(size) as import("node:stream/web").ReadableStream,
    );
    const document = await mr.cases.uploadDocument("case_1", {
      file: nodeStream,
      size,
      file_name: "node.bin",
      file_type: "application/pdf",
    });
    expect(document.file_size).toBe(size);
  });
});
