#!/usr/bin/env bash
# Smoke test of the published shape: pack the package, install the tarball
# into a throw-away project outside the repo, and load every entry point with
# Node 24 through both `import` and `require`, plus the `medrecords` bin.
#
# Needs `npm run build` first (dist/). Usage: bash scripts/smoke-test.sh
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NODE="$REPO/node_modules/.bin/node"

if [ ! -x "$NODE" ]; then
  echo "smoke: $NODE not found; run npm install / npm ci first" >&2
  exit 1
fi
case "$("$NODE" --version)" in
  v24.*) ;;
  *)
    echo "smoke: expected Node 24 at $NODE, got $("$NODE" --version)" >&2
    exit 1
    ;;
esac
for f in dist/index.js dist/index.cjs dist/webhooks.js dist/webhooks.cjs dist/hmac.js dist/hmac.cjs dist/hmac-node.js dist/hmac-node.cjs dist/mock.js dist/mock.cjs dist/testing.js dist/testing.cjs dist/cli.js; do
  if [ ! -f "$REPO/$f" ]; then
    echo "smoke: $f missing; run npm run build first" >&2
    exit 1
  fi
done

WORK="$(mktemp -d "${TMPDIR:-/tmp}/medrecords-smoke.XXXXXX")"
cleanup() { rm -rf "$WORK"; }
trap cleanup EXIT

# A directory holding only the pinned Node, so that `#!/usr/bin/env node`
# (the bin, npm itself) runs on Node 24 without exposing the repo's other tools.
mkdir -p "$WORK/bin"
ln -s "$NODE" "$WORK/bin/node"
export PATH="$WORK/bin:$PATH"
export npm_config_fund=false
export npm_config_audit=false
export npm_config_update_notifier=false

MSW_VERSION="$("$NODE" -p 'require(process.argv[1]).version' "$REPO/node_modules/msw/package.json")"

echo "smoke: packing $REPO"
(cd "$REPO" && npm pack --silent --pack-destination "$WORK" >"$WORK/pack-name.txt")
TARBALL="$WORK/$(tail -n 1 "$WORK/pack-name.txt")"
if [ ! -f "$TARBALL" ]; then
  echo "smoke: npm pack did not produce a tarball (got: $(cat "$WORK/pack-name.txt"))" >&2
  exit 1
fi
echo "smoke: tarball $(basename "$TARBALL") ($(wc -c <"$TARBALL") bytes)"

mkdir -p "$WORK/app"
cd "$WORK/app"
npm init -y >/dev/null
echo "smoke: installing tarball + msw@$MSW_VERSION"
npm install --no-audit --no-fund "$TARBALL" "msw@$MSW_VERSION"

cat >esm-check.mjs <<'JS'
import assert from "node:assert/strict";
import * as root from "medrecords";
import * as mock from "medrecords/mock";
import * as webhooks from "medrecords/webhooks";
import * as testing from "medrecords/testing";

const { MedRecords } = root;
assert.equal(typeof MedRecords, "function", "medrecords: MedRecords export is missing");
assert.match(
  Function.prototype.toString.call(MedRecords),
  /^class\b/,
  "medrecords: MedRecords is not a class",
);
assert.equal(
  typeof mock.createMockService,
  "function",
  "medrecords/mock: createMockService export is missing",
);
assert.equal(typeof mock.startMockServer, "function", "medrecords/mock: startMockServer export is missing");
assert.ok(Object.keys(webhooks).length > 0, "medrecords/webhooks: no exports");
assert.equal(typeof testing.useMockService, "function", "medrecords/testing: useMockService export is missing");
assert.ok(testing.FICTIONAL_CLIENTS.length > 0, "medrecords/testing: FICTIONAL_CLIENTS is empty");
const { default: openapi } = await import("medrecords/openapi.json", { with: { type: "json" } });
assert.equal(openapi.openapi, "3.1.0", "medrecords/openapi.json: not an OpenAPI 3.1 document");
assert.equal(openapi.info.version, "1.0.0", "medrecords/openapi.json: info.version is not 1.0.0");
console.log("smoke: ESM ok (root %d, webhooks %d, mock %d exports)",
  Object.keys(root).length, Object.keys(webhooks).length, Object.keys(mock).length);
