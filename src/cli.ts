/** The `medrecords` bin: runs `main` with the process's streams, environment and signals. */
import { main } from "./cli/main.js";

const controller = new AbortController();
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => controller.abort());
}
main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  signal: controller.signal,
}).then((code) => {
  process.exitCode = code;
  // The signal listeners are what is left; without them the process exits on its own.
  process.removeAllListeners("SIGINT");
  process.removeAllListeners("SIGTERM");
});
