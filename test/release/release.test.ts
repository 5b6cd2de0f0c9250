/**
 * The release flow (docs/releasing.md), in a throw-away git repository made
 * of this repository's package.json, package-lock.json, .changeset/ and
 * release scripts: `npm run version-packages` turns the changesets into
 * CHANGELOG.md and one new version, and `npm run release` refuses what it
 * must and, with `--dry-run`, runs every check in order and then
 * `npm publish --dry-run`, never `changeset publish`, and tags nothing.
 *
 * The checks themselves (npm test, build, ...) are stubbed in the copy's
 * package.json: each records its name. npm runs offline against an
 * unreachable registry, so nothing here can reach the real one.
 */
import { execFileSync, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const REPO = new URL("../..", import.meta.url).pathname;
const CHECKS = ["test", "build", "check:package", "smoke", "docs"];
const OWN_CHANGESET = "Release flow test: this entry must reach CHANGELOG.md.";

let dir: string;
let stepsLog: string;

const env = (): NodeJS.ProcessEnv => ({
  ...process.env,
  PATH: `${join(REPO, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
  STEPS_LOG: stepsLog,
  npm_config_offline: "true",
  npm_config_registry: "http://127.0.0.1:9/",
  npm_config_update_notifier: "false",
  npm_config_fund: "false",
  npm_config_audit: "false",
  GIT_AUTHOR_NAME: "release test",
  GIT_AUTHOR_EMAIL: "release-test@example.com",
  GIT_COMMITTER_NAME: "release test",
  GIT_COMMITTER_EMAIL: "release-test@example.com",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
});

function git(...args: string[]): string {
  return execFileSync("git", args, { cwd: dir, env: env(), encoding: "utf8" });
}

function npmRun(...args: string[]) {
  const run = spawnSync("npm", ["run", ...args], { cwd: dir, env: env(), encoding: "utf8" });
  return { code: run.status, output: `${run.stdout}${run.stderr}` };
}

function readJson(file: string): {
  version: string;
  packages?: Record<string, { version?: string }>;
} {
  return JSON.parse(readFileSync(join(dir, file), "utf8"));
}

function pendingChangesets(): string[] {
  return readdirSync(join(dir, ".changeset")).filter((f) => f.endsWith(".md") && f !== "README.md");
}

/** The version `changeset version` must produce: the highest bump any changeset asks for. */
function expectedVersion(current: string, changesets: string[]): string {
  const bumps = changesets.map((file) => {
    const text = readFileSync(join(dir, ".changeset", file), "utf8");
    return /"medrecords":\s*(major|minor|patch)/.exec(text)?.[1] ?? "none";
  });
  const [major = 0, minor = 0, patch = 0] = current.split(".").map(Number);
  if (bumps.includes("major")) return `${major + 1}.0.0`;
  if (bumps.includes("minor")) return `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "medrecords-release-"));
  stepsLog = join(tmpdir(), `${dir.split("/").pop()}-steps.log`);
  for (const path of [
    "package-lock.json",
    ".gitignore",
    "README.md",
    "LICENSE",
    ".changeset",
    "scripts/release.sh",
    "scripts/sync-lockfile-version.mjs",
  ]) {
    cpSync(join(REPO, path), join(dir, path), { recursive: true });
  }
  symlinkSync(join(REPO, "node_modules"), join(dir, "node_modules"));
  // The checks, stubbed: each appends its name to STEPS_LOG (outside the tree).
  const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8"));
  for (const name of CHECKS) {
    pkg.scripts[name] =
      `node -e "require('node:fs').appendFileSync(process.env.STEPS_LOG, '${name}\\n')"`;
  }
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
  // One changeset of our own, so that there is always one to consume.
  writeFileSync(
    join(dir, ".changeset", "release-flow-test.md"),
    `---\n"medrecords": patch\n---\n\n${OWN_CHANGESET}\n`,
  );
  git("init", "--quiet", "--initial-branch=main");
  git("add", "--all");
  git("commit", "--quiet", "--no-gpg-sign", "--message", "before the release");
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(stepsLog, { force: true });
});

describe("the release flow", () => {
  it("refuses to release while changesets are pending", () => {
    const run = npmRun("release", "--", "--dry-run");
    expect(run.code).toBe(1);
    expect(run.output).toContain("unreleased changesets; run npm run version-packages");
    expect(existsSync(stepsLog)).toBe(false);
  });

  it("version-packages writes CHANGELOG.md from the changesets and bumps the version once", () => {
    const before = readJson("package.json").version;
    const changesets = pendingChangesets();
    const next = expectedVersion(before, changesets);
    const summaries = changesets.map(
      (file) =>
        readFileSync(join(dir, ".changeset", file), "utf8")
          .split("---")[2]
          ?.trim() ?? "",
    );

    const run = npmRun("version-packages");
    expect(run.code, run.output).toBe(0);

    expect(readJson("package.json").version).toBe(next);
    const lock = readJson("package-lock.json");
    expect(lock.version).toBe(next);
    expect(lock.packages?.[""]?.version).toBe(next);
    expect(pendingChangesets()).toEqual([]);
    const changelog = readFileSync(join(dir, "CHANGELOG.md"), "utf8");
    expect(changelog).toMatch(
      new RegExp(`^# medrecords\\n\\n## ${next.replaceAll(".", "\\.")}\\n`),
    );
    expect(changelog).toContain(OWN_CHANGESET);
    for (const summary of summaries) {
      // Each changeset's first line, as written (later lines are indented in the list).
      expect(changelog).toContain(summary.split("\n")[0]);
    }
  });

  it("refuses a dirty tree", () => {
    // The versioning is not committed yet.
    const run = npmRun("release", "--", "--dry-run");
    expect(run.code).toBe(1);
    expect(run.output).toContain("the working tree is not clean");
    expect(run.output).toContain("CHANGELOG.md");
  });

  it("refuses to release outside main", () => {
    git("add", "--all");
    git("commit", "--quiet", "--no-gpg-sign", "--message", "version packages");
    git("switch", "--quiet", "--create", "topic");
    try {
      const run = npmRun("release", "--", "--dry-run");
      expect(run.code).toBe(1);
      expect(run.output).toContain("on topic: releases are made from main");
    } finally {
      git("switch", "--quiet", "main");
    }
    expect(existsSync(stepsLog)).toBe(false);
  });

  it("dry run: every check in order, then npm publish --dry-run; no tag", () => {
    const version = readJson("package.json").version;
    const run = npmRun("release", "--", "--dry-run");
    expect(run.code, run.output).toBe(0);
    expect(readFileSync(stepsLog, "utf8").trim().split("\n")).toEqual(CHECKS);
    expect(run.output).toContain("npm publish --dry-run");
    expect(run.output).toContain(`+ medrecords@${version}`);
    expect(run.output).toContain(`release: dry run of medrecords@${version} passed`);
    expect(run.output).toContain("(dry-run)");
    expect(run.output).not.toContain("release: changeset publish");
    expect(git("tag", "--list")).toBe("");
    expect(git("status", "--porcelain")).toBe("");
  });
});
