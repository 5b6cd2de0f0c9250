// Runs the shared checks in the current process: Node 22, Node 24, Bun or Deno.
//   <runtime> run.mjs <label> <base-url> <api-key>
// Prints one line per check (see checks.mjs) and exits 1 when any fails.
// Arguments rather than environment variables, so that Deno needs no --allow-env.

const deno = globalThis.Deno;
const args = deno ? deno.args : globalThis.process.argv.slice(2);
const [label = "?", baseUrl = "", apiKey = ""] = args;

let failed = false;
try {
  const { runChecks, formatResult } = await import("./checks.mjs");
  for (const result of await runChecks({ label, baseUrl, apiKey })) {
    console.log(formatResult(label, result));
    if (!result.ok) failed = true;
  }
} catch (error) {
  // Only a broken checks.mjs gets here: runChecks reports each failure itself.
  console.log(`${label.padEnd(9)} harness               FAIL ${error?.stack ?? error}`);
  failed = true;
}

const code = failed ? 1 : 0;
if (deno) deno.exit(code);
else globalThis.process.exitCode = code;
