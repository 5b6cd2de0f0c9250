#!/usr/bin/env bash
# Publishes medrecords to npm: `npm run release`, or `npm run release -- --dry-run`.
#
# Run it on main, in a clean tree, once `npm run version-packages` has turned
# the pending changesets into CHANGELOG.md and a new version and that commit
# is made. It runs the checks (npm test, build, check:package, smoke, docs),
# then `changeset publish`, which publishes the version if npm does not have
# it yet and tags it (v<version>); push the tag yourself: git push --follow-tags.
#
# --dry-run: the same refusals and checks, then `npm publish --dry-run` (what
# would be published; nothing is sent) instead of `changeset publish`; no tag.
# See docs/releasing.md.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
export PATH="$REPO/node_modules/.bin:$PATH"

dry_run=false
for arg in "$@"; do
  case "$arg" in
    --dry-run) dry_run=true ;;
    -h | --help)
      sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "release: unknown argument '$arg' (the only option is --dry-run)" >&2
      exit 2
      ;;
  esac
done

fail() {
  printf 'release: %s\n' "$@" >&2
  exit 1
}
step() {
  printf '\n==== release: %s ====\n' "$1"
}

# ---------------------------------------------------------------- refusals

base="$(node -p 'require("./.changeset/config.json").baseBranch')"
branch="$(git symbolic-ref --quiet --short HEAD || echo "a detached HEAD")"
[ "$branch" = "$base" ] || fail "on $branch: releases are made from $base."

if [ -n "$(git status --porcelain)" ]; then
  fail "the working tree is not clean; commit or stash first:" "$(git status --short)"
fi

pending="$(find .changeset -maxdepth 1 -name '*.md' ! -name README.md | sort)"
if [ -n "$pending" ]; then
  fail "unreleased changesets; run npm run version-packages, review CHANGELOG.md and commit first:" "$pending"
fi

version="$(node -p 'require("./package.json").version')"
lock_version="$(node -p 'require("./package-lock.json").version')"
[ "$version" = "$lock_version" ] ||
  fail "package.json is at $version but package-lock.json at $lock_version: run node scripts/sync-lockfile-version.mjs and commit."
grep -qxF "## $version" CHANGELOG.md 2>/dev/null ||
  fail "CHANGELOG.md has no '## $version' section: version with npm run version-packages, not by hand."

# ---------------------------------------------------------------- checks

step "npm test"
npm test
step "npm run build"
npm run build
step "npm run check:package"
npm run check:package
step "npm run smoke"
npm run smoke
step "npm run docs"
npm run docs

# What is published is what was checked: the checks must not have changed a tracked file.
if [ -n "$(git status --porcelain)" ]; then
  fail "the checks changed the working tree:" "$(git status --short)"
fi

# ---------------------------------------------------------------- publish

if [ "$dry_run" = true ]; then
  step "npm publish --dry-run (nothing is sent, no tag)"
  npm publish --dry-run
  echo "release: dry run of medrecords@$version passed; npm run release publishes it and tags v$version."
else
  step "changeset publish"
  changeset publish
  echo "release: medrecords@$version is published and tagged; push the tag: git push --follow-tags"
fi
