/**
 * The version is written once, in package.json: what carries it (the
 * `VERSION` constant behind `medrecords --version`) must agree with it, in
 * process under vitest and in the CLI bundled as `npm run build` bundles it.
 * The built dist/ is checked by scripts/smoke-test.sh on the packed tarball.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { VERSION } from "../../src/internal/version.js";
import { runCli } from "../helpers/cli.js";

const packageVersion = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  }
).version;

describe("the package version", () => {
  it("is package.json's, not the fallback", () => {
    expect(VERSION).toBe(packageVersion);
    expect(VERSION).not.toBe("0.0.0-dev");
  });

  it("is what medrecords --version prints, in process", async () => {
    let stdout = "";
    const code = await main(["--version"], {
      stdout: (text) => {
        stdout += text;
      },
      stderr: () => {},
      env: {},
      signal: new AbortController().signal,
    });
    expect(code).toBe(0);
    expect(stdout).toBe(`${packageVersion}\n`);
  });

  it("is what the bundled bin prints", async () => {
    const run = await runCli(["--version"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${packageVersion}\n`);
  });
});
