import { readFileSync } from "node:fs";
import { defineConfig } from "vitest/config";
import { inspectorDefine } from "./scripts/inspector-asset.ts";

const E2E = "test/e2e/**/*.test.ts";
const CONTRACT = "test/contract/**/*.test.ts";
// Slow on purpose (SIGKILLed workers, fault-injected runs): their own project, still in `vitest run`.
const RELIABILITY = "test/reliability/**/*.test.ts";
// Unit files that run the mock inside MSW: also run under msw 2 (the "msw2" project).
const MSW_UNIT = [
  "test/mock/service.test.ts",
  "test/testing/**/*.test.ts",
  "examples/testing-with-the-mock.test.ts",
  "examples/test-kit/vitest/**/*.test.ts",
];

export default defineConfig({
  // As in tsup.config.ts: the package's version, from package.json (src/internal/version.ts).
  define: {
    __MEDRECORDS_VERSION__: JSON.stringify(
      (JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version,
    ),
    // The inspector's page, bundled from src/inspector/ as the build does (src/mock/server/inspector-page.ts).
    ...inspectorDefine(),
  },
  // examples/ import the package by name, as an application would: run them on the sources.
  resolve: {
    alias: [
      { find: /^medrecords$/, replacement: new URL("./src/index.ts", import.meta.url).pathname },
      {
        find: /^medrecords\/webhooks$/,
        replacement: new URL("./src/webhooks/index.ts", import.meta.url).pathname,
      },
      // The package's `imports` entry points at dist/; tests run the sources, Web Crypto's HMAC
      // by default (test/webhooks/node-crypto.test.ts swaps in node:crypto's).
      { find: /^#hmac$/, replacement: new URL("./src/webhooks/hmac.ts", import.meta.url).pathname },
      {
        find: /^medrecords\/mock$/,
        replacement: new URL("./src/mock/index.ts", import.meta.url).pathname,
      },
      {
        find: /^medrecords\/testing$/,
        replacement: new URL("./src/testing/index.ts", import.meta.url).pathname,
      },
    ],
  },
  test: {
    testTimeout: 30_000,
    // Most files wait on sockets, child processes and timers rather than the CPU: on the
    // 2-core machines CI and developers use, four workers finish in about two thirds of the
    // time the default (one per core, less one) takes.
    maxWorkers: 4,
    hookTimeout: 30_000,
    // Memory tests collect garbage on purpose, to measure what is retained.
    execArgv: ["--expose-gc"],
    // Every test file, in every project: no secret or PHI value in a log line or an error message.
    setupFiles: ["test/setup/leak-collector.ts"],
    // One end-to-end suite, two transports: the reference server under MSW and over real HTTP.
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/**/*.test.ts", "examples/**/*.test.ts"],
          exclude: [E2E, CONTRACT, RELIABILITY],
        },
      },
      {
        extends: true,
        test: { name: "e2e-msw", include: [E2E], env: { MEDRECORDS_E2E_TRANSPORT: "msw" } },
      },
      {
        extends: true,
        test: { name: "e2e-http", include: [E2E], env: { MEDRECORDS_E2E_TRANSPORT: "http" } },
      },
      // msw 2 (installed as `msw2`) in place of msw 3, since the peer range is "^2.0.0 || ^3.0.0":
      // the unit files that run the mock inside MSW, the test kit's, and the e2e suite.
      {
        extends: true,
        resolve: { alias: [{ find: /^msw(\/.*)?$/, replacement: "msw2$1" }] },
        test: {
          name: "msw2",
          include: [...MSW_UNIT, E2E],
          setupFiles: ["test/helpers/msw2-require.ts"],
          env: { MEDRECORDS_E2E_TRANSPORT: "msw", MEDRECORDS_EXPECT_MSW_MAJOR: "2" },
        },
      },
      // The OpenAPI document against the reference server over HTTP, through Prism's proxy.
      { extends: true, test: { name: "contract", include: [CONTRACT] } },
      // The client and the poller under injected faults and killed processes.
      { extends: true, test: { name: "reliability", include: [RELIABILITY] } },
    ],
  },
});
