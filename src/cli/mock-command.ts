/**
 * `medrecords mock`: the reference server over HTTP until interrupted. It
 * prints where it listens and a ready API key (a mock key, worthless outside
 * this process), and stops cleanly on SIGINT/SIGTERM, freeing its ports.
 */
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import * as z from "zod";
import { create as createCase } from "../contract/cases.js";
import { create as createRequestor } from "../contract/requestors.js";
import { create as createWebhook } from "../contract/webhooks.js";
import { isApiKeyShaped, type Scope } from "../mock/model/api-keys.js";
import { isLoopbackHost } from "../mock/server/control-guard.js";
import {
  type MockServer,
  MockServerListenError,
  startMockServer,
} from "../mock/server/http-server.js";
import { OPENAPI_PATH } from "../openapi/document.js";
import { SCOPES } from "../schemas/scopes.js";
import { parseFlags, portFlag } from "./args.js";
import { readCassette } from "./cassette-command.js";
import { CommandError, type CommandIo, UsageError } from "./usage-error.js";

export const MOCK_HELP = `Usage: medrecords mock [options]

Serves the stateful reference server of the Medical Record Retrieval API v2
over HTTP, with the control API under /__mock/ and the inspector (a page
showing its state) at /__mock/ui, until interrupted.

Options:
  --port <n>             API port (0 picks a free one)              [default: 4010]
  --host <address>       address to listen on; keep it on loopback: the
                         control API mints keys without authentication
                                                                    [default: 127.0.0.1]
  --storage-port <n>     port of presigned upload/download URLs     [default: a free port]
  --scopes <list>        comma-separated scopes of the printed key  [default: every scope]
  --seed <file.json>     objects to create at start (see docs/reference-server.md)
  --from <cassette>      start with the cases, requestors and documents a
                         recorded cassette saw, under their recorded ids
                         (see docs/fidelity.md)
  --now <ISO 8601>       initial time of the mock clock             [default: now]
  --clock <mode>         "real": the mock clock follows real time and runs
                         deliveries, retries and expiries by itself;
                         "manual": it stands still until POST
                         /__mock/clock/advance moves it (both take advance)
                                                                    [default: real]
  --speed <factor>       with --clock real, run the mock clock that many times
                         faster than real time (60: a minute each second)
                                                                    [default: 1]
  --autopilot            move each new retrieval request through a provider's
                         life on the mock clock (request sent, processing,
                         sometimes an action request, records, an invoice,
                         completed; about 3 hours of mock time), emitting
                         every retrieval event
  --allow-private-webhook-urls
                         accept webhook URLs on loopback and private addresses
                         (a receiver on your machine)
  --delivery <mode>      "fetch" POSTs deliveries, "inbox" only records them
                                                                    [default: fetch]
  --id-seed <text>       derive every id from <text>: the same seed and the
                         same calls give the same ids (reproducible runs).
                         Default: a random seed, so no two runs share an id
  --json                 print the start-up details as one JSON line
  -h, --help             show this help

Environment:
  MEDRECORDS_API_KEY     when set to a key of the service's shape
                         (medrecords_sk_live_...), the mock accepts it, with
                         every scope or --scopes, and prints no key: the same
                         key works across restarts. Never taken as a flag.

Scopes: ${SCOPES.join(", ")}
`;

