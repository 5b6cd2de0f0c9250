/**
 * Runs the real `medrecords` bin in a child process, bundled from src/ with
 * tsup (the same bundler as `npm run build`) by `bundledScript`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { bundledScript } from "./bundle.js";

/** Path of a freshly bundled `dist/cli.js` equivalent (built once per test worker). */
export function cliPath(): Promise<string> {
  return bundledScript("src/cli.ts");
}

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The CLI as a child process on this Node, stdout and stderr piped. */
async function spawnCli(
  args: string[],
  env: Record<string, string | undefined>,
): Promise<ChildProcess> {
  return spawn(process.execPath, [await cliPath(), ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Runs the CLI to its end. */
export async function runCli(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<CliRun> {
  const child = await spawnCli(args, env);
  return finished(child);
}

/**
 * Starts the CLI and resolves with it once its first stdout line arrived;
 * `lines` keeps every complete stdout line, updated as the CLI prints.
 */
export async function startCli(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ child: ChildProcess; firstLine: string; exited: Promise<CliRun>; lines: string[] }> {
  const child = await spawnCli(args, env);
  const exited = finished(child);
  const lines = stdoutLines(child);
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
  return { child, firstLine, exited, lines };
}

/** Runs the CLI with its stdout a pipe whose reader is gone before the CLI writes anything. */
export async function runCliWithoutReader(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<CliRun> {
  const child = await spawnCli(args, env);
  const exited = finished(child);
  child.stdout?.destroy();
  return exited;
}

/**
 * Runs `medrecords <args> | <reader>` in bash (e.g. reader `head -c 10`): a
 * real pipe, as a shell makes it (child-process stdio in Node are socket
 * pairs, whose larger buffers would take the whole output before the reader
 * could close them). `code` and `stderr` are the CLI's (its exit status from
 * PIPESTATUS); `stdout` is what the reader printed.
 */
export async function runCliPipedTo(
  args: string[],
  reader: string,
  env: Record<string, string | undefined> = {},
): Promise<CliRun> {
  const script = `"$@" | ${reader}; exit "\${PIPESTATUS[0]}"`;
  const child = spawn("bash", ["-c", script, "bash", process.execPath, await cliPath(), ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return finished(child);
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

function stdoutLines(child: ChildProcess): string[] {
  const lines: string[] = [];
  let partial = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    partial += chunk.toString("utf8");
    const parts = partial.split("\n");
    partial = parts.pop() ?? "";
    lines.push(...parts);
  });
  return lines;
}
