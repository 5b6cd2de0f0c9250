import { VERSION } from "./version.js";

/** The globals the runtime is told by; `globalThis` in use, a stand-in in tests. */
export interface RuntimeGlobals {
  process?: { versions?: Record<string, string | undefined> } | undefined;
  Bun?: { version?: string } | undefined;
  Deno?: { version?: { deno?: string } } | undefined;
}

/**
 * `medrecords/<version> <runtime>/<version>` for the runtimes whose `fetch`
 * lets a request set `User-Agent` (Node, Bun, Deno); undefined elsewhere.
 * Browsers forbid or drop it, and a header outside the CORS safelist would
 * add a preflight to every call; Workers and unknown runtimes are left alone
 * too. The version is package.json's, written in at build time.
 */
export function userAgent(
  globals: RuntimeGlobals = globalThis as RuntimeGlobals,
): string | undefined {
  const runtime = detectRuntime(globals);
  return runtime === undefined ? undefined : `medrecords/${VERSION} ${runtime}`;
}

function detectRuntime({ process, Bun, Deno }: RuntimeGlobals): string | undefined {
  // Bun and Deno also define `process.versions.node`: test them first.
  if (typeof Bun?.version === "string") return `bun/${Bun.version}`;
  if (typeof Deno?.version?.deno === "string") return `deno/${Deno.version.deno}`;
  const node = process?.versions?.node;
  return typeof node === "string" ? `node/${node}` : undefined;
}
