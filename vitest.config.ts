import { defineConfig } from "vitest/config";

const E2E = "test/e2e/**/*.test.ts";

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Memory tests collect garbage on purpose, to measure what is retained.
    execArgv: ["--expose-gc"],
    // One end-to-end suite, two transports: the reference server under MSW and over real HTTP.
    projects: [
      { extends: true, test: { name: "unit", include: ["test/**/*.test.ts"], exclude: [E2E] } },
      {
        extends: true,
        test: { name: "e2e-msw", include: [E2E], env: { MEDRECORDS_E2E_TRANSPORT: "msw" } },
      },
      {
        extends: true,
        test: { name: "e2e-http", include: [E2E], env: { MEDRECORDS_E2E_TRANSPORT: "http" } },
      },
    ],
  },
});
