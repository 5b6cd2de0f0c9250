/**
 * Child process of bench/run.ts: runs one suite and sends its rows back over
 * IPC. Each suite gets a fresh process, so one suite's heap, JIT state or
 * leftover servers never weigh on the next one's figures.
 *
 *   node --expose-gc bench/lib/run-suite.ts <name> [--quick]
 */
import type { BenchRow, Suite } from "./types.ts";

export type SuiteMessage = { rows: BenchRow[] } | { error: string };

const [name, ...flags] = process.argv.slice(2);

function send(message: SuiteMessage): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!process.send) {
      console.log(JSON.stringify(message, null, 2));
      resolve();
      return;
    }
    process.send(message, (error: Error | null) => (error ? reject(error) : resolve()));
  });
}

try {
  if (!name) throw new Error("usage: run-suite.ts <name> [--quick]");
  const module = (await import(`../suites/${name}.ts`)) as { run?: Suite };
  if (typeof module.run !== "function") {
    throw new Error(`bench/suites/${name}.ts does not export \`run: Suite\``);
  }
  const rows = await module.run({ quick: flags.includes("--quick") });
  await send({ rows });
} catch (error) {
  await send({
    error: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
}
// A suite may leave a handle open (a server, a timer): this process has done its job.
process.exit(0);
