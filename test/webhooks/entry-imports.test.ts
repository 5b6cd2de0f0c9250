import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

// Value imports and re-exports; `import type` and `export type` vanish at build time.
const IMPORT = /^\s*(?:import|export)\s+(?!type\b)(?:[^"';]*?\s+from\s+)?["']([^"']+)["']/gm;

/**
 * The sources behind the package's own `imports` (package.json maps them to
 * dist/ by condition): `#hmac` is Web Crypto's HMAC, or node:crypto's under `node`.
 */
const INTERNAL_IMPORTS: Record<string, string[]> = {
  "#hmac": ["src/webhooks/hmac.ts", "src/webhooks/hmac-node.ts"],
};

/** Every module the entry loads at run time, following relative value imports and `#` imports. */
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
      } else if (specifier.startsWith("#")) {
        const targets = INTERNAL_IMPORTS[specifier];
        if (targets === undefined) throw new Error(`${file}: unknown internal import ${specifier}`);
        for (const target of targets) visit(resolve(root, target));
      } else {
        packages.add(specifier);
      }
    }
  };
  visit(resolve(root, entry));
  return { files, packages };
}

describe("medrecords/webhooks entry", () => {
  it("loads only its own modules, the stores and the bottom layers (the error base class, helpers that know nothing of the API): no ky, client, msw or zod", () => {
    const { files, packages } = runtimeGraph("src/webhooks/index.ts");
    const relative = [...files].map((f) => f.slice(root.length + 1)).sort();
    // The walk must actually have followed the re-exports.
    expect(relative).toContain("src/webhooks/verify.ts");
    expect(relative).toContain("src/webhooks/node.ts");
    expect(relative).toContain("src/webhooks/hmac-node.ts");
    // The shared dedupe stores live in src/stores/ and take the user's own client: no package imports.
    expect(relative).toContain("src/stores/redis-dedupe.ts");
    for (const file of relative) {
      expect(
        file.startsWith("src/shared/") ||
          file.startsWith("src/internal/") ||
          file.startsWith("src/webhooks/") ||
          file.startsWith("src/stores/"),
        file,
      ).toBe(true);
    }
    // Node's own modules only (node:crypto, under the `node` condition): no package.
    expect([...packages].filter((name) => !name.startsWith("node:"))).toEqual([]);
  });

  it("names in INTERNAL_IMPORTS exactly the package's `imports`", () => {
    const pkg = JSON.parse(readFileSync(resolve(root, "package.json"), "utf8")) as {
      imports: Record<string, unknown>;
    };
    expect(Object.keys(pkg.imports).sort()).toEqual(Object.keys(INTERNAL_IMPORTS).sort());
  });
});
