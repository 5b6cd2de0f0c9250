// src/types/wire.ts and wire-checks.ts are generated from the zod schemas
// (scripts/generate-types.ts): a schema whose description or shape changed
// without `npm run types` leaves them stale, and this fails.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

it("regenerating the interfaces from the schemas gives the committed files", () => {
  const run = () =>
    execFileSync(
      process.execPath,
      ["--import", "./scripts/ts-resolve.mjs", "scripts/generate-types.ts", "--check"],
      { cwd: ROOT, encoding: "utf8", stdio: "pipe" },
    );
  expect(run).not.toThrow();
}, 120_000);
