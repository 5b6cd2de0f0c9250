#!/usr/bin/env bash
# Runtime matrix: the packed tarball (not the sources) imported and exercised
# on Node 22, Node 24, Bun, Deno, Cloudflare's workerd (through Miniflare) and
# headless Chromium. Each runtime runs the same three checks
# (test/runtimes/checks.mjs):
#   verifyWebhook         signWebhook + verifyWebhook of a signed delivery
#                         (signature recomputed independently); a tampered
#                         body, a wrong secret, an old timestamp refused with
#                         WebhookVerificationError
#   createWebhookHandler  a signed Request answered 2xx with the event handler
#                         called once, a duplicate acknowledged, a bad
#                         signature answered 4xx
#   client                new MedRecords({ apiKey, baseUrl }) creates a case and
#                         retrieves it from the reference server over HTTP; an
#                         unknown case throws NotFoundError
# plus, on workerd, examples/cloudflare-worker.ts when it exists.
#
# Every runtime comes from the npm registry, pinned in test/runtimes/package.json
# and package-lock.json (node@22, bun, deno, miniflare/workerd, playwright-core,
# esbuild); Node 24 is the repo's own pinned node. The browser is Debian's
# chromium (apt-get installs it under CI when missing; no browser download).
# The reference server is the tarball's own `medrecords mock` bin on 127.0.0.1.
#
# Needs `npm ci` and `npm run build` in the repo first (dist/).
# Usage: bash scripts/runtime-matrix.sh
# Environment:
#   RUNTIME_MATRIX_TARBALL  test this .tgz instead of packing the repo
#   CHROMIUM                the browser binary (default /usr/bin/chromium)
# Prints one line per runtime and check, then a summary table; exits 1 when any
# check in any runtime fails or does not report.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NODE24="$REPO/node_modules/.bin/node"
RUNTIMES_SRC="$REPO/test/runtimes"
EXAMPLE_WORKER="$REPO/examples/cloudflare-worker.ts"
CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
RUN_TIMEOUT=180
START=$SECONDS

step() { printf '\n==== runtime-matrix: %s (t+%ss) ====\n' "$1" "$((SECONDS - START))"; }
die() {
  echo "runtime-matrix: $*" >&2
  exit 1
}

if [ ! -x "$NODE24" ]; then die "$NODE24 not found; run npm ci first"; fi
case "$("$NODE24" --version)" in
  v24.*) ;;
  *) die "expected Node 24 at $NODE24, got $("$NODE24" --version)" ;;
esac
if [ -z "${RUNTIME_MATRIX_TARBALL:-}" ]; then
  for f in dist/index.js dist/webhooks.js dist/mock.js dist/cli.js; do
    [ -f "$REPO/$f" ] || die "$f missing; run npm run build first"
  done
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/medrecords-runtimes.XXXXXX")"
MOCK_PID=""
APT_PID=""
# shellcheck disable=SC2317 # called by the trap
cleanup() {
  if [ -n "$MOCK_PID" ]; then
    kill -TERM "$MOCK_PID" 2>/dev/null || true
    wait "$MOCK_PID" 2>/dev/null || true
  fi
  # Waited for, not killed: an interrupted dpkg would leave the machine broken.
  if [ -n "$APT_PID" ]; then wait "$APT_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# Only the pinned Node 24 on PATH ahead of the machine's, so that npm, the
# `medrecords` bin (#!/usr/bin/env node) and the drivers run on it.
mkdir -p "$WORK/bin"
ln -s "$NODE24" "$WORK/bin/node"
export PATH="$WORK/bin:$PATH"
export npm_config_fund=false
export npm_config_audit=false
export npm_config_update_notifier=false

# Debian's chromium, installed in the background under CI while npm works.
if [ ! -x "$CHROMIUM" ]; then
  if [ "${CI:-}" = "true" ] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "runtime-matrix: $CHROMIUM missing; apt-get install chromium (in the background)"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) \
      >"$WORK/apt.log" 2>&1 &
    APT_PID=$!
  else
    die "$CHROMIUM not found: apt-get install -y chromium, or set CHROMIUM to a Chromium binary"
  fi
fi

step "pack"
if [ -n "${RUNTIME_MATRIX_TARBALL:-}" ]; then
  TARBALL="$(cd "$(dirname "$RUNTIME_MATRIX_TARBALL")" && pwd)/$(basename "$RUNTIME_MATRIX_TARBALL")"
  [ -f "$TARBALL" ] || die "RUNTIME_MATRIX_TARBALL=$RUNTIME_MATRIX_TARBALL is not a file"
  echo "runtime-matrix: testing the given tarball $TARBALL"
