/** The printed table and BENCHMARKS.md. */
import type { Machine, Version } from "./machine.ts";
import type { BenchRow, Measurement } from "./types.ts";

export type Verdict = "ok" | "miss" | "gross" | "limit" | "info";

/**
 * `ok` at or above target; `miss` below it; `gross` below half of it (what
 * fails the quick run in CI); `limit` when a hard limit fails (fails any run);
 * `info` for a row kept for reference without a target.
 */
export function verdict(row: BenchRow): Verdict {
  if (row.limit && !row.limit.ok) return "limit";
  if (row.informational) return "info";
  if (row.ratio >= row.target) return "ok";
  // NaN (a side that measured nothing) counts as the worst case.
  return row.ratio >= row.target / 2 ? "miss" : "gross";
}

const VERDICT_TEXT: Record<Verdict, string> = {
  ok: "ok",
  miss: "MISS",
  gross: "MISS (< half of target)",
  limit: "LIMIT FAILED",
  info: "info (no target)",
};

export function verdictText(row: BenchRow): string {
  return VERDICT_TEXT[verdict(row)];
}

export function figure(m: Measurement): string {
  const { value, unit } = m;
  if (!Number.isFinite(value)) return `n/a ${unit}`;
  if (/byte|\bB\b/i.test(unit)) return `${Math.round(value).toLocaleString("en-US")} ${unit}`;
  const abs = Math.abs(value);
  if (abs >= 1e9) return `${(value / 1e9).toPrecision(3)} G${unit}`;
  if (abs >= 1e6) return `${(value / 1e6).toPrecision(3)} M ${unit}`;
  if (abs >= 1e4) return `${(value / 1e3).toPrecision(3)} k ${unit}`;
  if (abs >= 100) return `${Math.round(value).toLocaleString("en-US")} ${unit}`;
  return `${value.toPrecision(3)} ${unit}`;
}

export function ratioText(row: BenchRow): string {
  if (!Number.isFinite(row.ratio)) return "n/a";
  const text = row.ratio.toFixed(2);
  // A miss never prints as the target itself (1.0996 is "1.100x", not "1.10x").
  return row.ratio < row.target && Number(text) >= row.target
    ? `${row.ratio.toFixed(3)}x`
    : `${text}x`;
}

export function targetText(row: BenchRow): string {
  if (row.informational) return "none";
  return `>= ${row.target}x`;
}

/** The terminal table: one line per row, the group named on its first row. */
export function table(rows: readonly BenchRow[]): string {
  const header = ["group", "row", "ours", "baseline", "ratio", "target", "status"];
  const lines: string[][] = [];
  let group: string | undefined;
  for (const row of rows) {
    lines.push([
      row.group === group ? "" : row.group,
      row.name,
      figure(row.subject),
      figure(row.baseline),
      ratioText(row),
      targetText(row),
      verdictText(row),
    ]);
    group = row.group;
  }
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const right = new Set([2, 3, 4, 5]);
  const format = (cells: string[]) =>
    cells
      .map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [format(header), widths.map((w) => "-".repeat(w)).join("  "), ...lines.map(format)].join(
    "\n",
  );
}

export interface SuiteRecord {
  name: string;
  /** ISO date-time of the run. */
  date: string;
  seconds: number;
  machine: Machine;
  rows?: BenchRow[];
  error?: string;
}

export interface StoredResults {
  suites: SuiteRecord[];
}

const DATA_MARKER = "<!-- bench-data: the JSON below is read back by `npm run bench -- --only` -->";

