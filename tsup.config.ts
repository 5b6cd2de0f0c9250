import { defineConfig } from "tsup";

export default defineConfig([
  {
    entry: { index: "src/index.ts", webhooks: "src/webhooks/index.ts", mock: "src/mock/index.ts" },
    format: ["esm", "cjs"],
    dts: true,
    sourcemap: true,
    clean: true,
    target: "node22",
    platform: "neutral",
    external: ["msw", "ky", "zod", /^node:/],
    splitting: true,
    treeshake: true,
  },
  {
    entry: { cli: "src/cli.ts" },
    format: ["esm"],
    platform: "node",
    target: "node22",
    sourcemap: true,
    banner: { js: "#!/usr/bin/env node" },
    external: ["msw", "ky", "zod"],
  },
]);