JS

cat >cjs-check.cjs <<'JS'
const assert = require("node:assert/strict");
const root = require("medrecords");
const webhooks = require("medrecords/webhooks");
const mock = require("medrecords/mock");
const testing = require("medrecords/testing");
assert.equal(typeof testing.assertNoCanaryLeak, "function", "medrecords/testing (require): assertNoCanaryLeak is missing");

const { MedRecords } = root;
assert.equal(typeof MedRecords, "function", "medrecords: MedRecords export is missing");
assert.match(
  Function.prototype.toString.call(MedRecords),
  /^class\b/,
  "medrecords: MedRecords is not a class",
);
assert.equal(
  typeof mock.createMockService,
  "function",
  "medrecords/mock: createMockService export is missing",
);
assert.equal(typeof mock.startMockServer, "function", "medrecords/mock: startMockServer export is missing");
assert.ok(Object.keys(webhooks).length > 0, "medrecords/webhooks: no exports");
assert.equal(require("medrecords/openapi.json").openapi, "3.1.0", "medrecords/openapi.json via require");
// The CJS build must resolve to the .cjs files, not to the ESM ones.
for (const id of ["medrecords", "medrecords/webhooks", "medrecords/mock", "medrecords/testing"]) {
  assert.match(require.resolve(id), /\.cjs$/, `${id}: require resolved to ${require.resolve(id)}`);
}
console.log("smoke: CJS ok (root %d, webhooks %d, mock %d exports)",
  Object.keys(root).length, Object.keys(webhooks).length, Object.keys(mock).length);
JS

# The entry points (README, "Entry points"): medrecords must not import msw; medrecords/webhooks must not
# import ky, msw or the client (nor zod, as its changeset promises). Walk the
# static import graph of the installed dist files (relative imports followed,
# bare specifiers collected).
cat >graph-check.mjs <<'JS'
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const specifierRe =
  /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)["']([^"']+)["']/g;

function packageName(spec) {
  const parts = spec.split("/");
  return spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

// The package's own `imports` (`#hmac`): every target, whatever the conditions.
const pkgRoot = dirname(require.resolve("medrecords/package.json"));
const internalImports = JSON.parse(readFileSync(resolve(pkgRoot, "package.json"), "utf8")).imports ?? {};
function targetsOf(spec) {
  const leaves = [];
  const walk = (node) => {
    if (typeof node === "string") leaves.push(resolve(pkgRoot, node));
    else if (node && typeof node === "object") for (const value of Object.values(node)) walk(value);
  };
  walk(internalImports[spec]);
  assert.ok(leaves.length > 0, `${spec} is not in the package's "imports"`);
  return leaves;
}

function importGraph(entry) {
  const seen = new Set();
  const bare = new Set();
  const stack = [entry];
  while (stack.length > 0) {
    const file = stack.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    for (const [, spec] of readFileSync(file, "utf8").matchAll(specifierRe)) {
      if (spec.startsWith(".")) stack.push(resolve(dirname(file), spec));
      else if (spec.startsWith("#")) stack.push(...targetsOf(spec));
      else bare.add(packageName(spec));
    }
  }
  return { files: [...seen], bare };
}

const forbidden = {
  medrecords: ["msw"],
  "medrecords/webhooks": ["ky", "zod", "msw"],
};
for (const [id, banned] of Object.entries(forbidden)) {
  for (const file of [require.resolve(id), fileURLToPath(import.meta.resolve(id))]) {
    const graph = importGraph(file);
    for (const name of banned) {
      assert.ok(!graph.bare.has(name), `${id} (${file}) imports ${name}; its entry point must not (README, "Entry points")`);
    }
    // Browsers and Workers bundle these ESM files (the runtime matrix): a Node built-in
    // imported at a file's top, even in a chunk only loaded lazily, is hoisted into code that
    // runs everywhere once their bundler inlines the chunk; Node-only paths import them
    // inside a function. The node condition's own HMAC (hmac-node) is the exception.
    if (file.endsWith(".js")) {
      for (const f of graph.files.filter((f) => !/hmac-node\.js$/.test(f))) {
        const top = readFileSync(f, "utf8").match(/^import[^;]*?from\s*["'](node:[^"']+)["']/m);
        assert.equal(top, null, `${id}: ${f} imports ${top?.[1]} at its top; import it where it is used`);
      }
    }
    if (id === "medrecords/webhooks") {
      for (const f of graph.files) {
        assert.doesNotMatch(
          readFileSync(f, "utf8"),
          /\bclass MedRecords\b/,
          `${id} (${file}) pulls in the client through ${f}`,
        );
      }
    }
  }
}
console.log("smoke: import graph ok (medrecords without msw; webhooks without ky, zod, msw or the client; no Node built-in imported at a file's top)");
JS

echo "smoke: node $("$NODE" --version)"
"$NODE" esm-check.mjs
"$NODE" cjs-check.cjs
"$NODE" graph-check.mjs
# Source maps as shipped: relative sources inside the package, content embedded.
"$NODE" "$REPO/scripts/check-source-maps.mjs" node_modules/medrecords
# Declarations as shipped: no hashed chunk names, no internal classes, zod
# types only on the exported schemas (DESIGN 11.2).
"$NODE" "$REPO/scripts/check-declarations.mjs" node_modules/medrecords

# `#hmac` (package.json "imports"): node:crypto's HMAC under Node's `node`
# condition, from a module inside the installed package, for import and require.
(
  cd node_modules/medrecords
  esm_hmac="$("$NODE" --input-type=module -e 'console.log(import.meta.resolve("#hmac"))')"
  cjs_hmac="$("$NODE" -e 'console.log(require.resolve("#hmac"))')"
  case "$esm_hmac" in */dist/hmac-node.js) ;; *) echo "smoke: #hmac (import) resolved to $esm_hmac" >&2; exit 1 ;; esac
  case "$cjs_hmac" in */dist/hmac-node.cjs) ;; *) echo "smoke: #hmac (require) resolved to $cjs_hmac" >&2; exit 1 ;; esac
  echo "smoke: #hmac is node:crypto's on Node (import and require)"
)

