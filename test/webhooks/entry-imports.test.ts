import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

// Value imports and re-exports; `import type` and `export type` vanish at build time.
const IMPORT = /^\s*(?:import|export)\s+(?!type\b)(?:[^"';]*?\s+from\s+)?["']([^"']+)["']/gm;

/** Every module the entry loads at run time, following relative value imports. */
function runtimeGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const source = readFileSync(file, "utf8");
    for (const [, specifier = ""] of source.matchAll(IMPORT)) {
      if (specifier.startsWith(".")) {
        visit(resolve(dirname(file), specifier).replace(/\.js$/, ".ts"));
      } else {
        packages.add(specifier);
      }
    }
  };
  visit(resolve(root, entry));
  return { files, packages };
}

describe("medrecords/webhooks entry", () => {
  it("loads only its own modules and the error base class: no ky, client, msw or zod", () => {
    const { files, packages } = runtimeGraph("src/webhooks/index.ts");
    const relative = [...files].map((f) => f.slice(root.length + 1)).sort();
    // The walk must actually have followed the re-exports.
    expect(relative).toContain("src/webhooks/verify.ts");
    expect(relative).toContain("src/webhooks/node.ts");
    // The shared dedupe stores live in src/stores/ and take the user's own client: no package imports.
    expect(relative).toContain("src/stores/redis-dedupe.ts");
    for (const file of relative) {
      expect(
        file === "src/core/errors.ts" ||
          file.startsWith("src/webhooks/") ||
          file.startsWith("src/stores/"),
        file,
      ).toBe(true);
    }
    expect([...packages]).toEqual([]);
  });
});