const FLAGS = {
  port: { type: "string" },
  host: { type: "string" },
  "storage-port": { type: "string" },
  scopes: { type: "string" },
  seed: { type: "string" },
  from: { type: "string" },
  now: { type: "string" },
  clock: { type: "string" },
  speed: { type: "string" },
  autopilot: { type: "boolean" },
  "allow-private-webhook-urls": { type: "boolean" },
  delivery: { type: "string" },
  "id-seed": { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export async function mockCommand(argv: string[], io: CommandIo): Promise<number> {
  const flags = parseFlags(argv, FLAGS, "mock", io.env);
  if (flags.help) {
    io.stdout(MOCK_HELP);
    return 0;
  }
  const port = portFlag(flags.port, "--port", 4010);
  const storagePort = portFlag(flags["storage-port"], "--storage-port", 0);
  const scopes = scopesFlag(flags.scopes);
  const delivery = flags.delivery ?? "fetch";
  if (delivery !== "fetch" && delivery !== "inbox") {
    throw new UsageError(`--delivery must be "fetch" or "inbox", not "${delivery}"`);
  }
  if (flags.now !== undefined && !Number.isFinite(Date.parse(flags.now))) {
    throw new UsageError(`--now must be an ISO 8601 date, not "${flags.now}"`);
  }
  const clock = flags.clock ?? "real";
  if (clock !== "real" && clock !== "manual") {
    throw new UsageError(`--clock must be "real" or "manual", not "${clock}"`);
  }
  const speed = speedFlag(flags.speed);
  if (speed !== 1 && clock === "manual") {
    throw new UsageError("--speed needs --clock real: a manual clock moves only when advanced");
  }
  const seed = flags.seed === undefined ? undefined : await readSeed(flags.seed);
  const host = flags.host ?? "127.0.0.1";
  const idSeed = flags["id-seed"];
  if (idSeed !== undefined && idSeed.trim() === "") {
    throw new UsageError("--id-seed needs a non-empty text");
  }
  const envKey = keptKey(io);
  const from = flags.from === undefined ? undefined : await readCassette(flags.from);

  let server: MockServer;
  try {
    server = await startMockServer({
      port,
      storagePort,
      host,
      delivery,
      clock,
      clockSpeed: speed,
      autopilot: flags.autopilot ?? false,
      allowPrivateWebhookUrls: flags["allow-private-webhook-urls"] ?? false,
      ...(idSeed === undefined ? {} : { idSeed }),
      ...(from === undefined ? {} : { from }),
      ...((flags.now ?? seed?.now) === undefined ? {} : { now: flags.now ?? seed?.now }),
    });
  } catch (error) {
    if (error instanceof MockServerListenError) throw new CommandError(error.message);
    throw error;
  }
  if (!isLoopbackHost(host)) io.stderr(exposedWarning(host));
  try {
    const keyOptions = scopes === undefined ? {} : { scopes };
    // A key from the environment is accepted, never printed back: it is already where it belongs.
    const apiKey =
      envKey === undefined
        ? server.apiKeys.create(keyOptions)
        : server.apiKeys.register(envKey, keyOptions);
    const seeded = seed === undefined ? undefined : await applySeed(server, flags.seed ?? "", seed);
    const details = {
      base_url: server.url,
      ...(envKey === undefined ? { api_key: apiKey } : { api_key_from: "MEDRECORDS_API_KEY" }),
      scopes: scopes ?? SCOPES,
      storage_url: server.storageUrl,
      control_url: server.controlUrl,
      inspector_url: server.inspectorUrl,
      openapi_url: `${server.url}${OPENAPI_PATH}`,
      clock,
      speed,
      autopilot: flags.autopilot ?? false,
      ...(seeded === undefined ? {} : { seeded }),
    };
    // Awaited: a reader already gone ends the command (the server closes below) instead of serving unseen.
    await io.stdout(flags.json ? `${JSON.stringify(details)}\n` : describe(details));
    await aborted(io.signal);
  } finally {
    await server.close();
  }
  return 0;
}

/**
 * The key of MEDRECORDS_API_KEY when it has the service's shape; another
 * value is ignored with a warning that names the variable, never the value.
 */
function keptKey(io: CommandIo): string | undefined {
  const value = io.env.MEDRECORDS_API_KEY;
  if (value === undefined || value === "") return undefined;
  if (isApiKeyShaped(value)) return value;
  io.stderr(
    "medrecords mock: warning: MEDRECORDS_API_KEY is set but is not a key of the service's shape (medrecords_sk_live_ followed by at least 16 visible characters); ignored, a new key is printed below.\n",
  );
  return undefined;
}

function exposedWarning(host: string): string {
  return `medrecords mock: warning: listening on ${host}, not on loopback. The control API (/__mock/) has no authentication and mints API keys: anyone who can reach this port controls the mock and reads its delivery inbox. Use --host 127.0.0.1 unless other machines must reach it.\n`;
}

/** Most times faster than real time: beyond, a timer's millisecond is hours of mock time. */
const MAX_SPEED = 100_000;

function speedFlag(value: string | undefined): number {
  if (value === undefined) return 1;
  const speed = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(speed > 0) || speed > MAX_SPEED) {
    throw new UsageError(
      `--speed must be a positive number up to ${MAX_SPEED} (60: a minute of mock time each second), not "${value}"`,
    );
  }
  return speed;
}

function scopesFlag(value: string | undefined): Scope[] | undefined {
  if (value === undefined) return undefined;
  const scopes = value
    .split(",")
    .map((scope) => scope.trim())
    .filter((scope) => scope !== "");
  const unknown = scopes.filter((scope) => !(SCOPES as readonly string[]).includes(scope));
  if (unknown.length > 0 || scopes.length === 0) {
    throw new UsageError(
      `--scopes: unknown scope ${JSON.stringify(unknown[0] ?? value)}; expected a comma-separated list of ${SCOPES.join(", ")}`,
    );
  }
  return scopes as Scope[];
}

function describe(details: {
  base_url: string;
  api_key?: string;
  api_key_from?: string;
  scopes: readonly string[];
  storage_url: string;
  control_url: string;
  inspector_url: string;
  openapi_url: string;
  clock: string;
  speed: number;
  autopilot: boolean;
  seeded?: SeedResult;
}): string {
  const lines = [
    "medrecords mock: the Medical Record Retrieval API v2 reference server",
    `  base URL      ${details.base_url}`,
    details.api_key === undefined
      ? `  API key       the one in ${details.api_key_from} (kept across restarts)`
      : `  API key       ${details.api_key}`,
    `  scopes        ${details.scopes.length === SCOPES.length ? "all" : details.scopes.join(", ")}`,
    `  storage       ${details.storage_url}`,
    `  control API   ${details.control_url}`,
    `  inspector     ${details.inspector_url} (open it in a browser on this machine)`,
    `  OpenAPI       ${details.openapi_url}`,
    `  clock         ${details.clock === "manual" ? "manual (POST /__mock/clock/advance moves it)" : details.speed === 1 ? "real time" : `real time x ${details.speed}`}${details.autopilot ? ", autopilot on" : ""}`,
  ];
  const seeded = details.seeded;
  if (seeded !== undefined) {
    lines.push(
      `  seeded        ${seeded.cases.length} cases, ${seeded.requestors.length} requestors, ${seeded.webhooks.length} webhooks`,
    );
    for (const webhook of seeded.webhooks) {
      lines.push(`  webhook       ${webhook.id} ${webhook.url} secret ${webhook.secret}`);
    }
  }
  lines.push("Stop with Ctrl-C.", "");
  return lines.join("\n");
}

async function aborted(signal: AbortSignal): Promise<void> {
  if (!signal.aborted) await once(signal, "abort");
}

/** What a seed file may hold; each object is created through the API, so every rule applies. */
const Seed = z.strictObject({
  now: z
    .string()
    .refine((value) => Number.isFinite(Date.parse(value)), "must be an ISO 8601 date")
    .optional(),
  cases: z.array(z.unknown()).optional(),
  requestors: z.array(z.unknown()).optional(),
  webhooks: z.array(z.unknown()).optional(),
});
type Seed = z.infer<typeof Seed>;

interface SeedResult {
  cases: string[];
  requestors: string[];
  webhooks: { id: string; url: string; secret: string }[];
}

const READ_FAILURES: Record<string, string> = {
  ENOENT: "no such file",
  EACCES: "permission denied",
  EISDIR: "it is a directory",
};

async function readSeed(path: string): Promise<Seed> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = (code && READ_FAILURES[code]) ?? code ?? String(error);
    throw new CommandError(`cannot read seed file ${path}: ${why}`);
  }
  let seed: unknown;
  try {
    seed = JSON.parse(text);
  } catch (error) {
    throw new CommandError(`seed file ${path} is not JSON: ${(error as Error).message}`);
  }
  const parsed = Seed.safeParse(seed);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `"${issue.path.join(".")}"` : "the top level";
    throw new CommandError(
      `seed file ${path}: ${where}: ${issue?.message}; it holds an object with now, cases, requestors and webhooks`,
    );
  }
  return parsed.data;
}

