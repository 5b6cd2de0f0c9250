// The minimal Jest transform of the example: esbuild strips the types of
// TypeScript files and turns ES modules (ky's included) into CommonJS.
const { transformSync } = require("esbuild");
const { readFileSync } = require("node:fs");

const version = JSON.parse(readFileSync(`${__dirname}/../../../package.json`, "utf8")).version;

module.exports = {
  process(source, filename) {
    const { code, map } = transformSync(source, {
      loader: filename.endsWith(".ts") ? "ts" : "js",
      format: "cjs",
      target: "node22",
      sourcemap: "inline",
      sourcefile: filename,
      define: { __MEDRECORDS_VERSION__: JSON.stringify(version) },
      supported: { "dynamic-import": false },
    });
    return { code, map };
  },
};
