import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Plugin } from "esbuild";
import { defineConfig } from "tsup";

// The version is written in package.json only: src/internal/version.ts gets it from here.
const define = {
  __MEDRECORDS_VERSION__: JSON.stringify(
    (JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version,
  ),
};

const WEBHOOKS = resolve("src/webhooks");
const NODE_ENTRY = resolve(WEBHOOKS, "index.node.ts");
const WEB_CRYPTO = resolve(WEBHOOKS, "crypto.ts");
const NODE_CRYPTO = resolve(WEBHOOKS, "crypto.node.ts");
const NODE_VARIANT = "webhooks-node";
// Value imports and re-exports; `import type` and `export type` vanish at build time.
const IMPORT = /^\s*(?:import|export)\s+(?!type\b)(?:[^"';]*?\s+from\s+)?["'](\.[^"']+)["']/gm;

/**
 * Builds `webhooks.node` (the `node` condition of `medrecords/webhooks`): the
 * modules of src/webhooks/index.ts once more, with crypto.node.ts (HMAC from
 * node:crypto) wherever they import crypto.ts (Web Crypto). Only the modules
 * that reach crypto.ts are compiled twice; all others (errors, headers,
 * stores) stay in the chunks the other entries share, so `instanceof` across
 * entries still holds.
 */
function webhooksNodeCrypto(): Plugin {
  const reaches = new Map<string, boolean>();
  const reachesWebCrypto = (file: string): boolean => {
    const known = reaches.get(file);
    if (known !== undefined) return known;
    reaches.set(file, false); // an import cycle does not reach it through itself
    let found = file === WEB_CRYPTO;
    if (!found && file.startsWith(`${resolve("src")}/`)) {
      for (const [, specifier = ""] of readFileSync(file, "utf8").matchAll(IMPORT)) {
        const target = resolve(dirname(file), specifier).replace(/\.js$/, ".ts");
        if (reachesWebCrypto(target)) found = true;
      }
    }
    reaches.set(file, found);
    return found;
  };
  return {
    name: "webhooks-node-crypto",
    setup(build) {
      build.onResolve({ filter: /^\.\.?\// }, (args) => {
        if (args.namespace !== NODE_VARIANT && args.importer !== NODE_ENTRY) return undefined;
        const file = resolve(args.resolveDir, args.path).replace(/\.js$/, ".ts");
        if (file === WEB_CRYPTO) return { path: NODE_CRYPTO };
        return reachesWebCrypto(file) ? { path: file, namespace: NODE_VARIANT } : undefined;
      });
      build.onLoad({ filter: /\.ts$/, namespace: NODE_VARIANT }, (args) => ({
        contents: readFileSync(args.path, "utf8"),
        loader: "ts",
        resolveDir: dirname(args.path),
      }));
    },
  };
}

export default defineConfig([
  {
    entry: {
      index: "src/index.ts",
      webhooks: "src/webhooks/index.ts",
      "webhooks.node": "src/webhooks/index.node.ts",
      mock: "src/mock/index.ts",
    },
    format: ["esm", "cjs"],
    define,
    // webhooks.node has the types of webhooks: its export condition points at those.
    dts: {
      entry: {
        index: "src/index.ts",
        webhooks: "src/webhooks/index.ts",
        mock: "src/mock/index.ts",
      },
    },
    esbuildPlugins: [webhooksNodeCrypto()],
    sourcemap: true,
    clean: true,
    target: "node22",
    platform: "neutral",
    external: ["msw", "ky", "zod", /^node:/],
    splitting: true,
    treeshake: true,
    // Keep `node:` on the lazy imports of Node built-ins (uploads, fileFromPath,
    // fileCheckpoint): edge and browser bundlers externalize `node:*`, but fail
    // on a bare `https` or `fs`.
    removeNodeProtocol: false,
  },
  {
    entry: { cli: "src/cli.ts" },
    format: ["esm"],
    define,
    platform: "node",
    target: "node22",
    sourcemap: true,
    banner: { js: "#!/usr/bin/env node" },
    external: ["msw", "ky", "zod"],
  },
]);
