/**
 * DESIGN 12.1: `medrecords/mock` without msw. The package as built (the
 * project's own tsup.config.ts, both formats and the CLI) is installed in a
 * temporary project with its dependencies and no msw anywhere it could be
 * resolved from; a child process then runs startMockServer and the mock's
 * own fetch in ESM and in CommonJS, and the CLI's mock. Reading `handlers`
 * alone fails, naming msw and the command that installs it.
 */
import { execFile, spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { build } from "tsup";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import tsupConfig from "../../tsup.config.ts";

const run = promisify(execFile);
let project = "";

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), "medrecords-no-msw-"));
  const pkg = join(project, "node_modules", "medrecords");
  mkdirSync(pkg, { recursive: true });
  // The package's own build configuration, into the temporary install; no declarations needed.
  const configs = Array.isArray(tsupConfig) ? tsupConfig : [tsupConfig];
  for (const config of configs) {
    await build({ ...config, dts: false, outDir: join(pkg, "dist"), silent: true, clean: false });
  }
  cpSync("package.json", join(pkg, "package.json"));
  for (const dep of ["ky", "zod"]) {
    symlinkSync(resolve("node_modules", dep), join(project, "node_modules", dep), "dir");
  }
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "app", private: true }));
}, 120_000);

afterAll(() => {
  if (project !== "") rmSync(project, { recursive: true, force: true });
});

const SCRIPT = (load: string) => `
${load}
const server = await startMockServer({ now: "2026-03-01T10:00:00.000Z" });
const key = server.apiKeys.create();
const over = await fetch(server.baseUrl + "/v2/cases", { headers: { authorization: "Bearer " + key } });
const mock = createMockService();
const own = await mock.fetch(mock.baseUrl + "/v2/cases", { headers: { authorization: "Bearer " + mock.apiKeys.create() } });
await server.close();
let handlers;
try { mock.handlers; handlers = "loaded"; } catch (error) { handlers = error.message; }
console.log(JSON.stringify({ over: over.status, own: own.status, handlers }));
`;

async function node(args: string[]): Promise<{ over: number; own: number; handlers: string }> {
  const { stdout } = await run(process.execPath, args, { cwd: project, timeout: 30_000 });
  return JSON.parse(stdout.trim().split("\n").at(-1)!);
}

describe("medrecords/mock in a project without msw", () => {
  it("msw cannot be resolved there", async () => {
    await expect(
      run(process.execPath, ["-e", 'require.resolve("msw")'], { cwd: project }),
    ).rejects.toThrow(/Cannot find module 'msw'/);
  });

  it("ESM: startMockServer and createMockService().fetch work; handlers name msw and the install command", async () => {
    const result = await node([
      "--input-type=module",
      "-e",
      SCRIPT('import { createMockService, startMockServer } from "medrecords/mock";'),
    ]);
    expect(result.over).toBe(200);
    expect(result.own).toBe(200);
    expect(result.handlers).toContain("needs msw");
    expect(result.handlers).toContain("npm install -D msw");
  });

  it("CommonJS: the same", async () => {
    const result = await node([
      "--input-type=commonjs",
      "-e",
      `(async () => { ${SCRIPT('const { createMockService, startMockServer } = require("medrecords/mock");')} })()`,
    ]);
    expect(result.over).toBe(200);
    expect(result.own).toBe(200);
    expect(result.handlers).toContain("npm install -D msw");
  });

  it("the CLI's mock starts and serves", async () => {
    const cli = join(project, "node_modules", "medrecords", "dist", "cli.js");
    const child = spawn(process.execPath, [cli, "mock", "--port", "0", "--json"], {
      cwd: project,
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const line = await new Promise<string>((resolveLine, reject) => {
        let text = "";
        let errors = "";
        child.stdout.on("data", (chunk: Buffer) => {
          text += chunk.toString("utf8");
          if (text.includes("\n")) resolveLine(text.slice(0, text.indexOf("\n")));
        });
        child.stderr.on("data", (chunk: Buffer) => {
          errors += chunk.toString("utf8");
        });
        child.on("exit", (code) => reject(new Error(`exited ${code}: ${errors}`)));
      });
      const started = JSON.parse(line) as { base_url: string };
      const answer = await fetch(`${started.base_url}/__mock/clock`);
      expect(answer.status).toBe(200);
    } finally {
      child.kill();
    }
  });
});
