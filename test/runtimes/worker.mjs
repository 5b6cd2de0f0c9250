// The workerd entry of the runtime matrix: a module worker whose fetch runs the
// shared checks and answers their results as JSON. run-workerd.mjs bundles it
// with esbuild (conditions workerd, worker, browser) and runs it in Miniflare;
// the reference server's URL and key arrive as bindings.
import { runChecks } from "./checks.mjs";

export default {
  async fetch(_request, env) {
    const results = await runChecks({
      label: "workerd",
      baseUrl: env.MEDRECORDS_BASE_URL,
      apiKey: env.MEDRECORDS_API_KEY,
    });
    return Response.json(results);
  },
};