echo "smoke: medrecords --help"
if [ ! -x node_modules/.bin/medrecords ]; then
  echo "smoke: node_modules/.bin/medrecords was not installed (bin field)" >&2
  exit 1
fi
set +e
node_modules/.bin/medrecords --help </dev/null >help.out 2>&1
help_rc=$?
set -e
cat help.out
if [ "$help_rc" -ne 0 ]; then
  echo "smoke: medrecords --help exited $help_rc" >&2
  exit 1
fi

# The version is written in package.json only; the build injects it (tsup define).
expected_version="$("$NODE" -p 'require(process.argv[1]).version' "$REPO/package.json")"
actual_version="$(node_modules/.bin/medrecords --version </dev/null)"
if [ "$actual_version" != "$expected_version" ]; then
  echo "smoke: medrecords --version printed '$actual_version', package.json has $expected_version" >&2
  exit 1
fi
echo "smoke: medrecords --version is $actual_version, as in package.json"

# The bin must run where msw is not installed (test suites in other languages):
# a second project with the tarball alone serves the reference server and its
# OpenAPI document, and stops on SIGTERM.
echo "smoke: medrecords mock without msw installed"
mkdir -p "$WORK/bare"
cd "$WORK/bare"
npm init -y >/dev/null
npm install --no-audit --no-fund "$TARBALL" >/dev/null
if [ -d node_modules/msw ]; then
  echo "smoke: msw was installed without being asked for" >&2
  exit 1
fi
node_modules/.bin/medrecords mock --port 0 --json >mock.out 2>mock.err &
mock_pid=$!
for _ in $(seq 1 100); do
  [ -s mock.out ] && break
  sleep 0.1
done
if [ ! -s mock.out ]; then
  echo "smoke: medrecords mock printed nothing: $(cat mock.err)" >&2
  kill "$mock_pid" 2>/dev/null || true
  exit 1
