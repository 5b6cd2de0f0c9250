/**
 * `medrecords drift <cassette>`: replays a cassette against a fresh reference
 * server seeded from it and reports every drift (docs/fidelity.md).
 */
import { writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import type { Cassette } from "../fidelity/cassette-format.js";
import { type DriftReport, replayCassette } from "../fidelity/replay.js";
import { createMockServiceCore } from "../mock/service/service.js";
import { readCassette } from "./cassette-command.js";
import { terminalSafe } from "./terminal-text.js";
import { CommandError, type CommandIo, UsageError } from "./usage-error.js";

export const DRIFT_HELP = `Usage: medrecords drift <cassette> [--json] [--junit <file>]

Replays each request of <cassette> (recorded with record: cassette(path)), in
order, against a fresh reference server seeded with the cases, requestors and
documents the cassette saw (their recorded ids kept), and reports every
exchange the reference server answers differently (status, error code, shape,
pagination) and every recorded response that departs from the spec. Ids the
reference server hands out in place of recorded ones are mapped. No report
holds a value from a response: only pointers, kinds, types, statuses and codes.

Options:
  --json           print { exchanges, drifts: [{ exchange, operation, kind,
                   pointer, expected, got }] } instead of text
  --junit <file>   also write a JUnit XML report (one test case per exchange)
  -h, --help       show this help

Exit codes: 0 no drift, 1 drift found, 2 unreadable cassette or usage error.
`;

const FLAGS = {
  json: { type: "boolean" },
  junit: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export async function driftCommand(argv: string[], io: CommandIo): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof FLAGS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: FLAGS, strict: true, allowPositionals: true });
  } catch (error) {
    const message = error instanceof Error ? error.message.split(". ")[0] : String(error);
    throw new UsageError(`${message}; see medrecords drift --help`);
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    await io.stdout(DRIFT_HELP);
    return values.help ? 0 : 2;
  }
  const [path, ...extra] = positionals;
  if (path === undefined || extra.length > 0) {
    throw new UsageError("drift takes one cassette; see medrecords drift --help");
  }
  const cassette = await readCassette(path);
  const report = await replayAgainstReference(cassette);
  if (values.junit !== undefined) await writeJunit(values.junit, path, cassette, report);
  await io.stdout(values.json ? `${JSON.stringify(report)}\n` : driftText(report));
  return report.drifts.length > 0 ? 1 : 0;
}

/** A reference server seeded from the cassette (objects as first seen, none it created), then the replay. */
export function replayAgainstReference(cassette: Cassette): Promise<DriftReport> {
  const first = cassette.entries[0]?.at;
  const service = createMockServiceCore(
    {
      ...(first !== undefined && !Number.isNaN(Date.parse(first)) ? { now: first } : {}),
      from: cassette,
      // Nothing leaves the machine: deliveries are kept, webhook hosts are not looked up.
      delivery: "inbox",
      allowPrivateWebhookUrls: true,
    },
    { fromVersion: "first" },
  );
  const apiKey = service.apiKeys.create();
  return replayCassette(cassette, {
    baseUrl: service.baseUrl,
    apiKey,
    fetch: (request) => service.fetch(request),
  });
}

/** One line per drift, then a summary. Pointers are escaped for the terminal: a field name is the service's text. */
export function driftText(report: DriftReport): string {
  const lines = report.drifts.map(
    (d) =>
      `#${d.exchange} ${d.operation} ${d.kind} ${terminalSafe(d.pointer || "(status)")}: expected ${terminalSafe(d.expected)}, got ${terminalSafe(d.got)}`,
  );
  const summary = `${report.exchanges} exchange(s) replayed, ${report.drifts.length} drift(s)`;
  return `${[...lines, summary].join("\n")}\n`;
}

const xml = (text: string) =>
  text
    .replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`)
    // XML 1.0 has no control characters but tab, newline and carriage return.
    .replace(/[^\t\n\r\x20-\uffff]/gu, "");

async function writeJunit(
  file: string,
  name: string,
  cassette: Cassette,
  report: DriftReport,
): Promise<void> {
  const cases = cassette.entries.map((entry, i) => {
    const drifts = report.drifts.filter((d) => d.exchange === i + 1);
    const failures = drifts
      .map(
        (d) =>
          `<failure type="${xml(d.kind)}" message="${xml(`${d.pointer || "(status)"}: expected ${d.expected}, got ${d.got}`)}"/>`,
      )
      .join("");
    return `  <testcase classname="${xml(entry.operation)}" name="#${i + 1} ${xml(entry.operation)}">${failures}</testcase>`;
  });
  const failing = new Set(report.drifts.map((d) => d.exchange)).size;
  const text = `<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="medrecords drift ${xml(name)}" tests="${cases.length}" failures="${failing}">\n${cases.join("\n")}\n</testsuite>\n`;
  try {
    await writeFile(file, text);
  } catch (error) {
    throw new CommandError(
      `cannot write ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
}
