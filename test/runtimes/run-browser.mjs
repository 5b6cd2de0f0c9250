// Runs the shared checks in headless Chromium (Debian's `chromium`, driven by
// playwright-core; no browser download):
//   node run-browser.mjs <base-url> <api-key>
// Environment: CHROMIUM, the browser's path (default /usr/bin/chromium).
//
// A small node:http server on 127.0.0.1 serves the page and an esbuild browser
// bundle of browser.mjs, and proxies /v2/* to the reference server. With the
// API on the page's own origin the client's requests are same-origin, so the
// check does not depend on the reference server answering CORS preflights
// (it need not: real deployments call the API from servers, and a browser
// client would sit behind its own backend or a proxy like this one). Nothing
// else is proxied: the control API under /__mock/ stays out of the page's reach.
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { chromium } from "playwright-core";
import { CHECKS, formatResult } from "./checks.mjs";
import { CHROMIUM_ARGS } from "./chromium-args.mjs";

const LABEL = "chromium";
const here = dirname(fileURLToPath(import.meta.url));
const [apiBaseUrl = "", apiKey = ""] = process.argv.slice(2);
const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
// Hop-by-hop headers, and those fetch recomputes (the body is passed decoded).
const DROPPED_HEADERS = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "content-encoding",
  "host",
]);

let failed = false;
function report(result) {
  console.log(formatResult(LABEL, result));
  if (!result.ok) failed = true;
}

let server;
let context;
let userDataDir;
try {
  const bundled = await build({
    entryPoints: ["./browser.mjs"],
    absWorkingDir: here,
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    // The lazy imports of Node built-ins in Node-only paths (uploads from a
    // path, the file checkpoint) stay unresolved; the checks never reach them.
    external: ["node:*"],
    target: "es2022",
    logLevel: "warning",
  });
  const script = bundled.outputFiles[0].text;
  const page =
    '<!doctype html><meta charset="utf-8"><title>medrecords runtime matrix</title>' +
    '<script type="module" src="/bundle.js"></script>';

  server = createServer((req, res) => {
    serve(req, res, { page, script }).catch((error) => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
      res.end(`proxy error: ${error.message}`);
    });
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const origin = `http://127.0.0.1:${server.address().port}`;

  userDataDir = await mkdtemp(join(tmpdir(), "medrecords-chromium-"));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    args: CHROMIUM_ARGS,
    timeout: 60_000,
  });
  const tab = context.pages()[0] ?? (await context.newPage());
  const pageErrors = [];
  tab.on("pageerror", (error) => pageErrors.push(error.message));
  tab.on("console", (message) => {
    if (message.type() === "error") pageErrors.push(message.text());
  });
  await tab.goto(`${origin}/?apiKey=${encodeURIComponent(apiKey)}`, { timeout: 30_000 });
  try {
    await tab.waitForFunction(() => window.__runtimeMatrix !== undefined, null, {
      timeout: 60_000,
    });
  } catch (error) {
    throw new Error(
      `the page reported no result (${error.message.split("\n")[0]}); page errors: ${pageErrors.join(" | ") || "none"}`,
    );
  }
  const outcome = await tab.evaluate(() => window.__runtimeMatrix);
  if (outcome.error !== undefined) throw new Error(outcome.error);
  for (const result of outcome.results) report(result);
} catch (error) {
  const detail = String(error?.message ?? error)
    .replace(/\s+/g, " ")
    .slice(0, 400);
  for (const check of CHECKS) report({ check, ok: false, detail: `browser run failed: ${detail}` });
} finally {
  await context?.close().catch(() => {});
  if (server !== undefined) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  if (userDataDir !== undefined) await rm(userDataDir, { recursive: true, force: true });
}

process.exitCode = failed ? 1 : 0;

async function serve(req, res, { page, script }) {
  const url = new URL(req.url ?? "/", "http://page.local");
  if (req.method === "GET" && url.pathname === "/") {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
    res.end(page);
    return;
  }
  if (req.method === "GET" && url.pathname === "/bundle.js") {
    res.writeHead(200, { "content-type": "text/javascript", "cache-control": "no-store" });
    res.end(script);
    return;
  }
  if (!url.pathname.startsWith("/v2/")) {
    res.writeHead(404, { "content-type": "text/plain" });
    res.end("not found");
    return;
  }
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || DROPPED_HEADERS.has(name)) continue;
    headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  const upstream = await fetch(new URL(`${url.pathname}${url.search}`, apiBaseUrl), {
    method: req.method,
    headers,
    body: req.method === "GET" || req.method === "HEAD" ? undefined : Buffer.concat(chunks),
    redirect: "manual",
  });
  const responseHeaders = {};
  upstream.headers.forEach((value, name) => {
    if (!DROPPED_HEADERS.has(name)) responseHeaders[name] = value;
  });
  const body = Buffer.from(await upstream.arrayBuffer());
  res.writeHead(upstream.status, responseHeaders);
  res.end(body);
}
