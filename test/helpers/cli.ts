/**
 * Runs the real `medrecords` bin in a child process. The CLI is bundled from
 * src/ with tsup (the same bundler as `npm run build`) into a folder inside
 * node_modules, so its `ky` and `zod` imports resolve as in a user's install.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { build } from "tsup";

let built: Promise<string> | undefined;

/** Path of a freshly bundled `dist/cli.js` equivalent (built once per test worker). */
export function cliPath(): Promise<string> {
  built ??= (async () => {
    const cache = join(process.cwd(), "node_modules", ".cache");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(cache, { recursive: true });
    const outDir = mkdtempSync(join(cache, "medrecords-cli-"));
    await build({
      config: false,
      entry: { cli: "src/cli.ts" },
      outDir,
      format: ["esm"],
      platform: "node",
      target: "node22",
      banner: { js: "#!/usr/bin/env node" },
      external: ["msw", "ky", "zod"],
      silent: true,
    });
    return join(outDir, "cli.js");
  })();
  return built;
}

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to its end. */
export async function runCli(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<CliRun> {
  const child = spawn(process.execPath, [await cliPath(), ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return finished(child);
}

/** Starts the CLI and resolves with it once its first stdout line arrived. */
export async function startCli(
  args: string[],
): Promise<{ child: ChildProcess; firstLine: string; exited: Promise<CliRun> }> {
  const child = spawn(process.execPath, [await cliPath(), ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = finished(child);
  const firstLine = await new Promise<string>((resolve, reject) => {
    let text = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      const end = text.indexOf("\n");
      if (end !== -1) resolve(text.slice(0, end));
    });
    exited.then((run) =>
      reject(new Error(`medrecords exited (${run.code}) before printing: ${run.stderr}`)),
    );
  });
  return { child, firstLine, exited };
}

function finished(child: ChildProcess): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
