/**
 * Preloaded (`node --expose-gc --import <this> dist/cli.js listen ...`) into
 * the `medrecords listen` process by bench/suites/listen.ts, so the real
 * command runs as users run it while this file measures it from inside:
 * every line the command writes to stdout passes through here.
 *
 * - The "Ready" line (written once the start position is saved, before the
 *   first page is read): full GC, the heap used is the cold start.
 * - After `LISTEN_PROBE_WARMUP` event lines (the walk to the oldest page is
 *   done, the code of a delivery compiled): full GC, the heap used is the
 *   warm start.
 * - Every `LISTEN_PROBE_CHECK_EVERY` event lines after that: full GC, the
 *   heap used above the warm start is recorded; the most is the heap kept.
 * - After `LISTEN_PROBE_EVENTS` more event lines: the result goes to the
 *   parent over IPC and the process sends itself SIGINT, which stops
 *   `listen` cleanly, as Ctrl-C does.
 */

export interface ListenProbeReport {
  /** Event lines measured after the warm-up (one per delivery attempt). */
  events: number;
  /** Most heap used after a full GC at a check, above the warm start, bytes. */
  retainedHeap: number;
  /** Most heap used after a full GC at a check (the warm start included), above the cold start, bytes. */
  coldHeap: number;
  /** Seconds from the warm start to the last event line. */
  seconds: number;
  /** CPU of this process over the same span, user + system, seconds. */
  cpuSeconds: number;
  /** Lines that were not 200 deliveries (a failed attempt would schedule a retry). */
  failedLines: string[];
}

const gc = (globalThis as { gc?: () => void }).gc;
const warmup = Number(process.env.LISTEN_PROBE_WARMUP);
const expected = Number(process.env.LISTEN_PROBE_EVENTS);
const checkEvery = Number(process.env.LISTEN_PROBE_CHECK_EVERY);

if (gc === undefined) throw new Error("listen-probe needs --expose-gc");
if (!(warmup > 0 && expected > 0 && checkEvery > 0)) {
  throw new Error("listen-probe: LISTEN_PROBE_WARMUP, _EVENTS and _CHECK_EVERY must be set");
}

let coldStart: number | undefined;
let warmStart = 0;
let started = 0;
let cpuBefore: NodeJS.CpuUsage | undefined;
let lines = 0;
let retainedHeap = 0;
let coldHeap = 0;
let done = false;
const failedLines: string[] = [];
let pending = "";

function heapAfterGc(): number {
  gc!();
  return process.memoryUsage().heapUsed;
}

function onLine(line: string): void {
  if (done) return;
  if (coldStart === undefined) {
    if (line.startsWith("Ready:")) coldStart = heapAfterGc();
    return;
  }
  lines += 1;
  // <time>  <type>  <event id>  <retrieval request>  <what changed>  <status>  <ms>ms[  attempt ...]:
  // the receiver's status is the field before the milliseconds, whatever the event's own fields.
  const fields = line.split("  ");
  const status = fields[fields.findIndex((field) => /^\d+ms$/.test(field)) - 1];
  if (status !== "200" && failedLines.length < 10) failedLines.push(line);
  if (lines === warmup) {
    warmStart = heapAfterGc();
    coldHeap = warmStart - coldStart;
    started = performance.now();
    cpuBefore = process.cpuUsage();
    return;
  }
  const events = lines - warmup;
  if (events <= 0) return;
  if (events % checkEvery === 0 || events === expected) {
    const used = heapAfterGc();
    retainedHeap = Math.max(retainedHeap, used - warmStart);
    coldHeap = Math.max(coldHeap, used - coldStart);
  }
  if (events === expected) {
    done = true;
    const cpu = process.cpuUsage(cpuBefore);
    const report: ListenProbeReport = {
      events,
      retainedHeap,
      coldHeap,
      seconds: (performance.now() - started) / 1000,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      failedLines,
    };
    process.send?.(report, () => {
      process.disconnect();
      process.kill(process.pid, "SIGINT");
    });
  }
}

const write = process.stdout.write.bind(process.stdout) as (...args: unknown[]) => boolean;
process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
  pending += String(chunk);
  for (let at = pending.indexOf("\n"); at !== -1; at = pending.indexOf("\n")) {
    onLine(pending.slice(0, at));
    pending = pending.slice(at + 1);
  }
  return write(chunk, ...rest);
}) as typeof process.stdout.write;
