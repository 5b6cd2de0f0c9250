// The README is what npm shows and what `npm install medrecords` puts in
// node_modules: every relative link in it, in docs/ and in examples/ must
// resolve inside the packed tarball (scripts/check-links.mjs), anchors included.
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script, without declarations
import { checkLinks, slug } from "../../scripts/check-links.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

it("anchors are GitHub's heading ids", () => {
  expect(slug("GET /__mock/clock, POST /__mock/clock/advance")).toBe(
    "get-__mockclock-post-__mockclockadvance",
  );
  expect(slug("The test kit (medrecords/testing)")).toBe("the-test-kit-medrecordstesting");
});

it("every relative link of the shipped Markdown resolves inside the packed tarball", () => {
  const { checked, problems } = checkLinks(ROOT) as { checked: number; problems: string[] };
  expect(problems).toEqual([]);
  expect(checked).toBeGreaterThan(40);
}, 60_000);

it("the README is at most 300 lines", async () => {
  const { readFileSync } = await import("node:fs");
  expect(readFileSync(`${ROOT}README.md`, "utf8").split("\n").length).toBeLessThanOrEqual(301);
});
