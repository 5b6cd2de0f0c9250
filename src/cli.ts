/** The `medrecords` bin: runs `main` with the process's streams, environment and signals. */
import { main } from "./cli/main.js";
import { processOutput } from "./cli/process-output.js";

const controller = new AbortController();
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => controller.abort());
}
// A reader that closes either stream ends the command cleanly instead of crashing it (EPIPE).
const stdout = processOutput(process.stdout);
const stderr = processOutput(process.stderr);
main(process.argv.slice(2), {
  stdout,
  stderr: (text) => void stderr(text),
  env: process.env,
  signal: controller.signal,
}).then((code) => {
  process.exitCode = code;
  // The signal listeners are what is left; without them the process exits on its own.
  process.removeAllListeners("SIGINT");
  process.removeAllListeners("SIGTERM");
});