async function applySeed(server: MockServer, path: string, seed: Seed): Promise<SeedResult> {
  const key = server.apiKeys.create();
  // Each collection's create operation, as the contract declares it.
  const paths = {
    cases: createCase.path,
    requestors: createRequestor.path,
    webhooks: createWebhook.path,
  };
  const create = async (collection: keyof typeof paths, body: unknown, index: number) => {
    const response = await server.fetch(`${server.url}${paths[collection]}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as Record<string, unknown>;
    if (!response.ok) {
      const error = answer.error as { code?: string; message?: string } | undefined;
      throw new CommandError(
        `seed file ${path}: ${collection}[${index}] was refused (${response.status} ${error?.code}): ${error?.message}`,
      );
    }
    return answer;
  };
  const result: SeedResult = { cases: [], requestors: [], webhooks: [] };
  for (const collection of ["cases", "requestors"] as const) {
    for (const [index, body] of (seed[collection] ?? []).entries()) {
      result[collection].push(String((await create(collection, body, index)).id));
    }
  }
  for (const [index, body] of (seed.webhooks ?? []).entries()) {
    const webhook = await create("webhooks", body, index);
    result.webhooks.push({
      id: String(webhook.id),
      url: String(webhook.url),
      secret: String(webhook.secret),
    });
  }
  return result;
}
