/**
 * Bundles a script from this repository with tsup (as test/helpers/cli.ts does
 * for the CLI) into a folder inside node_modules, so that a child process can
 * run it with plain `node` and its external imports (`ky`, `zod`, `pg`)
 * resolve from node_modules as in a user's install.
 */
import { mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { build } from "tsup";
import { inspectorDefine } from "../../scripts/inspector-asset.ts";

const built = new Map<string, Promise<string>>();

/** Path of the bundled `entry` (an ESM `.js` file), built once per test worker. */
export function bundledScript(
  entry: string,
  external: readonly string[] = ["ky", "zod", "msw"],
): Promise<string> {
  let path = built.get(entry);
  if (path === undefined) {
    path = (async () => {
      const cache = join(process.cwd(), "node_modules", ".cache");
      mkdirSync(cache, { recursive: true });
      const outDir = mkdtempSync(join(cache, "medrecords-script-"));
      await build({
        config: false,
        entry: { script: entry },
        outDir,
        format: ["esm"],
        platform: "node",
        target: "node22",
        external: [...external],
        // As in tsup.config.ts, so that `medrecords --version` prints package.json's version.
        define: {
          __MEDRECORDS_VERSION__: JSON.stringify(
            (JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version,
          ),
          ...inspectorDefine(),
        },
        // package.json maps `#hmac` into dist/, which a test run need not have
        // built: the sources of its `node` condition instead, as vitest.config.ts does.
        esbuildPlugins: [
          {
            name: "hmac-from-sources",
            setup(esbuild) {
              esbuild.onResolve({ filter: /^#hmac$/ }, () => ({
                path: resolve("src/webhooks/hmac-node.ts"),
              }));
            },
          },
        ],
        silent: true,
      });
      return join(outDir, "script.js");
    })();
    built.set(entry, path);
  }
  return path;
}
