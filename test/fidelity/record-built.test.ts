/**
 * `record: cassette(path)` from the package as built (the project's own
 * tsup.config.ts, ESM and CommonJS): the recorder's thread is found beside
 * the built module, scrubs and writes, `flush()` waits for it, and the idle
 * thread does not keep the process alive (the child exits by itself).
 */
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { build } from "tsup";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCassette } from "../../src/fidelity/cassette-format.js";
import tsupConfig from "../../tsup.config.ts";

const run = promisify(execFile);
let project = "";
const PERSONAL = "Quorra Canary-Builtwyn";

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), "medrecords-record-built-"));
  const pkg = join(project, "node_modules", "medrecords");
  mkdirSync(pkg, { recursive: true });
  // The library's build only (the first configuration; the CLI is not needed), no declarations.
  const [library] = Array.isArray(tsupConfig) ? tsupConfig : [tsupConfig];
  await build({ ...library, dts: false, outDir: join(pkg, "dist"), silent: true, clean: false });
  cpSync("package.json", join(pkg, "package.json"));
  for (const dep of ["ky", "zod"]) {
    symlinkSync(resolve("node_modules", dep), join(project, "node_modules", dep), "dir");
  }
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "app", private: true }));
}, 120_000);

afterAll(() => {
  if (project !== "") rmSync(project, { recursive: true, force: true });
});

const SCRIPT = (load: string, path: string) => `
${load}
const { readFileSync } = require("node:fs");
const server = await startMockServer({ now: "2026-03-01T10:00:00.000Z" });
const recording = cassette(${JSON.stringify(path)});
const warnings = [];
const mr = new MedRecords({
  apiKey: server.apiKeys.create(),
  baseUrl: server.url,
  record: recording,
  logger: { warn: (message) => warnings.push(message) },
});
await mr.cases.create({ title: "Built v. Example", client_name: ${JSON.stringify(PERSONAL)} });
await mr.cases.list({ limit: 100 });
await recording.flush();
await server.close();
console.log(JSON.stringify({ text: readFileSync(${JSON.stringify(path)}, "utf8"), warnings }));
`;

async function record(args: string[]): Promise<{ text: string; warnings: string[] }> {
  // A thread that kept the process alive would end this by the timeout instead.
  const { stdout } = await run(process.execPath, args, { cwd: project, timeout: 30_000 });
  return JSON.parse(stdout.trim().split("\n").at(-1) as string);
}

function expectRecorded({ text, warnings }: { text: string; warnings: string[] }): void {
  expect(warnings).toEqual([]);
  expect(parseCassette(text).entries.map((entry) => entry.operation)).toEqual([
    "createCase",
    "listCases",
  ]);
  expect(text).not.toContain(PERSONAL);
  // Ids and counts kept: the case's number is in the line.
  expect(text).toContain('"case_number"');
}

describe("record: cassette(path) from the built package", () => {
  it("ESM: the cassette's thread writes scrubbed lines, flush() waits for it, the process exits", async () => {
    const path = join(project, "esm", "session.jsonl");
    const load = `import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
import { cassette, MedRecords } from "medrecords";
import { startMockServer } from "medrecords/mock";`;
    expectRecorded(await record(["--input-type=module", "-e", SCRIPT(load, path)]));
  });

  it("CommonJS: the same, the thread found beside the .cjs module", async () => {
    const path = join(project, "cjs", "session.jsonl");
    const load = `const { cassette, MedRecords } = require("medrecords");
const { startMockServer } = require("medrecords/mock");
(async () => {`;
    const script = `${SCRIPT(load, path)}})();`;
    expectRecorded(await record(["--input-type=commonjs", "-e", script]));
  });
});
