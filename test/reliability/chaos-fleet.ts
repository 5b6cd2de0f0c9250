/**
 * The processes of chaos.test.ts: starts the workers (chaos-worker.ts), reads
 * their stdout lines into what the test checks, SIGKILLs one and starts it
 * again in its slot, and keeps track of the poller that holds the checkpoint
 * lease (the highest fence seen), of takeovers and of their times.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, type WriteStream } from "node:fs";
import type { ChaosWorkerConfig } from "./chaos-config.js";
import type { Span } from "./chaos-invariants.js";

export type Role = ChaosWorkerConfig["role"];

/** Wall-clock ms with a fraction, on the same base as the workers' timestamps. */
export const wallClock = () => performance.timeOrigin + performance.now();

export interface Worker {
  readonly role: Role;
  readonly slot: number;
  readonly start: number;
  readonly pid: number;
  readonly child: ChildProcess;
  /** Resolves once the process is gone and its output read. */
  readonly closed: Promise<void>;
  /** Resolves at its `ready` line. */
  readonly ready: Promise<void>;
  /** Whether its `ready` line came. */
  isReady: boolean;
  /** The receiver's port, from its `ready` line. */
  port: number | undefined;
  killedAt: number | undefined;
  /** The `onEvent` under way (poller): its event and start. */
  openSpan: { id: string; start: number } | undefined;
  /** Ids it claimed (state `claimed`) and had not yet completed or released. */
  readonly inFlight: Set<string>;
  stderr: string;
}

export interface Kill {
  role: Role;
  slot: number;
  pid: number;
  at: number;
  /** Whether it held the checkpoint lease (the highest fence) as far as its lines told. */
  leader: boolean;
}

export interface Observations {
  /** Each poller's `onEvent` calls, closed at the kill for a killed one. */
  spans: Span[];
  kills: Kill[];
  /** Processes started, restarts included. */
  starts: number;
  /** Claims by what they found: `claimed`, `in_progress`, `done`. */
  claims: Map<string, number>;
  /** Receivers' answers by status. */
  statuses: Map<number, number>;
  /** `withClaim` calls that found the id done already (`s` lines). */
  suppressedByPostgres: number;
  /** A new highest fence taken by another poller than the one before. */
  takeovers: number;
  /** From the SIGKILL of the lease holder to the next fence taken, ms. */
  takeoverTimes: number[];
  /** Saves the checkpoint store refused, by reason (`taken_over`, `expired`, `backwards`, ...). */
  savesRefused: Map<string, number>;
  /** Ids claimed and not yet completed or released by a process when it was SIGKILLed. */
  inFlightAtKill: Set<string>;
  /** Unexpected lines and errors, each naming its process. */
  errors: string[];
}

export class ChaosFleet {
  readonly observed: Observations = {
    spans: [],
    kills: [],
    starts: 0,
    claims: new Map(),
    statuses: new Map(),
    suppressedByPostgres: 0,
    takeovers: 0,
    takeoverTimes: [],
    savesRefused: new Map(),
    inFlightAtKill: new Set(),
    errors: [],
  };
  /** The live worker of each slot, receivers then pollers. */
  readonly workers = new Map<string, Worker>();
  /** The port of each receiver slot, from its latest start (a dead one's refuses connections). */
  readonly #ports = new Map<number, number>();
  #maxFence = Number.NEGATIVE_INFINITY;
  #leaderPid: number | undefined;
  /** The lease holder was killed at `at` while holding `fence`: the next higher fence is its takeover. */
  #pendingTakeover: { at: number; fence: number } | undefined;
  /** Every line of every worker, stamped on arrival, when MEDRECORDS_CHAOS_TRACE names a file. */
  readonly #trace: WriteStream | undefined = process.env.MEDRECORDS_CHAOS_TRACE
    ? createWriteStream(process.env.MEDRECORDS_CHAOS_TRACE)
    : undefined;
  readonly #script: string;
  readonly #env: NodeJS.ProcessEnv;
  readonly #configOf: (role: Role, slot: number, start: number) => ChaosWorkerConfig;

  constructor(
    script: string,
    env: NodeJS.ProcessEnv,
    configOf: (role: Role, slot: number, start: number) => ChaosWorkerConfig,
  ) {
    this.#script = script;
    this.#env = env;
    this.#configOf = configOf;
  }

  /** The port the receiver of `slot` listens on, or last listened on. */
  receiverPort(slot: number): number | undefined {
    return this.#ports.get(slot);
  }

