/**
 * Bundles the inspector's front end (src/inspector/) into the three strings
 * the reference server serves under /__mock/ui (src/mock/server/inspector-page.ts):
 * the page, its script (esbuild, minified, one IIFE), its style sheet and its icon.
 * tsup.config.ts, vitest.config.ts and test/helpers/bundle.ts pass the result
 * as the `define` of `__MEDRECORDS_INSPECTOR__`, so the package reads no
 * file at run time and the tests serve the page built from the sources.
 */
import { readFileSync } from "node:fs";
import { buildSync } from "esbuild";

export interface InspectorAsset {
  html: string;
  js: string;
  css: string;
  icon: string;
}

const ROOT = new URL("../src/inspector/", import.meta.url);

/** Browsers that run the page: what a developer has, not what the package's users' users have. */
const TARGET = ["chrome115", "firefox115", "safari16"];

export function buildInspectorAsset(): InspectorAsset {
  // One esbuild run for the script and the style sheet (each run starts its service).
  const { outputFiles } = buildSync({
    entryPoints: ["main.ts", "inspector.css"].map((file) => new URL(file, ROOT).pathname),
    outdir: "/inspector",
    bundle: true,
    minify: true,
    format: "iife",
    target: TARGET,
    legalComments: "none",
    write: false,
    logLevel: "silent",
  });
  const output = (extension: string) =>
    (outputFiles.find((file) => file.path.endsWith(extension))?.text ?? "").trim();
  const html = readFileSync(new URL("index.html", ROOT), "utf8")
    .replace(/<!--[\s\S]*?-->\s*/g, "")
    .replace(/\n\s*/g, "");
  const icon = readFileSync(new URL("favicon.svg", ROOT), "utf8").trim();
  return { html, js: output(".js"), css: output(".css"), icon };
}

/**
 * The `define` entry that embeds the asset as one string literal of JSON.
 * A string, not an object: esbuild hoists an object's value into the chunk of
 * its runtime helpers, which every entry point imports (the client's too); a
 * string stays where it is used, in the reference server's chunk.
 */
export function inspectorDefine(): { __MEDRECORDS_INSPECTOR__: string } {
  return { __MEDRECORDS_INSPECTOR__: JSON.stringify(JSON.stringify(buildInspectorAsset())) };
}
