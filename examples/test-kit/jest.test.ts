/**
 * Runs the Jest suite of the test-kit example (jest/app.jest.ts) in a child
 * process, so that `npm test` covers medrecords/testing under Jest as well.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

it("the Jest suite of the test-kit example passes, its negative test included", () => {
  const run = spawnSync(
    process.execPath,
    [
      "node_modules/jest/bin/jest.js",
      "--config",
      "examples/test-kit/jest/jest.config.cjs",
      "--ci",
      "--colors=false",
    ],
    { cwd: root, encoding: "utf8", timeout: 120_000 },
  );
  const output = `${run.stdout}\n${run.stderr}`;
  expect({ status: run.status, tail: output.slice(-2000) }).toMatchObject({ status: 0 });
  expect(output).toMatch(/Tests:\s+4 passed, 4 total/);
  expect(output).toContain("the canary check catches the deliberate leak");
});
