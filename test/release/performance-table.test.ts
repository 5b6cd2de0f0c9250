/**
 * The performance table of docs/development.md (the README links it) is
 * written by `npm run bench` from the results stored in BENCHMARKS.md: the
 * two must be the same run, row for row.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import {
  readStored,
  SUMMARY_END,
  SUMMARY_START,
  summaryBlock,
  withSummary,
} from "../../bench/lib/report.ts";
import { SUITES } from "../../bench/lib/suites.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const read = (path: string) => readFileSync(resolve(root, path), "utf8");

it("the performance table is the one BENCHMARKS.md's stored run gives, row for row", () => {
  const stored = readStored(read("BENCHMARKS.md"));
  expect(stored).toBeDefined();
  const doc = read("docs/development.md");
  const block = summaryBlock({ results: stored ?? { suites: [] }, order: SUITES });
  expect(doc).toContain(block);
  const rows = (stored?.suites ?? []).flatMap((s) => s.rows ?? []);
  // One line per row, and the poller's rows among them.
  expect(block.split("\n").filter((line) => line.startsWith("| Catch-up poller"))).toHaveLength(
    rows.filter((r) => r.group.startsWith("Catch-up poller")).length,
  );
  expect(rows.length).toBeGreaterThan(30);
});

it("rewrites only what lies between the markers", () => {
  const doc = `before\n${SUMMARY_START}\nold\n${SUMMARY_END}\nafter\n`;
  expect(withSummary(doc, `${SUMMARY_START}\nnew\n${SUMMARY_END}`)).toBe(
    `before\n${SUMMARY_START}\nnew\n${SUMMARY_END}\nafter\n`,
  );
  expect(withSummary("no markers", "x")).toBe("no markers");
});
