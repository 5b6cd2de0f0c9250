import { connect } from "node:net";
import { getHeapSpaceStatistics } from "node:v8";

/**
 * Sends a POST whose body goes out as one HTTP/1.1 chunk per byte (what a
 * sender can do to make a receiver hold one Buffer per byte), and resolves
 * to the status of the answer. The body is ASCII; `url` an `http://` origin.
 */
export function postInOneByteChunks(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<number> {
  const { hostname, port } = new URL(url);
  const head = [
    "POST / HTTP/1.1",
    `host: ${hostname}:${port}`,
    "content-type: application/json",
    "transfer-encoding: chunked",
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ].join("\r\n");
  return new Promise<number>((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let answer = "";
    socket.setEncoding("latin1");
    socket.on("data", (text: string) => {
      answer += text;
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(answer);
      if (status && answer.includes("\r\n\r\n")) {
        resolve(Number(status[1]));
        socket.destroy();
      }
    });
    // A receiver that answers early (413) may reset the connection while bytes are still going out.
    socket.on("error", () => undefined);
    socket.on("close", () => reject(new Error(`closed without an answer: ${answer.slice(0, 80)}`)));
    socket.write(`${head}\r\n\r\n`);
    // 64 Ki bytes of body (384 KiB on the wire) per write, with backpressure.
    const step = 65_536;
    let offset = 0;
    const write = () => {
      while (offset < body.length && !socket.destroyed) {
        const wire = oneByteChunks(body, offset, step);
        offset += step;
        if (!socket.write(wire)) {
          socket.once("drain", write);
          return;
        }
      }
      if (!socket.destroyed) socket.write("0\r\n\r\n");
    };
    write();
  });
}

/**
 * `body[offset, offset + count)` as HTTP chunks of one byte each, written
 * straight into a Buffer (outside the V8 heap the tests measure).
 */
function oneByteChunks(body: string, offset: number, count: number): Buffer {
  const end = Math.min(body.length, offset + count);
  const wire = Buffer.alloc((end - offset) * 6);
  for (let i = offset, at = 0; i < end; i++, at += 6) {
    // "1\r\n" <byte> "\r\n"
    wire[at] = 0x31;
    wire[at + 1] = 0x0d;
    wire[at + 2] = 0x0a;
    wire[at + 3] = body.charCodeAt(i);
    wire[at + 4] = 0x0d;
    wire[at + 5] = 0x0a;
  }
  return wire;
}

/**
 * The peak growth of what the process keeps (see `retained`) while `work`
 * runs, in bytes, after a full collection (run with --expose-gc, as the test
 * config does). Sampled every few milliseconds: a receiver that holds a
 * Buffer per byte shows it at once.
 */
export async function peakHeapGrowth(work: () => Promise<unknown>): Promise<number> {
  globalThis.gc?.();
  const before = retained();
  let peak = before;
  const sample = () => {
    peak = Math.max(peak, retained());
  };
  const timer = setInterval(sample, 5);
  try {
    await work();
  } finally {
    clearInterval(timer);
    sample();
  }
  return peak - before;
}

/**
 * The heap without its young generation (what survived a scavenge: garbage
 * the parser makes per chunk is not counted until it is kept), plus the
 * memory of array buffers (Buffers' bytes, outside the heap).
 */
function retained(): number {
  let bytes = process.memoryUsage().arrayBuffers;
  for (const space of getHeapSpaceStatistics()) {
    if (space.space_name !== "new_space") bytes += space.space_used_size;
  }
  return bytes;
}
