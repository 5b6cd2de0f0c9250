/**
 * Child of bench/suites/pagination.ts and poller.ts: reads every event of a
 * reference server's log over HTTP, one way per run, and reports events per
 * second and how much memory the walk kept.
 *
 * - `sdk`: `for await (const event of mr.events.list({ limit }))`.
 * - `fetch`: a hand-written loop, `fetch` + `json()`, following `next`.
 * - `poller`: `mr.events.catchUp({ checkpoint: memoryCheckpoint(), onEvent })`
 *   with a no-op `onEvent`, from an empty checkpoint: every event, oldest first.
 * - `fetch-oldest-first`: what the poller does, by hand: `next` to the last
 *   page, then `previous` back to the first, each page read in reverse.
 * - `ky`: the `fetch` loop through ky alone, as its README shows
 *   (`ky(url, { headers }).json()`, its default retry and timeout): the
 *   floor under any client built on ky, as this SDK's is.
 *
 * Memory: every `checkEvery` events the child runs a full GC and records the
 * heap still used above what it used before the walk. A walk that kept what
 * it read would grow by the whole log; one that keeps a page, by a page.
 */
import ky from "ky";
import { MedRecords, memoryCheckpoint } from "medrecords";
import { childMain, type MemoryReport, measureMemory } from "./child.ts";

export type WalkMode = "sdk" | "fetch" | "poller" | "fetch-oldest-first" | "ky";

export interface WalkChildInput {
  mode: WalkMode;
  baseUrl: string;
  apiKey: string;
  /** Events the log holds; the walk fails unless it saw exactly these. */
  events: number;
  /** Events per page (`limit`), the same for every mode. */
  pageSize: number;
  /** Events read before the timed walk (a partial walk: JIT, connection pool). */
  warmupEvents: number;
  /** Events between two heap checks. */
  checkEvery: number;
}

export interface WalkChildOutput extends MemoryReport {
  /** Wall time of the walk without its heap checks (forced GCs), seconds. */
  seconds: number;
  /** Time the heap checks took, seconds (left out of `seconds`). */
  checkSeconds: number;
  /** CPU time of this (client) process during the walk, user + system, seconds. */
  cpuSeconds: number;
  /** Most heap used after a full GC at a check, above the heap used before the walk, in bytes. */
  retainedHeap: number;
}

interface RawPage {
  results: { id: string }[];
  next: string | null;
  previous: string | null;
}

const gc = (globalThis as { gc?: () => void }).gc;

childMain<WalkChildInput, WalkChildOutput>(async (input) => {
  const { baseUrl, apiKey, pageSize } = input;
  const mr = new MedRecords({ apiKey, baseUrl });
  const headers = { authorization: `Bearer ${apiKey}`, accept: "application/json" };
  const first = `${baseUrl}/v2/events?limit=${pageSize}`;

  const get = async (url: string): Promise<RawPage> => {
    const response = await fetch(url, { headers });
    if (!response.ok) throw new Error(`GET /v2/events answered ${response.status}`);
    return (await response.json()) as RawPage;
  };

  /** Calls `seen` once per event, until `stop` returns true; resolves to the events seen. */
  const walks: Record<WalkMode, (seen: () => boolean) => Promise<void>> = {
    async sdk(seen) {
      for await (const event of mr.events.list({ limit: pageSize })) {
        if (event.id === "" || seen()) return;
      }
    },
    async fetch(seen) {
      for (let url: string | null = first; url !== null; ) {
        const page: RawPage = await get(url);
        for (const event of page.results) if (event.id === "" || seen()) return;
        url = page.next;
      }
    },
    async ky(seen) {
      for (let url: string | null = first; url !== null; ) {
        const page: RawPage = await ky(url, { headers }).json();
        for (const event of page.results) if (event.id === "" || seen()) return;
        url = page.next;
      }
    },
    async poller(seen) {
      let stopped = false;
      const poller = mr.events.catchUp({
        checkpoint: memoryCheckpoint(),
        pageSize,
        onEvent: () => {
          if (!stopped && seen()) {
            stopped = true;
            void poller.stop();
          }
        },
      });
      await poller.runOnce();
    },
    async "fetch-oldest-first"(seen) {
      let page = await get(first);
      while (page.next !== null) page = await get(page.next);
      for (;;) {
        for (let i = page.results.length - 1; i >= 0; i--) {
          if (page.results[i]?.id === "" || seen()) return;
        }
        if (page.previous === null) return;
        page = await get(page.previous);
      }
    },
  };
  const walk = walks[input.mode];

  // Warm-up: a partial walk.
  let warm = 0;
  await walk(() => ++warm >= input.warmupEvents);

  gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  let retainedHeap = 0;
  let count = 0;
  // The heap checks' forced full collections are not the walk's own work, and
  // cost in proportion to the code a process has loaded (the SDK's more than
  // a hand-written loop's): their time is left out of the walk's.
  let checkMs = 0;
  const cpuBefore = process.cpuUsage();
  const { value: seconds, ...memory } = await measureMemory(async () => {
    const started = performance.now();
    await walk(() => {
      count += 1;
      if (gc !== undefined && count % input.checkEvery === 0) {
        const checkStarted = performance.now();
        gc();
        retainedHeap = Math.max(retainedHeap, process.memoryUsage().heapUsed - heapBefore);
        checkMs += performance.now() - checkStarted;
      }
      return false;
    });
    return (performance.now() - started - checkMs) / 1000;
  });
  const cpu = process.cpuUsage(cpuBefore);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  if (count !== input.events) {
    throw new Error(`${input.mode}: saw ${count} events, expected ${input.events}`);
  }
  return { seconds, checkSeconds: checkMs / 1000, cpuSeconds, retainedHeap, ...memory };
});
