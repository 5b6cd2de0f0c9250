// Jest for the test-kit example, on the package's sources as the Vitest suite
// runs them: `medrecords/*` mapped to src/, TypeScript and ES modules through
// esbuild (esbuild-transform.cjs). In your application, with medrecords
// installed, none of the moduleNameMapper entries is needed.
const root = `${__dirname}/../../..`;

module.exports = {
  rootDir: root,
  roots: ["<rootDir>/examples/test-kit/jest"],
  testMatch: ["**/*.jest.ts"],
  testEnvironment: "node",
  transform: { "\\.[cm]?[jt]s$": "<rootDir>/examples/test-kit/jest/esbuild-transform.cjs" },
  // ky ships ES modules only: transformed too.
  transformIgnorePatterns: [],
  moduleNameMapper: {
    "^medrecords$": "<rootDir>/src/index.ts",
    "^medrecords/(webhooks|mock|testing)$": "<rootDir>/src/$1/index.ts",
    "^#hmac$": "<rootDir>/src/webhooks/hmac-node.ts",
    // The sources import siblings as ./x.js (NodeNext); Jest finds ./x.ts.
    "^(\\.{1,2}/.*)\\.js$": "$1",
  },
  moduleFileExtensions: ["ts", "js", "cjs", "mjs", "json"],
};