  /** The poller holding the highest fence seen, if it is alive. */
  leader(): Worker | undefined {
    return [...this.workers.values()].find((w) => w.pid === this.#leaderPid);
  }

  spawn(role: Role, slot: number, start = 0): Worker {
    const child = spawn(
      process.execPath,
      [this.#script, JSON.stringify(this.#configOf(role, slot, start))],
      {
        env: this.#env,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let markReady = () => {};
    const worker: Worker = {
      role,
      slot,
      start,
      pid: child.pid ?? -1,
      child,
      closed: new Promise((resolve) => child.once("close", () => resolve())),
      ready: new Promise((resolve) => {
        markReady = resolve;
      }),
      isReady: false,
      port: undefined,
      killedAt: undefined,
      openSpan: undefined,
      inFlight: new Set(),
      stderr: "",
    };
    this.observed.starts += 1;
    this.#trace?.write(`${wallClock().toFixed(3)} ${name(worker)} spawned\n`);
    this.workers.set(`${role}${slot}`, worker);
    let pending = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      pending += chunk;
      let end = pending.indexOf("\n");
      while (end !== -1) {
        this.#line(worker, pending.slice(0, end), markReady);
        pending = pending.slice(end + 1);
        end = pending.indexOf("\n");
      }
    });
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      worker.stderr += chunk;
    });
    child.once("close", (code, signal) => {
      const end = worker.killedAt ?? wallClock();
      if (worker.openSpan !== undefined) {
        const { id, start: begun } = worker.openSpan;
        this.observed.spans.push({
          pid: worker.pid,
          start: begun,
          end,
          what: `${name(worker)} ${id} (killed)`,
        });
      }
      if (worker.killedAt !== undefined) {
        for (const id of worker.inFlight) this.observed.inFlightAtKill.add(id);
      } else if (code !== 0) {
        this.observed.errors.push(
          `${name(worker)} exited ${code ?? signal}: ${worker.stderr.slice(0, 2_000)}`,
        );
      }
    });
    return worker;
  }

  /** SIGKILLs the worker, waits for it to be gone, and starts its slot again. */
  async killAndRestart(worker: Worker): Promise<Worker> {
    const at = wallClock();
    const leader = worker.pid === this.#leaderPid;
    worker.killedAt = at;
    worker.child.kill("SIGKILL");
    this.observed.kills.push({ role: worker.role, slot: worker.slot, pid: worker.pid, at, leader });
    this.#trace?.write(
      `${at.toFixed(3)} ${name(worker)} SIGKILL${leader ? " (lease holder)" : ""}\n`,
    );
    if (leader) this.#pendingTakeover = { at, fence: this.#maxFence };
    await worker.closed;
    return this.spawn(worker.role, worker.slot, worker.start + 1);
  }

  /** SIGTERMs every worker (pollers stop and release their lease) and waits for them. */
  async stopAll(): Promise<void> {
    const all = [...this.workers.values()];
    for (const worker of all) worker.child.kill("SIGTERM");
    await Promise.all(all.map((w) => w.closed));
    this.#trace?.end();
  }

  #line(worker: Worker, line: string, markReady: () => void): void {
    this.#trace?.write(`${wallClock().toFixed(3)} ${name(worker)} ${line}\n`);
    const [tag = "", ...rest] = line.split(" ");
    const o = this.observed;
    switch (tag) {
      case "ready":
        if (rest[0] !== undefined) {
          worker.port = Number(rest[0]);
          this.#ports.set(worker.slot, worker.port);
        }
        worker.isReady = true;
        markReady();
        return;
      case "k": {
        const [state = "", id = ""] = rest;
        o.claims.set(state, (o.claims.get(state) ?? 0) + 1);
        if (state === "claimed") worker.inFlight.add(id);
        return;
      }
      case "done":
      case "released":
        worker.inFlight.delete(rest[0] ?? "");
        return;
      case "e":
        // The effects table itself is counted at the end: a kill may land between COMMIT and this line.
        return;
      case "s":
        o.suppressedByPostgres += 1;
        return;
      case "h": {
        const status = Number(rest[0]);
        o.statuses.set(status, (o.statuses.get(status) ?? 0) + 1);
        return;
      }
      case "b":
        worker.openSpan = { id: rest[0] ?? "", start: Number(rest[1]) };
        return;
      case "c": {
        const begun = worker.openSpan?.start ?? Number.NaN;
        o.spans.push({
          pid: worker.pid,
          start: begun,
          end: Number(rest[1]),
          what: `${name(worker)} ${rest[0]}`,
        });
        worker.openSpan = undefined;
        return;
      }
      case "a":
        this.#acquired(worker, rest[0] === "null" ? null : Number(rest[0]), Number(rest[1]));
        return;
      case "lost": {
        const reason = rest[0] ?? "";
        o.savesRefused.set(reason, (o.savesRefused.get(reason) ?? 0) + 1);
        return;
      }
      default:
        o.errors.push(`${name(worker)}: ${line}`);
    }
  }

  #acquired(worker: Worker, fence: number | null, at: number): void {
    if (fence === null || fence <= this.#maxFence) return;
    if (this.#leaderPid !== undefined && this.#leaderPid !== worker.pid)
      this.observed.takeovers += 1;
    if (this.#pendingTakeover !== undefined && fence > this.#pendingTakeover.fence) {
      this.observed.takeoverTimes.push(at - this.#pendingTakeover.at);
      this.#pendingTakeover = undefined;
    }
    this.#maxFence = fence;
    this.#leaderPid = worker.pid;
  }
}

const name = (worker: Worker) => `${worker.role} ${worker.slot} (pid ${worker.pid})`;
