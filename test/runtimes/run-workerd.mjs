// Runs the shared checks in Cloudflare's workerd, through Miniflare, from Node:
//   node run-workerd.mjs <base-url> <api-key> [<examples/cloudflare-worker.ts>]
// worker.mjs is bundled with esbuild as Wrangler would bundle a worker that
// imports the package (conditions workerd, worker, browser; node:* left
// external), and run with no compatibility flag, so nodejs_compat is not
// needed. The worker reaches the reference server on 127.0.0.1 directly:
// Miniflare's outbound network allows private and loopback addresses.
//
// With a third argument, also runs that example worker (a module whose default
// export is { fetch(request, env, ctx) } reading env.MEDRECORDS_WEBHOOK_SECRET):
// a signed POST must be answered 2xx and a bad signature 4xx.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { CHECKS, formatResult } from "./checks.mjs";

const LABEL = "workerd";
const COMPATIBILITY_DATE = "2026-07-01";
const here = dirname(fileURLToPath(import.meta.url));
const [baseUrl = "", apiKey = "", exampleWorker] = process.argv.slice(2);

let failed = false;
function report(result) {
  console.log(formatResult(LABEL, result));
  if (!result.ok) failed = true;
}

async function bundle(entry) {
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: here,
    // Resolve `medrecords` from the installed tarball beside this file, even
    // for an entry that lives elsewhere (the example worker).
    nodePaths: [join(here, "node_modules")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    conditions: ["workerd", "worker", "browser"],
    external: ["node:*"],
    target: "es2022",
    logLevel: "warning",
  });
  return result.outputFiles[0].text;
}

async function withWorker(script, bindings, fn) {
  const mf = new Miniflare({
    // One module given explicitly: with `script` alone Miniflare would try to
    // resolve the bundle's lazy `import("node:...")` of Node-only paths.
    modules: [{ type: "ESModule", path: "worker.mjs", contents: script }],
    compatibilityDate: COMPATIBILITY_DATE,
    bindings,
    // The worker's console, marked as such: the example worker logs the
    // delivery with a bad signature that the check sends on purpose.
    handleRuntimeStdio(stdout, stderr) {
      for (const stream of [stdout, stderr]) {
        createInterface({ input: stream }).on("line", (line) =>
          console.log(`  [worker log] ${line}`),
        );
      }
    },
  });
  try {
    await mf.ready;
    return await fn(mf);
  } finally {
    await mf.dispose();
  }
}

// The shared checks.
try {
  const script = await bundle("./worker.mjs");
  const results = await withWorker(
    script,
    { MEDRECORDS_BASE_URL: baseUrl, MEDRECORDS_API_KEY: apiKey },
    async (mf) => {
      const response = await mf.dispatchFetch("http://worker.local/");
      const text = await response.text();
      if (response.status !== 200) {
        throw new Error(`the worker answered ${response.status}: ${text.slice(0, 400)}`);
      }
      return JSON.parse(text);
    },
  );
  for (const result of results) report(result);
} catch (error) {
  for (const check of CHECKS) {
    report({ check, ok: false, detail: `worker did not run: ${oneLine(error)}` });
  }
}

// The example worker, when there is one.
if (exampleWorker !== undefined && exampleWorker !== "") {
  try {
    report({ check: "example-worker", ok: true, detail: await checkExampleWorker(exampleWorker) });
  } catch (error) {
    report({ check: "example-worker", ok: false, detail: oneLine(error) });
  }
}

process.exitCode = failed ? 1 : 0;

async function checkExampleWorker(path) {
  if (!existsSync(path)) throw new Error(`${path} does not exist`);
  const { signWebhook } = await import("medrecords/webhooks");
  const secret = `whsec_${crypto.randomUUID().replaceAll("-", "")}`;
  const script = await bundle(path);
  return withWorker(script, { MEDRECORDS_WEBHOOK_SECRET: secret }, async (mf) => {
    const post = async (event, signingSecret) => {
      const body = JSON.stringify(event);
      const headers = await signWebhook({ payload: body, secret: signingSecret });
      const response = await mf.dispatchFetch("http://worker.local/webhooks/medrecords", {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body,
      });
      return { status: response.status, text: await response.text() };
    };
    const now = new Date().toISOString();
    // webhook.test, which every receiver must answer 2xx without acting on it
    // (spec), and a status change, which the example's handler acts on.
    const testEvent = {
      id: `evt_test_${crypto.randomUUID()}`,
      type: "webhook.test",
      created_at: now,
      data: { webhook_id: "wh_runtime_matrix" },
    };
    const statusEvent = {
      id: `evt_${crypto.randomUUID().replaceAll("-", "")}`,
      type: "retrieval_request.status_changed",
      created_at: now,
      data: { retrieval_request_id: "rr_runtime_matrix", case_id: null, public_updated_at: now },
    };
    const statuses = [];
    for (const event of [testEvent, statusEvent]) {
      const good = await post(event, secret);
      if (good.status < 200 || good.status >= 300) {
        throw new Error(
          `a signed ${event.type} was answered ${good.status}: ${good.text.slice(0, 200)}`,
        );
      }
      statuses.push(good.status);
    }
    const bad = await post({ ...statusEvent, id: `${statusEvent.id}x` }, `${secret}x`);
    if (bad.status < 400 || bad.status >= 500) {
      throw new Error(`a bad signature was answered ${bad.status}, not 4xx`);
    }
    return `examples/cloudflare-worker.ts: signed POSTs ${statuses.join(", ")}, bad signature ${bad.status}`;
  });
}

function oneLine(error) {
  return String(error?.message ?? error)
    .replace(/\s+/g, " ")
    .slice(0, 400);
}