/** Results of an earlier run kept in BENCHMARKS.md, so an `--only` run updates its suites alone. */
export function readStored(markdown: string): StoredResults | undefined {
  const at = markdown.indexOf(DATA_MARKER);
  if (at < 0) return undefined;
  const block = /```json\n([\s\S]*?)\n```/.exec(markdown.slice(at));
  if (!block?.[1]) return undefined;
  try {
    return JSON.parse(block[1]) as StoredResults;
  } catch {
    return undefined;
  }
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

export interface MarkdownInput {
  results: StoredResults;
  /** Suite names in the order of bench/run.ts. */
  order: readonly string[];
  machine: Machine;
  versions: Version[];
}

export function markdown({ results, order, machine, versions }: MarkdownInput): string {
  const suites = [...results.suites].sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
  const dates = suites.map((s) => s.date).sort();
  const latest = dates.at(-1) ?? new Date().toISOString();
  const out: string[] = [];
  out.push("# Benchmarks", "");
  out.push(
    `Written by \`npm run bench\` (\`bench/run.ts\`) on ${latest.slice(0, 10)}; do not edit by hand, re-run instead.`,
    "",
    "Every row is a **ratio against a baseline measured in the same run**: the same process, the same inputs, with subject and baseline run in alternating rounds so that drift on a busy machine falls on both sides alike. The ratio is ours divided by the baseline (for sizes, the baseline divided by ours), so above 1 means ours is better; the target is the one set in issue 7, or in issue 19 for the rows against peers (openai-node, Prism) and the client, upload, pagination and poller rows it raised. Absolute figures depend on the machine and are shown for context only: nothing asserts them.",
    "",
    "CI runs `npm run bench:quick`: shorter rounds, smaller inputs where a row allows, and it fails only on a gross regression (a ratio below half its target) or a failed hard limit, so that a noisy CI machine does not fail the build. A miss of the full target is listed below with the reason in its note.",
    "",
  );

  const rows = suites.flatMap((s) => s.rows ?? []);
  const misses = rows.filter((r) => verdict(r) !== "ok" && verdict(r) !== "info");
  const failed = suites.filter((s) => s.error !== undefined);
  out.push("## Summary", "");
  out.push(
    `${rows.length} rows from ${suites.length - failed.length} suites: ${rows.length - misses.length} at or above target, ${misses.length} below. The suites took ${suites
      .reduce((sum, s) => sum + s.seconds, 0)
      .toFixed(0)} s in all (each suite's time is under [Machine](#machine)).`,
  );
  if (failed.length) {
    out.push("", `Suites that did not run: ${failed.map((s) => `\`${s.name}\``).join(", ")}.`);
  }
  out.push("");

  out.push("## Results", "");
  const groups = new Map<string, BenchRow[]>();
  for (const row of rows) {
    const list = groups.get(row.group) ?? [];
    list.push(row);
    groups.set(row.group, list);
  }
  for (const [group, list] of groups) {
    out.push(`### ${group}`, "");
    out.push("| row | ours | baseline | ratio | target | status |");
    out.push("|---|---:|---:|---:|---:|---|");
    for (const row of list) {
      out.push(
        `| ${cell(row.name)} | ${cell(`${figure(row.subject)}`)}<br><sub>${cell(row.subject.label)}</sub> | ${cell(figure(row.baseline))}<br><sub>${cell(row.baseline.label)}</sub> | **${ratioText(row)}** | ${targetText(row)} | ${verdictText(row)} |`,
      );
    }
    const notes = list.filter((r) => r.note || r.limit);
    if (notes.length) {
      out.push("");
      for (const row of notes) {
        const limit = row.limit
          ? ` Limit: ${row.limit.description}: ${row.limit.ok ? "met" : "**not met**"}.`
          : "";
        out.push(`- *${row.name}*: ${row.note ?? ""}${limit}`.trimEnd());
      }
    }
    out.push("");
  }
  for (const suite of failed) {
    out.push(`### Suite \`${suite.name}\` did not run`, "", "```", suite.error ?? "", "```", "");
  }

  out.push("## Machine", "");
  out.push(
    `- CPU: ${machine.cpu}, ${machine.cores} cores available`,
    `- Memory: ${machine.memory}`,
    `- OS: ${machine.os}`,
    `- Node: ${machine.node}`,
    "",
  );
  const elsewhere = suites.filter((s) => JSON.stringify(s.machine) !== JSON.stringify(machine));
  if (elsewhere.length) {
    out.push(
      `Suites kept from an earlier run on another machine: ${elsewhere
        .map(
          (s) =>
            `\`${s.name}\` (${s.machine.cpu}, ${s.machine.cores} cores, Node ${s.machine.node})`,
        )
        .join("; ")}.`,
      "",
    );
  }
  out.push("| suite | finished | took | result |", "|---|---|---:|---|");
  for (const s of suites) {
    out.push(
      `| \`${s.name}\` | ${s.date.replace("T", " ").slice(0, 19)} UTC | ${s.seconds.toFixed(1)} s | ${
        s.error ? "did not run" : plural(s.rows?.length ?? 0, "row")
      } |`,
    );
  }
  out.push("");

  out.push("## Versions", "", "| package | version | role |", "|---|---|---|");
  for (const v of versions) out.push(`| \`${v.name}\` | ${v.version} | ${v.role} |`);
  out.push("");

  out.push(
    "## Re-run",
    "",
    "```sh",
    "npm run bench                          # build, every suite, rewrite BENCHMARKS.md (under 10 minutes on 2 cores)",
    "npm run bench -- --only verify-node    # build, one suite (or several: a,b), update its rows here",
    "npm run bench:quick                    # the CI subset: short rounds, prints only, fails on a gross regression",
    "```",
    "",
    `Suites: ${order.map((n) => `\`${n}\``).join(", ")} (\`bench/suites/<name>.ts\`, each run in its own process). Run on an otherwise idle machine: the ratios hold up under load, the absolute figures do not.`,
    "",
  );

  out.push(
    DATA_MARKER,
    "<details><summary>Raw results (JSON)</summary>",
    "",
    "```json",
    JSON.stringify(results, null, 1),
    "```",
    "",
    "</details>",
    "",
  );
  return out.join("\n");
}

/** Where `summaryBlock` goes in docs/development.md: between these two lines, rewritten by each full run. */
export const SUMMARY_START =
  "<!-- bench:summary (written by npm run bench from BENCHMARKS.md; do not edit) -->";
export const SUMMARY_END = "<!-- /bench:summary -->";

/**
 * The performance table of docs/development.md (linked from the README):
 * every row of the stored results, one line each, ratio against target, so
 * that the figures a reader sees first come from the same full run as
 * BENCHMARKS.md and its notes.
 */
export function summaryBlock({ results, order }: Pick<MarkdownInput, "results" | "order">): string {
  const suites = [...results.suites].sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
  const dates = suites.map((s) => s.date).sort();
  const out = [
    SUMMARY_START,
    "",
    `From the full run of ${(dates.at(-1) ?? "").slice(0, 10)} (each suite's date, the machine and every row's note: \`BENCHMARKS.md\` in the repository). Ratios above 1 are ours ahead of the baseline.`,
    "",
    "| what | against | ratio | target | status |",
    "|---|---|---:|---:|---|",
  ];
  for (const row of suites.flatMap((s) => s.rows ?? [])) {
    out.push(
      `| ${cell(`${row.group}: ${row.name}`)} | ${cell(row.baseline.label)} | ${ratioText(row)} | ${targetText(row)} | ${verdictText(row)} |`,
    );
  }
  out.push("", SUMMARY_END);
  return out.join("\n");
}

/** `document` with the block between the summary markers replaced by `block`; unchanged when the markers are missing. */
export function withSummary(document: string, block: string): string {
  const start = document.indexOf(SUMMARY_START);
  const end = document.indexOf(SUMMARY_END);
  if (start === -1 || end < start) return document;
  return document.slice(0, start) + block + document.slice(end + SUMMARY_END.length);
}
