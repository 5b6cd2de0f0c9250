/**
 * Child of bench/suites/mock-http.ts: an HTTP/1.1 load generator in its own
 * process, so that it never runs on the event loop of the server it loads.
 *
 * `connections` keep-alive connections, each a loop that sends one GET,
 * reads the whole answer and sends the next (no pipelining), for a fixed
 * time after a warm-up. It writes pre-built request bytes on raw sockets and
 * parses just enough of each answer (status, Content-Length or chunked
 * framing): a few microseconds per request, where `fetch` or node:http's
 * client cost tens, as much as the bare server itself, which would then
 * measure the generator instead of the server.
 */
import { connect, type Socket } from "node:net";
import { childMain } from "./child.ts";

export interface LoadChildInput {
  host: string;
  port: number;
  path: string;
  headers: Record<string, string>;
  connections: number;
  warmupMs: number;
  durationMs: number;
  /** The body every answer must have (checked on the first answer of each connection, and by length on all). */
  expectedBody: string;
}

export interface LoadChildOutput {
  /** Answers completed inside the timed window. */
  requests: number;
  seconds: number;
  /** CPU time of the generator during the timed window, seconds. */
  cpuSeconds: number;
}

const CRLF2 = Buffer.from("\r\n\r\n");
const CRLF = Buffer.from("\r\n");

/** One keep-alive connection's loop; `onAnswer` runs after each full answer, before the next request is written. */
function connectionLoop(
  input: LoadChildInput,
  expected: Buffer,
  onAnswer: () => boolean,
  onError: (error: Error) => void,
): Socket {
  const head = [
    `GET ${input.path} HTTP/1.1`,
    `Host: ${input.host}:${input.port}`,
    ...Object.entries(input.headers).map(([name, value]) => `${name}: ${value}`),
    "",
    "",
  ].join("\r\n");
  const request = Buffer.from(head, "latin1");
  const socket = connect({ host: input.host, port: input.port, noDelay: true });
  let buffered: Buffer = Buffer.alloc(0);
  // Where the parser stands in the answer being read.
  let state: "head" | "length" | "chunk-size" | "chunk-data" | "chunk-crlf" | "last-crlf" = "head";
  let remaining = 0;
  let bodyLength = 0;
  let checkedBody = false;
  const bodyParts: Buffer[] = [];

  const finish = () => {
    if (bodyLength !== expected.length) {
      onError(new Error(`answer of ${bodyLength} bytes, expected ${expected.length}`));
      return;
    }
    if (!checkedBody) {
      checkedBody = true;
      if (!Buffer.concat(bodyParts).equals(expected)) {
        onError(new Error("the answer's body differs from the expected one"));
        return;
      }
    }
    bodyParts.length = 0;
    state = "head";
    bodyLength = 0;
    if (onAnswer()) socket.write(request);
    else socket.end();
  };

  /** Takes up to `remaining` body bytes; true when all were there. */
  const takeBody = (): boolean => {
    const n = Math.min(remaining, buffered.length);
    if (!checkedBody) bodyParts.push(Buffer.from(buffered.subarray(0, n)));
    bodyLength += n;
    remaining -= n;
    buffered = buffered.subarray(n);
    return remaining === 0;
  };

  socket.on("data", (data: Buffer) => {
    buffered = buffered.length === 0 ? data : Buffer.concat([buffered, data]);
    for (;;) {
      switch (state) {
        case "head": {
          const end = buffered.indexOf(CRLF2);
          if (end === -1) return;
          const text = buffered.toString("latin1", 0, end).toLowerCase();
          buffered = buffered.subarray(end + 4);
          const status = Number(text.slice(9, 12));
          if (status !== 200) return onError(new Error(`answered ${status}`));
          if (text.includes("\r\ntransfer-encoding: chunked")) state = "chunk-size";
          else {
            remaining = Number(/\r\ncontent-length: *(\d+)/.exec(text)?.[1] ?? 0);
            state = "length";
          }
          break;
        }
        case "length":
          if (!takeBody()) return;
          finish();
          break;
        case "chunk-size": {
          const end = buffered.indexOf(CRLF);
          if (end === -1) return;
          remaining = Number.parseInt(buffered.toString("latin1", 0, end), 16);
          buffered = buffered.subarray(end + 2);
          state = remaining > 0 ? "chunk-data" : "last-crlf";
          break;
        }
        case "chunk-data":
          if (!takeBody()) return;
          state = "chunk-crlf";
          break;
        case "chunk-crlf":
          if (buffered.length < 2) return;
          buffered = buffered.subarray(2);
          state = "chunk-size";
          break;
        case "last-crlf":
          // No trailers: the empty trailer section is one CRLF.
          if (buffered.length < 2) return;
          buffered = buffered.subarray(2);
          finish();
          break;
      }
    }
  });
  socket.on("error", onError);
  socket.once("connect", () => socket.write(request));
  return socket;
}

childMain<LoadChildInput, LoadChildOutput>(async (input) => {
  const expected = Buffer.from(input.expectedBody);
  let phase: "warmup" | "timed" | "done" = "warmup";
  let requests = 0;
  let failure: Error | undefined;
  let open = input.connections;
  let allClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    allClosed = resolve;
  });
  const sockets = Array.from({ length: input.connections }, () => {
    const socket = connectionLoop(
      input,
      expected,
      () => {
        if (phase === "timed") requests += 1;
        return phase !== "done";
      },
      (error) => {
        failure ??= error;
        phase = "done";
      },
    );
    socket.once("close", () => {
      if (--open === 0) allClosed();
    });
    return socket;
  });
  await new Promise((resolve) => setTimeout(resolve, input.warmupMs));
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  phase = "timed";
  await new Promise((resolve) => setTimeout(resolve, input.durationMs));
  const seconds = (performance.now() - started) / 1000;
  const counted = requests;
  phase = "done";
  const cpu = process.cpuUsage(cpuBefore);
  // Each connection ends after its answer in flight; a stuck one is destroyed.
  const timer = setTimeout(() => {
    for (const socket of sockets) socket.destroy();
  }, 5_000);
  await closed;
  clearTimeout(timer);
  if (failure) throw failure;
  return { requests: counted, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
});
