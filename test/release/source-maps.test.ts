/**
 * scripts/check-source-maps.mjs, which scripts/smoke-test.sh runs on the
 * installed tarball: what it accepts and what it refuses, on small packages
 * made here (the real dist/ is checked by the smoke test after the build).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const SCRIPT = new URL("../../scripts/check-source-maps.mjs", import.meta.url).pathname;
const dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A package whose dist/index.js points to dist/index.js.map holding `map`. */
function packageWith(map: object): string {
  const root = mkdtempSync(join(tmpdir(), "medrecords-maps-"));
  dirs.push(root);
  mkdirSync(join(root, "dist"));
  writeFileSync(join(root, "dist", "index.js"), "export {};\n//# sourceMappingURL=index.js.map\n");
  writeFileSync(
    join(root, "dist", "index.js.map"),
    JSON.stringify({ version: 3, mappings: "", names: [], ...map }),
  );
  return root;
}

function check(root: string) {
  const run = spawnSync(process.execPath, [SCRIPT, root], { encoding: "utf8" });
  return { status: run.status, output: run.stdout + run.stderr };
}

describe("check-source-maps", () => {
  it("accepts relative sources inside the package with their content embedded", () => {
    const root = packageWith({ sources: ["../src/index.ts"], sourcesContent: ["export {};"] });
    expect(check(root).status).toBe(0);
  });

  it("refuses a source named by the build machine's absolute path", () => {
    const root = packageWith({
      sources: ["/home/builder/medrecords/src/index.ts"],
      sourcesContent: ["export {};"],
    });
    const { status, output } = check(root);
    expect(status).toBe(1);
    expect(output).toContain("absolute source /home/builder/medrecords/src/index.ts");
  });

  it("refuses a source outside the package and a source without its content", () => {
    const root = packageWith({
      sources: ["../../elsewhere/index.ts", "../src/a.ts"],
      sourcesContent: [null, null],
    });
    const { status, output } = check(root);
    expect(status).toBe(1);
    expect(output).toContain("resolves outside the package");
    expect(output).toContain("no sourcesContent for ../src/a.ts");
  });

  it("refuses a script whose map is not shipped", () => {
    const root = packageWith({ sources: ["../src/index.ts"], sourcesContent: ["export {};"] });
    rmSync(join(root, "dist", "index.js.map"));
    writeFileSync(
      join(root, "dist", "other.js.map"),
      JSON.stringify({ version: 3, sources: [], mappings: "" }),
    );
    const { status, output } = check(root);
    expect(status).toBe(1);
    expect(output).toContain("index.js: its map index.js.map is not shipped");
  });
});
