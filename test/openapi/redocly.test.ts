/**
 * `redocly lint` of the generated document with the project's redocly.yaml
 * (the recommended ruleset): no error and no warning. Runs offline: telemetry
 * and the update notice are off, and the document has only local $refs.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { openApiDocument } from "../../src/openapi/document.js";

const run = promisify(execFile);
const root = resolve(import.meta.dirname, "../..");

it("passes redocly lint (recommended rules) without errors or warnings", async () => {
  const dir = await mkdtemp(join(tmpdir(), "medrecords-openapi-"));
  try {
    const file = join(dir, "openapi.json");
    await writeFile(file, `${JSON.stringify(openApiDocument(), null, 2)}\n`);
    const result = await run(
      process.execPath,
      [
        join(root, "node_modules/.bin/redocly"),
        "lint",
        file,
        "--config",
        join(root, "redocly.yaml"),
        "--format=stylish",
      ],
      {
        cwd: root,
        timeout: 60_000,
        env: {
          ...process.env,
          REDOCLY_TELEMETRY: "off",
          REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
          NO_COLOR: "1",
        },
      },
    ).catch((error: { code?: number; stdout?: string; stderr?: string }) => error);
    const output = `${result.stdout ?? ""}${result.stderr ?? ""}`;
    expect("code" in result ? result.code : 0, output).toBe(0);
    // stylish lists each problem as "line:col  error|warning  rule  message".
    expect(output).not.toMatch(/\d+:\d+\s+(error|warning)\s/);
    expect(output).not.toMatch(/You have \d+ warning/);
    expect(output).toMatch(/Your API description is valid/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 60_000);