else
  (cd "$REPO" && npm pack --silent --pack-destination "$WORK" >"$WORK/pack-name.txt")
  TARBALL="$WORK/$(tail -n 1 "$WORK/pack-name.txt")"
  [ -f "$TARBALL" ] || die "npm pack did not produce a tarball (got: $(cat "$WORK/pack-name.txt"))"
fi
echo "runtime-matrix: $(basename "$TARBALL") ($(wc -c <"$TARBALL") bytes)"

step "npm ci (test/runtimes, pinned runtimes)"
RT="$WORK/rt"
mkdir -p "$RT"
cp "$RUNTIMES_SRC/package.json" "$RUNTIMES_SRC/package-lock.json" "$RUNTIMES_SRC"/*.mjs "$RT/"
cd "$RT"
# The registry serves no non-Linux build of deno's platform packages, so the
# lockfile lacks them and npm ci refuses it ("Missing: @deno/...@ from lock
# file", npm/cli#9846). Exactly as .ci/run does for the root install: only in
# that case, npm install from the same lockfile, which must come out unchanged.
ci_log="$WORK/npm-ci.log"
if ! npm ci --no-audit --no-fund >"$ci_log" 2>&1; then
  missing="$(grep -c '^npm error Missing: ' "$ci_log" || true)"
  versioned="$(grep '^npm error Missing: ' "$ci_log" | grep -vc '@ from lock file$' || true)"
  if [ "$missing" -eq 0 ] || [ "$versioned" -ne 0 ]; then
    cat "$ci_log" >&2
    die "npm ci failed in test/runtimes"
  fi
  echo "runtime-matrix: npm ci refused $missing optional platform packages the registry does not"
  echo "serve (npm/cli#9846); npm install from the same lockfile instead"
  cp package-lock.json "$WORK/lock-before.json"
  npm install --no-audit --no-fund >"$ci_log" 2>&1 || {
    cat "$ci_log" >&2
    die "npm install failed in test/runtimes"
  }
  if ! cmp -s package-lock.json "$WORK/lock-before.json"; then
    diff "$WORK/lock-before.json" package-lock.json | head -40 >&2 || true
    die "npm install changed test/runtimes/package-lock.json: run npm install in test/runtimes and commit it"
  fi
fi
grep -v '^npm warn Unknown user config' "$ci_log" | tail -n 3 || true

step "install the tarball"
npm install --no-save --no-audit --no-fund "$TARBALL" >"$WORK/npm-tarball.log" 2>&1 || {
  cat "$WORK/npm-tarball.log" >&2
  die "npm install of the tarball failed"
}
grep -q '"name": "medrecords"' node_modules/medrecords/package.json ||
  die "the tarball did not install as node_modules/medrecords"

NODE22="$RT/node_modules/node/bin/node"
BUN="$RT/node_modules/@oven/bun-linux-x64/bin/bun"
DENO="$RT/node_modules/@deno/linux-x64-glibc/deno"
WORKERD="$RT/node_modules/@cloudflare/workerd-linux-64/bin/workerd"
for bin in "$NODE22" "$BUN" "$DENO" "$WORKERD"; do
  [ -x "$bin" ] || die "$bin missing after npm ci (only linux-x64 is supported)"
done
case "$("$NODE22" --version)" in
  v22.*) ;;
  *) die "expected Node 22 at $NODE22, got $("$NODE22" --version)" ;;
esac

step "reference server (medrecords mock from the tarball)"
node_modules/.bin/medrecords mock --port 0 --json >"$WORK/mock.out" 2>"$WORK/mock.err" &
MOCK_PID=$!
for _ in $(seq 1 100); do
  [ -s "$WORK/mock.out" ] && break
  kill -0 "$MOCK_PID" 2>/dev/null || break
  sleep 0.1
done
[ -s "$WORK/mock.out" ] || die "medrecords mock printed nothing: $(cat "$WORK/mock.err")"
BASE_URL="$(node -p 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8").split("\n")[0]).base_url' "$WORK/mock.out")"
API_KEY="$(node -p 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8").split("\n")[0]).api_key' "$WORK/mock.out")"
echo "runtime-matrix: reference server at $BASE_URL"

# Each runtime: its output goes to the terminal and to $WORK/out-<label>.txt.
declare -A RUN_RC VERSION
LABELS=(node22 node24 bun deno workerd chromium)
CHECKS=(verifyWebhook createWebhookHandler client)
run_runtime() {
  local label="$1"
  shift
  step "$label (${VERSION[$label]})"
  set +e
  timeout "$RUN_TIMEOUT" "$@" 2>&1 | tee "$WORK/out-$label.txt"
  RUN_RC[$label]=${PIPESTATUS[0]}
  set -e
  if [ "${RUN_RC[$label]}" -eq 124 ]; then echo "runtime-matrix: $label timed out after ${RUN_TIMEOUT}s"; fi
}

pkg_version() { node -p 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).version' "node_modules/$1/package.json"; }
VERSION[node22]="node $("$NODE22" --version)"
VERSION[node24]="node $("$NODE24" --version)"
VERSION[bun]="bun $("$BUN" --version)"
VERSION[deno]="$("$DENO" --version | head -n 1 | cut -d' ' -f1-2)"
VERSION[workerd]="$("$WORKERD" --version), miniflare $(pkg_version miniflare)"

run_runtime node22 "$NODE22" run.mjs node22 "$BASE_URL" "$API_KEY"
run_runtime node24 "$NODE24" run.mjs node24 "$BASE_URL" "$API_KEY"
run_runtime bun "$BUN" run.mjs bun "$BASE_URL" "$API_KEY"
# Deno resolves `medrecords` from the existing node_modules through package.json
# (no npm: specifiers, nothing fetched: --node-modules-dir=manual --cached-only);
# it may reach the loopback network and read this directory, nothing else.
run_runtime deno env DENO_DIR="$WORK/deno-dir" DENO_NO_UPDATE_CHECK=1 \
  "$DENO" run --node-modules-dir=manual --cached-only --no-prompt \
  --allow-net=127.0.0.1 --allow-read="$RT" run.mjs deno "$BASE_URL" "$API_KEY"

# Hook: examples/cloudflare-worker.ts, when it exists, as an extra workerd check.
# It is copied beside the installed tarball so that esbuild bundles the
# tarball's medrecords/webhooks, not the sources the repo's tsconfig maps to.
EXAMPLE_ARG=""
if [ -f "$EXAMPLE_WORKER" ]; then
  cp "$EXAMPLE_WORKER" "$RT/example-cloudflare-worker.ts"
  EXAMPLE_ARG="./example-cloudflare-worker.ts"
else
  echo "runtime-matrix: no examples/cloudflare-worker.ts; the example-worker check is skipped"
fi
run_runtime workerd node run-workerd.mjs "$BASE_URL" "$API_KEY" ${EXAMPLE_ARG:+"$EXAMPLE_ARG"}

if [ -n "$APT_PID" ]; then
  step "waiting for apt-get install chromium"
  if ! wait "$APT_PID"; then
    APT_PID=""
    cat "$WORK/apt.log" >&2
    die "apt-get install chromium failed"
  fi
  APT_PID=""
  [ -x "$CHROMIUM" ] || die "$CHROMIUM still missing after apt-get install chromium"
fi
VERSION[chromium]="$("$CHROMIUM" --version 2>/dev/null | head -n 1), playwright-core $(pkg_version playwright-core)"
run_runtime chromium env CHROMIUM="$CHROMIUM" node run-browser.mjs "$BASE_URL" "$API_KEY"

# Summary: a check that printed no line counts as failed, and so does a
# runtime that exited non-zero with every line ok.
step "summary"
columns=("${CHECKS[@]}")
if [ -n "$EXAMPLE_ARG" ]; then columns+=(example-worker); fi
printf '%-9s %-5s' runtime exit
for c in "${columns[@]}"; do printf ' %-21s' "$c"; done
printf ' %s\n' version
passed=0
failed=0
for label in "${LABELS[@]}"; do
  rc="${RUN_RC[$label]:-none}"
  printf '%-9s %-5s' "$label" "$rc"
  for c in "${columns[@]}"; do
    if [ "$c" = example-worker ] && [ "$label" != workerd ]; then
      printf ' %-21s' "-"
      continue
    fi
    line="$(grep -E "^$label +$c +(ok|FAIL)( |$)" "$WORK/out-$label.txt" 2>/dev/null | head -n 1 || true)"
    if [[ "$line" =~ ^$label\ +$c\ +ok ]]; then
      status=ok
      passed=$((passed + 1))
    elif [ -n "$line" ]; then
      status=FAIL
      failed=$((failed + 1))
    else
      status="FAIL(no result)"
      failed=$((failed + 1))
    fi
    printf ' %-21s' "$status"
  done
  printf ' %s\n' "${VERSION[$label]}"
  if [ "$rc" != 0 ] && [ "$rc" != none ] && ! grep -qE "^$label +\S+ +FAIL" "$WORK/out-$label.txt"; then
    echo "  $label exited $rc although every check reported ok"
    failed=$((failed + 1))
  fi
done
# Not the "N passed, N failed" shape: CI reads that line as the test count.
echo
if [ "$failed" -eq 0 ]; then
  echo "runtime-matrix: all $passed checks ok in ${#LABELS[@]} runtimes ($((SECONDS - START))s)"
  exit 0
fi
echo "runtime-matrix: FAILED: $failed failing of $((passed + failed)) checks ($((SECONDS - START))s)" >&2
exit 1
