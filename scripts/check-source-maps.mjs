#!/usr/bin/env node
// Checks the source maps of a built or installed package (default: this
// repository): every dist/*.js names a map that exists, and every map names
// its sources by paths relative to the map that stay inside the package, with
// the source text embedded (`sourcesContent`), so that a stack trace or a
// debugger in a user's install shows our TypeScript without the build
// machine's paths and without src/ being shipped.
// Usage: node scripts/check-source-maps.mjs [packageDir]
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";

const root = resolve(process.argv[2] ?? ".");
const dist = join(root, "dist");
const problems = [];
let maps = 0;

for (const name of readdirSync(dist)) {
  if (/\.(c|m)?js$/.test(name)) {
    const code = readFileSync(join(dist, name), "utf8");
    const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(code)?.[1];
    if (url === undefined) problems.push(`${name}: no sourceMappingURL`);
    else if (!existsSync(join(dist, url))) problems.push(`${name}: its map ${url} is not shipped`);
  }
  if (!name.endsWith(".map")) continue;
  maps++;
  const map = JSON.parse(readFileSync(join(dist, name), "utf8"));
  if (map.sourceRoot) problems.push(`${name}: sourceRoot ${JSON.stringify(map.sourceRoot)}`);
  map.sources.forEach((source, i) => {
    const where = resolve(dist, source);
    if (isAbsolute(source) || /^[a-z][a-z0-9+.-]*:/i.test(source)) {
      problems.push(`${name}: absolute source ${source}`);
    } else if (
      !where.startsWith(root + sep) ||
      relative(root, where).split(sep)[0] === "node_modules"
    ) {
      problems.push(`${name}: source ${source} resolves outside the package`);
    }
    if (typeof map.sourcesContent?.[i] !== "string") {
      problems.push(`${name}: no sourcesContent for ${source}`);
    }
  });
}

if (maps === 0) problems.push(`no source maps in ${dist}`);
if (problems.length > 0) {
  console.error(`source maps: ${problems.length} problem(s) in ${root}`);
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
console.log(`source maps: ${maps} maps, relative sources inside the package, content embedded`);