fi
"$NODE" -e '
  const info = JSON.parse(require("node:fs").readFileSync("mock.out", "utf8").split("\n")[0]);
  fetch(`${info.base_url}/v2/openapi.json`)
    .then((r) => r.json())
    .then((doc) => {
      if (doc.openapi !== "3.1.0") throw new Error("GET /v2/openapi.json is not OpenAPI 3.1");
      return fetch(`${info.base_url}/v2/cases`, { headers: { authorization: `Bearer ${info.api_key}` } });
    })
    .then((r) => {
      if (r.status !== 200) throw new Error(`GET /v2/cases answered ${r.status}`);
      console.log("smoke: medrecords mock served", info.base_url, "without msw");
      // The inspector is embedded in the package at build time (tsup.config.ts).
      return Promise.all([info.inspector_url, `${info.inspector_url}/inspector.js`].map((u) => fetch(u)));
    })
    .then(async ([page, script]) => {
      const [html, js] = [await page.text(), await script.text()];
      if (page.status !== 200 || !html.includes(">Retrieval requests</h2>")) {
        throw new Error(`GET ${info.inspector_url} answered ${page.status} without the page`);
      }
      if (script.status !== 200 || !js.includes("/state")) throw new Error("the inspector script is missing");
      console.log("smoke: the inspector is served at", info.inspector_url);
    })
    .catch((e) => { console.error("smoke:", e.message); process.exit(1); });
'
kill -TERM "$mock_pid"
set +e
wait "$mock_pid"
mock_rc=$?
set -e
if [ "$mock_rc" -ne 0 ]; then
  echo "smoke: medrecords mock exited $mock_rc on SIGTERM: $(cat mock.err)" >&2
  exit 1
fi

# The README's two-terminal walkthrough, with its own commands, from the
# installed package: the mock with the autopilot, the example receiver copied
# out of node_modules, trigger, and listen forwarding to the receiver. Ports
# are picked free (the README's 4010 and 3000 may be taken on a CI machine).
echo "smoke: the README's walkthrough from the installed package"
cd "$WORK/app"
# Both terminals: a key of one's own, which the mock registers (never printed back).
MEDRECORDS_API_KEY="medrecords_sk_live_$(openssl rand -hex 16)"
export MEDRECORDS_API_KEY
npx medrecords mock --autopilot --speed 60 --port 0 --json >walk-mock.out 2>walk-mock.err &
walk_mock_pid=$!
walk_pids="$walk_mock_pid"
walk_cleanup() { for pid in $walk_pids; do kill "$pid" 2>/dev/null || true; done; }
trap 'walk_cleanup; cleanup' EXIT
for _ in $(seq 1 100); do
  [ -s walk-mock.out ] && break
  sleep 0.1
done
MEDRECORDS_BASE_URL="$("$NODE" -p 'JSON.parse(require("fs").readFileSync("walk-mock.out","utf8").split("\n")[0]).base_url')"
MEDRECORDS_WEBHOOK_SECRET="whsec_$(openssl rand -hex 16)"
export MEDRECORDS_BASE_URL MEDRECORDS_WEBHOOK_SECRET
cp node_modules/medrecords/examples/webhook-receiver.ts receiver.mts
PORT=0 node receiver.mts >walk-receiver.out 2>walk-receiver.err &
walk_pids="$walk_pids $!"
for _ in $(seq 1 100); do
  grep -q "Receiving webhooks at" walk-receiver.out 2>/dev/null && break
  sleep 0.1
done
receiver_url="$(sed -n 's/^Receiving webhooks at \([^ ]*\).*/\1/p' walk-receiver.out)"
if [ -z "$receiver_url" ]; then
  echo "smoke: the example receiver did not start: $(cat walk-receiver.err)" >&2
  exit 1
fi
npx medrecords trigger retrieval_request.status_changed
npx medrecords listen --since 1h --forward-to "$receiver_url" >walk-listen.out 2>walk-listen.err &
walk_pids="$walk_pids $!"
for _ in $(seq 1 300); do
  grep -q "retrieval_request.status_changed: " walk-receiver.out && break
  sleep 0.1
done
if ! grep -q "retrieval_request.status_changed: " walk-receiver.out; then
  echo "smoke: the receiver processed no event. listen: $(cat walk-listen.out walk-listen.err)" >&2
  echo "receiver: $(cat walk-receiver.out walk-receiver.err)" >&2
  exit 1
fi
echo "smoke: walkthrough ok: $(grep -m1 "retrieval_request.status_changed: " walk-receiver.out)"
walk_cleanup

echo "smoke: all checks passed"
