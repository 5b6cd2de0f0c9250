// Copies package.json's version into package-lock.json (its root `version`
// and `packages[""].version`), which `changeset version` leaves behind. Run
// by `npm run version-packages`; offline, and touches nothing else of the
// lockfile (npm writes it as 2-space JSON, so a parse and re-serialize
// reproduces it byte for byte).
import { readFileSync, writeFileSync } from "node:fs";

const root = new URL("../", import.meta.url);
const { version } = JSON.parse(readFileSync(new URL("package.json", root), "utf8"));
const lockUrl = new URL("package-lock.json", root);
const lock = JSON.parse(readFileSync(lockUrl, "utf8"));

if (lock.version === version && lock.packages?.[""]?.version === version) {
  console.log(`package-lock.json: already at ${version}`);
} else {
  lock.version = version;
  if (lock.packages?.[""]) lock.packages[""].version = version;
  writeFileSync(lockUrl, `${JSON.stringify(lock, null, 2)}\n`);
  console.log(`package-lock.json: version set to ${version}`);
}
