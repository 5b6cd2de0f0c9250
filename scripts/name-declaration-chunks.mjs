// After tsup: the declaration chunks that the entry points share come out as
// `<name>-<hash>.d.ts` (tsup fixes rollup's chunkFileNames), and an editor
// shows that name to users (`import("./retrieval-requests-B1GXLmNO.js")`),
// different on every build. Renames each to `shared-<name>.d.ts` (`.d.cts`)
// and rewrites the imports that name it. Fails on two chunks of one name.
//
// Usage: node scripts/name-declaration-chunks.mjs [dist]
import { readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.argv[2] ?? "dist";
// rollup's `[name]-[hash]`: an 8-character base64url hash.
const HASHED = /^(?<name>.+)-(?<hash>[A-Za-z0-9_-]{8})\.d\.(?<ext>c?ts)$/;

const files = readdirSync(dir).filter((f) => /\.d\.c?ts$/.test(f));
/** `./name-hash.js` (or `.cjs`) as imported -> `./shared-name.js`. */
const renames = new Map();
for (const file of files) {
  const match = HASHED.exec(file);
  if (!match?.groups || file.startsWith("shared-")) continue;
  const { name, ext } = match.groups;
  const target = `shared-${name}.d.${ext}`;
  if ([...renames.values()].some((r) => r.target === target) || files.includes(target)) {
    throw new Error(`name-declaration-chunks: two declaration chunks would be ${target}`);
  }
  const js = ext === "cts" ? "cjs" : "js";
  renames.set(`./${name}-${match.groups.hash}.${js}`, {
    file,
    target,
    to: `./shared-${name}.${js}`,
  });
}
for (const file of readdirSync(dir).filter((f) => /\.d\.c?ts$/.test(f))) {
  const path = join(dir, file);
  let text = readFileSync(path, "utf8");
  for (const [from, { to }] of renames)
    text = text.replaceAll(`'${from}'`, `'${to}'`).replaceAll(`"${from}"`, `"${to}"`);
  writeFileSync(path, text);
}
for (const { file, target } of renames.values()) renameSync(join(dir, file), join(dir, target));
console.log(`name-declaration-chunks: ${renames.size} declaration chunks named shared-*`);
