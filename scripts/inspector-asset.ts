/**
 * Bundles the inspector's front end (src/inspector/) into the three strings
 * the reference server serves under /__mock/ui (src/mock/inspector-page.ts):
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
  const bundle = (file: string) => {
    const result = buildSync({
      entryPoints: [new URL(file, ROOT).pathname],
      bundle: true,
      minify: true,
      format: file.endsWith(".ts") ? "iife" : undefined,
      target: TARGET,
      legalComments: "none",
      write: false,
      logLevel: "silent",
    });
    return (result.outputFiles[0]?.text ?? "").trim();
  };
  const html = readFileSync(new URL("index.html", ROOT), "utf8")
    .replace(/<!--[\s\S]*?-->\s*/g, "")
    .replace(/\n\s*/g, "");
  const icon = readFileSync(new URL("favicon.svg", ROOT), "utf8").trim();
  return { html, js: bundle("main.ts"), css: bundle("inspector.css"), icon };
}

/** The `define` entry that embeds the asset: `{ __MEDRECORDS_INSPECTOR__: "<JSON>" }`. */
export function inspectorDefine(): { __MEDRECORDS_INSPECTOR__: string } {
  return { __MEDRECORDS_INSPECTOR__: JSON.stringify(buildInspectorAsset()) };
}
