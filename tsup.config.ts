import { readFileSync } from "node:fs";
import { defineConfig } from "tsup";
import { inspectorDefine } from "./scripts/inspector-asset.ts";

// The version is written in package.json only: src/internal/version.ts gets it from here.
// The inspector's page (src/inspector/) is bundled here and embedded as strings (src/mock/server/inspector-page.ts).
const define = {
  __MEDRECORDS_VERSION__: JSON.stringify(
    (JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version,
  ),
  ...inspectorDefine(),
};

export default defineConfig([
  {
    entry: {
      index: "src/index.ts",
      webhooks: "src/webhooks/index.ts",
      mock: "src/mock/index.ts",
      testing: "src/testing/index.ts",
      // The two targets of the package's `#hmac` import (package.json "imports"):
      // node:crypto under the `node` condition, Web Crypto everywhere else.
      hmac: "src/webhooks/hmac.ts",
      "hmac-node": "src/webhooks/hmac-node.ts",
      // The thread a recording client starts (src/fidelity/cassette-writer.ts finds it beside
      // itself): never imported, so it is in no chunk a bundler inlines.
      "cassette-worker": "src/fidelity/cassette-worker.ts",
    },
    format: ["esm", "cjs"],
    define,
    dts: {
      // Members marked `@internal` (the core behind the resources, the
      // constructors `list()` and `new MedRecords()` call) stay out of the
      // declarations, and with them the internal classes they name
      // (scripts/check-declarations.mjs holds the shipped files to that).
      compilerOptions: { stripInternal: true },
      entry: {
        index: "src/index.ts",
        webhooks: "src/webhooks/index.ts",
        mock: "src/mock/index.ts",
        testing: "src/testing/index.ts",
      },
    },
    // Relative `../src/...` sources with the text embedded (esbuild's default);
    // scripts/check-source-maps.mjs holds the shipped maps to it.
    sourcemap: true,
    clean: true,
    target: "node22",
    platform: "neutral",
    // `#hmac` stays an import, resolved by the runtime or the user's bundler
    // from package.json "imports" with its conditions (tsconfig's `paths` would
    // otherwise bundle Web Crypto's in).
    // pkijs and asn1js: dependencies, loaded by the custody log only when a TSA
    // is configured or a checkpoint is verified (src/custody/tsa.ts).
    external: ["msw", "ky", "zod", "pkijs", "asn1js", "#hmac", /^node:/],
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
    // pg: an optional peer, loaded only by `custody verify postgres:<table>`.
    external: ["msw", "ky", "zod", "pkijs", "asn1js", "#hmac", "pg"],
  },
]);
