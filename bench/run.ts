/**
 * `npm run bench`: runs the suites, prints one table and, in full mode,
 * rewrites BENCHMARKS.md. Each suite runs in its own process
 * (bench/lib/run-suite.ts) and reports rows of ratios against a baseline
 * measured in that same process (bench/lib/types.ts).
 *
 *   node bench/run.ts                       every suite, writes BENCHMARKS.md
 *   node bench/run.ts --only a,b            those suites; their rows in BENCHMARKS.md are updated
 *   node bench/run.ts --quick               the CI subset (all but FULL_ONLY): prints only; exit 1
 *                                           on a ratio below half its target, a failed limit or a
 *                                           suite error
 *
 * Full mode exits 1 only on a failed hard limit or a suite that did not run:
 * a missed target is printed and explained in BENCHMARKS.md, not a failure.
 */
import { fork } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { machine, versions } from "./lib/machine.ts";
import {
  markdown,
  ratioText,
  readStored,
  type StoredResults,
  type SuiteRecord,
  summaryBlock,
  table,
  verdict,
  verdictText,
  withSummary,
} from "./lib/report.ts";
import type { SuiteMessage } from "./lib/run-suite.ts";
import { SUITES } from "./lib/suites.ts";

/**
 * Suites left out of `--quick` unless named with `--only`: custody's three
 * gigabyte downloads a round (with a log, hashed by hand, neither) are the
 * slowest part of a run, and swing widely on a loaded 2-core machine.
 */
const FULL_ONLY: readonly string[] = ["custody"];

/** A suite still running after this is killed and reported as failed. */
const TIMEOUT_MS = { full: 4 * 60_000, quick: 90_000 };

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..");
const OUTPUT = resolve(root, "BENCHMARKS.md");
/** The performance table the README points to, rewritten from the same results. */
const SUMMARY_DOC = resolve(root, "docs/development.md");

function parseArgs(argv: string[]): { quick: boolean; only: string[] | undefined } {
  let quick = false;
  let only: string[] | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--quick") quick = true;
    else if (arg === "--only" || arg.startsWith("--only=")) {
      const value = arg === "--only" ? argv[++i] : arg.slice("--only=".length);
      if (!value) usage("--only needs a comma-separated list of suites");
      only = value
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      const unknown = only.filter((s) => !(SUITES as readonly string[]).includes(s));
      if (unknown.length) usage(`unknown suite ${unknown.join(", ")}`);
    } else if (arg === "--help" || arg === "-h") usage();
    else usage(`unknown argument ${arg}`);
  }
  return { quick, only };
}

function usage(problem?: string): never {
  if (problem) console.error(`bench: ${problem}`);
  console.error(
    `usage: node bench/run.ts [--quick] [--only <suite,...>]\nsuites: ${SUITES.join(", ")}`,
  );
  process.exit(problem ? 2 : 0);
}

function runSuite(name: string, quick: boolean): Promise<SuiteMessage> {
  const file = resolve(here, "suites", `${name}.ts`);
  if (!existsSync(file)) {
    return Promise.resolve({ error: `${relative(root, file)} is missing` });
  }
  return new Promise((resolvePromise) => {
    let settled = false;
    const done = (message: SuiteMessage) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolvePromise(message);
    };
    const child = fork(resolve(here, "lib/run-suite.ts"), [name, ...(quick ? ["--quick"] : [])], {
      cwd: root,
      execArgv: [...process.execArgv, "--expose-gc"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const limit = quick ? TIMEOUT_MS.quick : TIMEOUT_MS.full;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      done({ error: `timed out after ${limit / 1000} s` });
    }, limit);
    child.on("message", (message) => done(message as SuiteMessage));
    child.on("error", (error) => done({ error: error.stack ?? error.message }));
    child.on("exit", (code, signal) =>
      done({ error: `exited (${signal ?? `code ${code}`}) without reporting rows` }),
    );
  });
}

async function main(): Promise<number> {
  const { quick, only } = parseArgs(process.argv.slice(2));
  const selected = only
    ? SUITES.filter((s) => only.includes(s))
    : SUITES.filter((s) => !quick || !FULL_ONLY.includes(s));
  const host = machine();
  console.error(
    `bench: ${quick ? "quick" : "full"} run of ${selected.join(", ")} on ${host.cpu}, ${host.cores} cores, Node ${host.node}`,
  );

  const records: SuiteRecord[] = [];
  const started = performance.now();
  for (const name of selected) {
    console.error(`\n▶ ${name}`);
    const t0 = performance.now();
    const message = await runSuite(name, quick);
    const seconds = (performance.now() - t0) / 1000;
    const record: SuiteRecord = { name, date: new Date().toISOString(), seconds, machine: host };
    if ("error" in message) {
      record.error = message.error;
      console.error(`✖ ${name} did not run (${seconds.toFixed(1)} s):\n${message.error}`);
    } else {
      record.rows = message.rows;
      const count = message.rows.length;
      console.error(`✔ ${name}: ${count} row${count === 1 ? "" : "s"} in ${seconds.toFixed(1)} s`);
    }
    records.push(record);
  }
  const total = (performance.now() - started) / 1000;

  const rows = records.flatMap((r) => r.rows ?? []);
  console.log(`\n${table(rows)}\n`);
  console.log(`${rows.length} rows in ${total.toFixed(1)} s (${quick ? "quick" : "full"} run).`);

  const misses = rows.filter((r) => verdict(r) !== "ok" && verdict(r) !== "info");
  for (const row of misses) {
    console.log(
      `  ${verdictText(row)}: ${row.group} / ${row.name}: ${ratioText(row)}, target ${row.target}x`,
    );
  }
  const errors = records.filter((r) => r.error !== undefined);
  for (const r of errors) console.log(`  DID NOT RUN: ${r.name}: ${r.error!.split("\n")[0]}`);

  if (!quick) {
    const previous = existsSync(OUTPUT) ? readStored(readFileSync(OUTPUT, "utf8")) : undefined;
    const ran = new Set(records.map((r) => r.name));
    const results: StoredResults = {
      // Suites not run this time keep their last results; suites no longer listed are dropped.
      suites: [
        ...(previous?.suites.filter(
          (s) => !ran.has(s.name) && (SUITES as readonly string[]).includes(s.name),
        ) ?? []),
        ...records,
      ],
    };
    writeFileSync(
      OUTPUT,
      markdown({ results, order: SUITES, machine: host, versions: versions(root) }),
    );
    console.log(`Wrote ${relative(process.cwd(), OUTPUT) || OUTPUT}.`);
    if (existsSync(SUMMARY_DOC)) {
      const doc = readFileSync(SUMMARY_DOC, "utf8");
      const updated = withSummary(doc, summaryBlock({ results, order: SUITES }));
      if (updated !== doc) {
        writeFileSync(SUMMARY_DOC, updated);
        console.log(`Wrote the performance table of ${relative(process.cwd(), SUMMARY_DOC)}.`);
      }
    }
  }

  const failing = rows.filter((r) => {
    const v = verdict(r);
    return v === "limit" || (quick && v === "gross");
  });
  if (failing.length || errors.length) {
    console.log(
      `bench: failing (${[
        failing.length
          ? `${failing.length} rows ${quick ? "below half their target or over a limit" : "over a hard limit"}`
          : "",
        errors.length ? `${errors.length} suites did not run` : "",
      ]
        .filter(Boolean)
        .join(", ")}).`,
    );
    return 1;
  }
  return 0;
}

process.exitCode = await main();
