/**
 * The crash of issue 15, reproduced with real processes: a webhook receiver
 * (node:http, `toNodeListener`, a Redis or PostgreSQL dedupe store) is
 * SIGKILLed while its handler runs. A delivery of the same event to another
 * instance meanwhile answers 409 (in progress, so the service retries); after
 * the restart, once the dead process's lease has lapsed, the next delivery
 * runs the handler and answers 200; a duplicate after that answers 200
 * without running it. With the one-phase claims of earlier versions, every
 * delivery after the kill answered 200 duplicate and the event was lost.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import pg from "pg";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { signWebhook } from "../../src/webhooks/index.js";
import { bundledScript } from "../helpers/bundle.js";
import { describeWithServers, type Server, serverUrl, uniqueName } from "../stores/servers.js";
import type { ReceiverConfig } from "./receiver-worker.js";

/** Short, so that the lapse is quick to wait for; longer than a child takes to start. */
const LEASE_SECONDS = 5;
const SECRET = "whsec_receiver_sigkill";

let script: Promise<string>;
beforeAll(() => {
  script = bundledScript("test/reliability/receiver-worker.ts", ["redis", "pg"]);
  return script.then(() => undefined);
}, 60_000);

interface Receiver {
  child: ChildProcess;
  port: number;
  lines: string[];
  /** Resolves once the child wrote `line`. */
  waitFor(line: string): Promise<void>;
}

const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await once(child, "exit");
    }
  }
});

async function startReceiver(config: ReceiverConfig): Promise<Receiver> {
  const child = spawn(process.execPath, [await script, JSON.stringify(config)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const lines: string[] = [];
  const waiters: Array<{ line: string; resolve: () => void }> = [];
  let pending = "";
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    pending += chunk;
    for (let end = pending.indexOf("\n"); end !== -1; end = pending.indexOf("\n")) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      lines.push(line);
      for (const waiter of waiters.filter((w) => w.line === line)) waiter.resolve();
    }
  });
  const waitFor = (line: string) =>
    lines.includes(line)
      ? Promise.resolve()
      : new Promise<void>((resolve, reject) => {
          waiters.push({ line, resolve });
          child.once("exit", () =>
            reject(
              new Error(`the receiver exited before "${line}": ${lines.join(" | ")} ${stderr}`),
            ),
          );
        });
  const port = await new Promise<number>((resolve, reject) => {
    const check = () => {
      const listening = lines.find((l) => l.startsWith("listening "));
      if (listening !== undefined) return resolve(Number(listening.split(" ")[1]));
      if (child.exitCode !== null) return reject(new Error(`the receiver exited: ${stderr}`));
      setTimeout(check, 20);
    };
    check();
  });
  return { child, port, lines, waitFor };
}

function eventBody(id: string): string {
  const now = new Date().toISOString();
  return JSON.stringify({
    id,
    type: "retrieval_request.status_changed",
    created_at: now,
    api_version: "v2",
    data: {
      retrieval_request_id: "rr_1",
      case_id: null,
      public_updated_at: now,
      status: "processing",
      stage: "request_sent",
      action_required_reason: null,
    },
  });
}

/** One delivery as the service makes it: freshly signed, POSTed. */
async function deliver(port: number, body: string): Promise<{ status: number; body: unknown }> {
  const headers = await signWebhook({ payload: body, secret: SECRET });
  const response = await fetch(`http://127.0.0.1:${port}/webhooks`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body,
  });
  return { status: response.status, body: await response.json() };
}

const STORES: Array<{ server: Server; label: string; store: () => ReceiverConfig["store"] }> = [
  {
    server: "redis",
    label: "redisDedupeStore",
    store: () => ({ kind: "redis", prefix: `${uniqueName("sigkill")}:` }),
  },
  {
    server: "postgres",
    label: "postgresDedupeStore",
    store: () => ({ kind: "postgres", table: uniqueName("sigkill") }),
  },
];

for (const { server, label, store: makeStore } of STORES) {
  describeWithServers([server], `a receiver with ${label} SIGKILLed mid-handler`, () => {
    const tables: string[] = [];
    afterAll(async () => {
      const url = serverUrl("postgres");
      if (tables.length === 0 || url === undefined) return;
      const pool = new pg.Pool({ connectionString: url, max: 1 });
      for (const table of tables) await pool.query(`DROP TABLE IF EXISTS "${table}"`);
      await pool.end();
    });

    it("409 during processing elsewhere, 200 with the handler run after the restart and the lapse, then 200 duplicate", async () => {
      const store = makeStore();
      if (store.kind === "postgres") tables.push(store.table);
      const config = { secret: SECRET, store, leaseSeconds: LEASE_SECONDS };
      const id = uniqueName("evt_sigkill");
      const body = eventBody(id);

      const [crashing, other] = await Promise.all([
        startReceiver({ ...config, hang: true }),
        startReceiver({ ...config, hang: false }),
      ]);
      const first = deliver(crashing.port, body).catch((error: unknown) => error);
      await crashing.waitFor(`start ${id}`);

      // The service retries (or another instance gets a duplicate) while the handler runs.
      expect(await deliver(other.port, body)).toEqual({
        status: 409,
        body: { error: "in_progress" },
      });
      expect(other.lines).not.toContain(`start ${id}`);

      crashing.child.kill("SIGKILL");
      await once(crashing.child, "exit");
      expect(await first).toBeInstanceOf(Error);

      const restarted = await startReceiver({ ...config, hang: false });
      const statuses: number[] = [];
      await expect
        .poll(
          async () => {
            const answer = await deliver(restarted.port, body);
            statuses.push(answer.status);
            return answer;
          },
          { timeout: 15_000, interval: 200 },
        )
        .toEqual({ status: 200, body: { received: true } });
      // Until the dead process's lease lapsed: 409, never a 200 that would lose the event.
      expect(statuses.slice(0, -1).every((status) => status === 409)).toBe(true);
      expect(restarted.lines.filter((line) => line === `handled ${id}`)).toHaveLength(1);

      for (const receiver of [restarted, other]) {
        expect(await deliver(receiver.port, body)).toEqual({
          status: 200,
          body: { received: true, duplicate: true },
        });
      }
      expect(restarted.lines.filter((line) => line.startsWith("start "))).toHaveLength(1);
      expect(other.lines.filter((line) => line.startsWith("start "))).toHaveLength(0);
    });
  });
}
